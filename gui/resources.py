"""Where icons and the stylesheet live, in a source tree or a PyInstaller bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(name: str) -> Path:
    return resources_dir() / name


def stylesheet() -> str:
    path = resource_path("style.qss")
    return path.read_text(encoding="utf-8") if path.exists() else ""
