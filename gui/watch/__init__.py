"""Watching from the app: the Crawl menu's items, the tray, the banner, another process noticed."""
