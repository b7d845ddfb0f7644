"""Recrawl: a desktop crawl manager for web archivists.

The installed package maps the repository's top-level folders under one name:
``recrawl.core`` (``core/``, the Qt-free engine), ``recrawl.gui`` (``gui/``, the
PySide6 app) and ``recrawl.resources`` (``resources/``, bundled files). This package
itself holds only the version and the entry point (:mod:`recrawl.main`).
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # __version__ is looked up on first use: importlib.metadata costs a quick command
    # (`recrawl urls`) a quarter of its start-up (issue 11)
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("recrawl")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0.0.0+unknown"
    globals()["__version__"] = found
    return found
