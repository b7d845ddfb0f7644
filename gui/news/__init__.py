"""The What's new panel: news newest first, by day and site."""
