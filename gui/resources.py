"""Icons and the stylesheet (package data, wherever Recrawl is installed)."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from recrawl.core.resources import resource, resource_path


def icon(name: str) -> QIcon:
    path = resource_path(f"icons/{name}.svg")
    return QIcon(str(path)) if path.exists() else QIcon()


def stylesheet() -> str:
    sheet = resource("style.qss")
    return sheet.read_text(encoding="utf-8") if sheet.is_file() else ""
