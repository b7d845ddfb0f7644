"""The Pages panel: every page of the project, one page's story, its captures compared."""
