"""Recrawl's PySide6 desktop app: a thin skin over :mod:`core`, a folder per feature.

    selftest   ``recrawl --self-test``: the whole app, end to end, offscreen
    app        starts the app on a project; main_window: navigation, menus, status bar
    crawl pages search sites news filters schedule segments workers storage
               the panels, each with its models, views and the jobs it asks for
    settings export project changes
               the dialogs: File → Settings…, Export WACZ…, New Project, a password,
               the Change rules editor
    watch      watching from the app: the Crawl menu's items, the tray, another watcher
    panel      the panels' base: shown in the window's stack, refreshed lazily
    context    what every panel works with: the project, its jobs, its replay server
    jobs       work off the GUI thread: store lanes, long jobs, the thread registry
    common     shared widgets and models: tables, layouts, plots, how values read
    startup    before Qt loads: a display, the system libraries Qt needs
    preferences, replay, resources, stop_signals   the app's own services

Each layer imports only the ones below it, and the panels and dialogs never import
each other (``[tool.importlinter]`` in pyproject.toml). "Worker" here means a
PostgreSQL crawl worker (the Workers panel) only: the app's own threads run jobs.
"""
