"""Icons and the stylesheet, found in a source tree or a PyInstaller bundle."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

from core.resources import resources_dir


def resource_path(name: str) -> Path:
    return resources_dir() / name


def icon(name: str) -> QIcon:
    path = resource_path(f"icons/{name}.svg")
    return QIcon(str(path)) if path.exists() else QIcon()


def stylesheet() -> str:
    path = resource_path("style.qss")
    return path.read_text(encoding="utf-8") if path.exists() else ""
