"""Recrawl's Qt-free engine, in layers; each imports only the ones below it.

    cli        the ``recrawl`` command line: parses, calls, prints
    services   what the front ends do to a project; each change wakes its watcher
    watch      watching: crawl rounds as pages come due, sleeping in between
    engine     crawl rounds: generate → fetch → parse → filter → update → segment
    project    a project folder: its own store, its writer lock, recovery on open
    replay     pywb serving the captures in a process of its own, and its handle
    archive    WARC segments, CDXJ indexes, captures, compaction, recovery
    policy     schedules, signatures, scoring, simulation, the project's choices
    net        URLs, HTTP fetching, robots.txt, per-host politeness
    store      the database: models, migrations, queries
    filters    URL filter chains (pure: no store, no network)
    content    a page's main text, text diffs (pure)
    config     every setting: its default, help, unit, bounds, flag (one schema)
    setting_schema   what a setting's field says of itself; reading and checking values
    disk       a full disk: which errors mean one, and the one line said of it
    errors, clock, interrupts, layout, resources, textfile, words   shared by all

``import-linter`` checks these layers (``[tool.importlinter]`` in pyproject.toml).
Nothing here imports Qt or :mod:`recrawl.gui`. The app and the command line are front ends
beside each other: each calls the layers below ``cli``, and the app never imports ``cli``.
"""
