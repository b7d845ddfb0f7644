"""Where Recrawl's bundled files live, in a source tree or a PyInstaller bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource_text(name: str) -> str:
    return (resources_dir() / name).read_text(encoding="utf-8")
