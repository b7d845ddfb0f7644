"""Recrawl's Qt-free engine, in layers; each imports only the ones below it.

    cli        the ``recrawl`` command line: parses, calls, prints
    services   what the front ends do to a project; each change wakes its watcher
    watch      watching: crawl rounds as pages come due, sleeping in between
    engine     crawl rounds: generate → fetch → parse → filter → update → segment
    project    a project folder: its own store, its writer lock, recovery on open
    archive    WARC segments, CDXJ indexes, captures, compaction, recovery
    policy     schedules, signatures, scoring, simulation, the project's choices
    net        URLs, HTTP fetching, robots.txt, per-host politeness
    store      the database: models, migrations, queries
    filters    URL filter chains (pure: no store, no network)
    content    a page's main text, text diffs (pure)
    errors, clock, config, layout, resources, textfile, words   shared by all

``import-linter`` checks these layers (``[tool.importlinter]`` in pyproject.toml).
Nothing here imports Qt or :mod:`recrawl.gui`.
"""
