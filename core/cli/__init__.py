"""The ``recrawl`` command line (DESIGN.md §8): it parses, calls the engine, prints."""

from recrawl.core.cli.commands import App, main

__all__ = ["App", "main"]
