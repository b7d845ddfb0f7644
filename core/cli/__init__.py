"""The ``recrawl`` command line (docs/design.md §8): it parses, calls the engine, prints.

:mod:`.entry` runs a command; :mod:`.parser` lists the commands and imports only the
module of the one given (:mod:`.crawl`, :mod:`.pages`, :mod:`.settings`, :mod:`.policy`,
:mod:`.segments`, :mod:`.filter`), so quick commands start quickly.
"""

from recrawl.core.cli.entry import App, main

__all__ = ["App", "main"]
