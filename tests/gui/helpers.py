"""Shared steps of the GUI tests."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot
from recrawl.core.project import Project
from recrawl.gui.main_window import MainWindow
from recrawl.gui.preferences import Preferences


def open_window(qtbot: QtBot, project: Project, prefs: Preferences) -> MainWindow:
    """The main window on ``project``, shown and active (so shortcuts reach it)."""
    window = MainWindow(project, prefs)
    qtbot.addWidget(window)
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    return window


def capture_warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Collect the texts of QMessageBox.warning instead of showing a modal box."""
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a, **k: shown.append(a[2])))
    return shown
