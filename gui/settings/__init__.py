"""File → Settings…: the crawl settings the project keeps."""
