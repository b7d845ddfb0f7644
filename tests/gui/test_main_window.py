from __future__ import annotations

from PySide6.QtCore import Qt
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.project import Project
from recrawl.gui.main_window import PANELS

from tests.gui.helpers import capture_warnings, open_window
from tests.support.small_disk import fill, small_disk

make_window = open_window


def test_main_window_shows_the_project_and_its_panels(qtbot, project, prefs):
    window = make_window(qtbot, project, prefs)
    assert str(project.path) in window.windowTitle()
    assert window.project_label.text() == str(project.path)
    assert window.crawl_state.text() == "Idle"
    assert [window.nav.item(i).text() for i in range(window.nav.count())] == [
        p.title for p in PANELS
    ]
    assert PANELS[0].key == "news" and window.nav.item(0).text() == "What's new"
    assert window.current_panel().key == "crawl"
    assert prefs.recent_projects() == [str(project.path)]
    window.close()


def test_shortcuts_switch_panels_and_the_last_one_is_remembered(qtbot, project, prefs):
    window = make_window(qtbot, project, prefs)
    qtbot.keyClick(window, Qt.Key.Key_7, Qt.KeyboardModifier.ControlModifier)
    assert window.current_panel().key == "segments"
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.current_panel().key == "news"  # What's new comes first
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.current_panel().key == "pages"
    window.resize(760, 540)  # the height is free; the width has the panels' minimum
    assert window.height() == 540
    window.close()
    again = make_window(qtbot, project, prefs)
    assert again.current_panel().key == "pages"
    assert again.height() == 540  # not the 780 a new window gets
    again.close()


def test_opening_another_project_rebuilds_the_panels(qtbot, project, prefs, tmp_path, monkeypatch):
    window = make_window(qtbot, project, prefs)
    other = tmp_path / "other"
    assert window.open_project_path(str(other), create=True)
    assert window.project_path() == other
    assert str(other) in window.windowTitle()
    assert prefs.recent_projects()[:2] == [str(other), str(project.path)]
    assert [a.text() for a in window.recent_menu.actions()][:2] == [str(other), str(project.path)]
    # a folder that is not a project: a message, and the open project stays
    missing = tmp_path / "missing"
    qtbot.waitUntil(lambda: True)
    shown = capture_warnings(monkeypatch)
    assert not window.open_project_path(str(missing))
    assert shown and "no project at" in shown[0]
    assert window.project_path() == other
    window.close()
    Project.open(other).close()


def test_about_shows_the_package_version(qtbot, window, monkeypatch):
    from importlib.metadata import version

    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "about", staticmethod(lambda *a: shown.append(a[2])))
    window.about()
    assert shown and f"Recrawl {version('recrawl')}" in shown[0]


def test_recrawl_gui_on_a_folder_that_is_no_project_says_so(qtbot, tmp_path, capsys):
    from recrawl.main import main

    # a folder of other files (a missing one: tests/gui/project/test_new_project_dialog.py)
    other = tmp_path / "documents"
    other.mkdir()
    (other / "letter.txt").write_text("dear")
    assert main(["gui", str(other)]) == 1
    assert f"{other} is not a Recrawl project" in capsys.readouterr().err
    assert sorted(p.name for p in other.iterdir()) == ["letter.txt"]  # nothing created


def test_on_a_full_disk_the_app_opens_the_project_for_reading_and_says_so(qtbot, prefs, tmp_path):
    with small_disk(tmp_path / "disk", "4M") as disk:
        folder = disk / "proj"
        made = Project.init(folder)
        inject(["http://127.0.0.1:9/"], utcnow())
        made.close()
        fill(disk)
        project = Project.open(folder)
        try:
            window = make_window(qtbot, project, prefs)
            said = window.statusBar().currentMessage()
            assert said.startswith("disk full: ") and "open for reading only" in said, said
            window.show_panel("pages")
            panel = window.panels["pages"]
            qtbot.waitUntil(lambda: panel.model.row_of("http://127.0.0.1:9/") is not None)
            window.close()
        finally:
            project.close()
