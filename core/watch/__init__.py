"""Watching a project: crawl rounds as pages come due, sleeping in between (docs/design.md §10).

Above the engine: a watcher runs the engine's crawls; the CLI (``recrawl watch``) and the
app drive it.
"""
