"""The Workers panel: the crawl workers of a shared PostgreSQL project."""
