"""Recrawl: a desktop crawl manager for web archivists.

The installed package maps the repository's top-level folders under one name:
``recrawl.core`` (``core/``, the Qt-free engine), ``recrawl.gui`` (``gui/``, the
PySide6 app) and ``recrawl.resources`` (``resources/``, bundled files). This package
itself holds only the version and the entry point (:mod:`recrawl.main`).
"""

#: The one place the version is written: pyproject.toml reads it from here (setuptools'
#: ``attr:``), so the package metadata, ``recrawl --version`` and the bundle agree, and
#: no command pays for importlib.metadata at start-up.
__version__ = "0.1.0"
