"""The Crawl panel: seeds, politeness, start/pause/resume/stop, progress."""
