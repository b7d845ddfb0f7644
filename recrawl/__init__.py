"""Recrawl: a desktop crawl manager for web archivists.

The installed package maps the repository's top-level folders under one name:
``recrawl.core`` (``core/``, the Qt-free engine), ``recrawl.gui`` (``gui/``, the
PySide6 app) and ``recrawl.resources`` (``resources/``, bundled files). This package
itself holds only the version and the entry point (:mod:`recrawl.main`).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("recrawl")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
