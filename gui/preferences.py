"""The user's preferences: the only module that touches ``QSettings``.

Window geometry and state, the panel last shown, recent projects, what closing the
window does while the app watches a project. Values are read and
written through named methods, so the rest of the GUI never spells a settings key.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 8
#: Closing the window while watching: ask, keep watching in the tray, stop watching.
CLOSE_CHOICES = ("ask", "tray", "stop")


class Preferences:
    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings or QSettings("Recrawl", "Recrawl")

    # -- projects ----------------------------------------------------------------------

    def recent_projects(self) -> list[str]:
        value = self._settings.value("projects/recent", [])
        if isinstance(value, str):  # QSettings gives a one-item list back as a string
            value = [value]
        if not isinstance(value, list):  # none stored (an empty list reads back as None)
            return []
        return [str(v) for v in value if v]

    def add_recent_project(self, path: str | Path) -> None:
        text = str(path)
        recent = [text, *(p for p in self.recent_projects() if p != text)][:MAX_RECENT]
        self._settings.setValue("projects/recent", recent)

    def forget_project(self, path: str | Path) -> None:
        recent = [p for p in self.recent_projects() if p != str(path)]
        self._settings.setValue("projects/recent", recent)

    # -- the window --------------------------------------------------------------------

    def window_geometry(self) -> QByteArray | None:
        value = self._settings.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def window_state(self) -> QByteArray | None:
        value = self._settings.value("window/state")
        return value if isinstance(value, QByteArray) else None

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        self._settings.setValue("window/geometry", geometry)
        self._settings.setValue("window/state", state)

    def last_panel(self) -> str:
        return str(self._settings.value("window/panel", "crawl"))

    def set_last_panel(self, name: str) -> None:
        self._settings.setValue("window/panel", name)

    # -- watching ----------------------------------------------------------------------

    def close_while_watching(self) -> str:
        """What closing the window does while watching: one of :data:`CLOSE_CHOICES`."""
        value = str(self._settings.value("watch/close", "ask"))
        return value if value in CLOSE_CHOICES else "ask"

    def set_close_while_watching(self, choice: str) -> None:
        if choice not in CLOSE_CHOICES:
            raise ValueError(f"not a choice: {choice!r}")
        self._settings.setValue("watch/close", choice)

    def sync(self) -> None:
        self._settings.sync()
