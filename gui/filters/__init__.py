"""The Filters panel: edit, check, preview and apply the URL filter chain."""
