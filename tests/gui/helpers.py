"""Shared steps of the GUI tests."""

from __future__ import annotations

from recrawl.gui.main_window import MainWindow


def open_window(qtbot, project, prefs) -> MainWindow:  # type: ignore[no-untyped-def]
    """The main window on ``project``, shown and active (so shortcuts reach it)."""
    window = MainWindow(project, prefs)
    qtbot.addWidget(window)
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    return window


def capture_warnings(monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    """Collect the texts of QMessageBox.warning instead of showing a modal box."""
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a, **k: shown.append(a[2])))
    return shown
