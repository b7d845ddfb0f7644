"""Shared steps of the GUI tests."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot
from recrawl.core.project import Project
from recrawl.gui.main_window import MainWindow
from recrawl.gui.pages.pages_panel import PagesPanel
from recrawl.gui.preferences import Preferences


def open_window(qtbot: QtBot, project: Project, prefs: Preferences) -> MainWindow:
    """The main window on ``project``, shown and active (so shortcuts reach it)."""
    window = MainWindow(project, prefs)
    qtbot.addWidget(window)
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    return window


def select_page(qtbot: QtBot, window: MainWindow, url: str) -> PagesPanel:
    """The Pages panel shown with ``url`` selected and its detail loaded."""
    window.show_panel("pages")
    panel = window.panels["pages"]
    assert isinstance(panel, PagesPanel)
    qtbot.waitUntil(lambda: panel.model.row_of(url) is not None)
    panel.table.selectRow(panel.model.row_of(url))
    qtbot.waitUntil(lambda: panel.detail.detail is not None and panel.detail.detail.url == url)
    return panel


def capture_warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Collect the texts of QMessageBox.warning instead of showing a modal box."""
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a, **k: shown.append(a[2])))
    return shown
