from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from gui.main_window import MainWindow


@pytest.mark.gui
def test_main_window_shows_the_project(qtbot, project):
    window = MainWindow(str(project.path))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert str(project.path) in window.windowTitle()
    assert str(project.path) in window.project_label.text()
    assert window.statusBar().currentMessage() == "Idle"
