"""Recrawl's bundled files (``resources/``, installed as the package ``recrawl.resources``).

Read through :mod:`importlib.resources`, so they are found wherever the package is: a
source checkout, a wheel installed by pip or pipx, or a PyInstaller bundle.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from importlib.resources.abc import Traversable
from pathlib import Path

PACKAGE = "recrawl.resources"


def resource(name: str) -> Traversable:
    """``name`` is a relative path with ``/``, like ``icons/app.svg``."""
    return files(PACKAGE).joinpath(*name.split("/"))


def resource_text(name: str) -> str:
    return resource(name).read_text(encoding="utf-8")


def resource_path(name: str) -> Path:
    """A file-system path for APIs that want one (Qt's icons): package data is installed
    as plain files everywhere Recrawl runs, so this is the file itself, not a copy."""
    with as_file(resource(name)) as path:
        return Path(path)
