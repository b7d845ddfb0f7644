"""Replay: pywb serving a project's captures, in a process of its own (docs/design.md §13).

:mod:`.server` starts and stops that process (``recrawl replay``) for the app, the
tests and the benchmarks; :mod:`.pywb_process` is what runs in it (gevent-patched:
nothing else of Recrawl may be), with :mod:`.banner`'s local-time banner. How the
project's folders make a pywb collection is :mod:`recrawl.core.archive.replay`'s.
"""
