"""New Project makes a folder by name and asks before it uses one holding other files;
``recrawl gui DIR`` offers to create a missing project (issue 25 item 15)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from recrawl.core.layout import STORE_FILE
from recrawl.core.project import Project
from recrawl.gui.app import open_named_project
from recrawl.gui.project.new_project_dialog import NewProjectDialog

from tests.gui.helpers import open_window


def new_project(qtbot, window, location, name: str) -> NewProjectDialog:
    window.new_project_dialog()
    dialog = window.new_project
    assert dialog is not None and dialog.isVisible()
    dialog.location.setText(str(location))
    qtbot.keyClicks(dialog.name, name)
    return dialog


def button(box: QMessageBox, text: str):
    return next(b for b in box.buttons() if b.text().replace("&", "") == text)


def answer_when_asked(text: str) -> Callable[[], bool]:
    """Click ``text`` in the next message box a blocking call shows (as a user would);
    returns whether it was asked."""
    asked = []

    def look(tries: int = 3000) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            asked.append(box.text())
            button(box, text).click()
        elif tries:  # not yet shown (nor ever, on a test failing): 30 s at most
            QTimer.singleShot(10, lambda: look(tries - 1))

    QTimer.singleShot(0, look)
    return lambda: bool(asked)


def test_new_project_makes_a_folder_by_name(qtbot, project, prefs, tmp_path):
    window = open_window(qtbot, project, prefs)
    dialog = new_project(qtbot, window, tmp_path / "projects", "python-docs")
    target = tmp_path / "projects" / "python-docs"
    assert dialog.what.text() == f"A new folder is made: {target}"
    dialog.create_button.click()
    qtbot.waitUntil(lambda: window.project_path() == target)
    assert (target / STORE_FILE).is_file()
    window.close()
    Project.open(target).close()


def test_a_folder_of_other_files_is_used_only_when_the_user_says_so(
    qtbot, project, prefs, tmp_path
):
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "letter.txt").write_text("dear")
    (documents / "photos").mkdir()
    window = open_window(qtbot, project, prefs)
    dialog = new_project(qtbot, window, tmp_path, "Documents")
    assert "A folder of 2 files or folders that is not a project" in dialog.what.text()
    dialog.create_button.click()  # as typing the path and Enter in a folder picker did
    box = dialog.confirm
    assert box is not None and box.isVisible()
    assert box.text() == f"{documents} holds 2 files or folders and is not a Recrawl project."
    button(box, "Choose Another Name").click()
    assert dialog.isVisible() and dialog.confirm is None
    assert not (documents / STORE_FILE).exists() and window.project_path() == project.path
    # another name: a new folder inside
    dialog.name.setText("Documents/crawls")
    dialog.create_button.click()
    qtbot.waitUntil(lambda: window.project_path() == documents / "crawls")
    assert not (documents / STORE_FILE).exists()
    # and the folder itself, once the user says so
    dialog = new_project(qtbot, window, tmp_path, "Documents")
    dialog.create_button.click()
    button(dialog.confirm, "Use This Folder").click()
    qtbot.waitUntil(lambda: window.project_path() == documents)
    assert (documents / STORE_FILE).is_file() and (documents / "letter.txt").read_text() == "dear"
    window.close()


def test_a_project_there_already_is_opened(qtbot, project, prefs, tmp_path):
    Project.init(tmp_path / "old").close()
    window = open_window(qtbot, project, prefs)
    dialog = new_project(qtbot, window, tmp_path, "old")
    assert dialog.create_button.text() == "Open"
    assert dialog.what.text().startswith("A Recrawl project already")
    dialog.create_button.click()
    qtbot.waitUntil(lambda: window.project_path() == tmp_path / "old")
    window.close()


def test_recrawl_gui_on_a_missing_folder_offers_to_create_the_project(qtbot, tmp_path):
    folder = tmp_path / "new" / "project"
    asked = answer_when_asked("Create Project")
    project = open_named_project(str(folder), lambda message: None)
    assert asked() and project.path == folder
    assert (folder / STORE_FILE).is_file()
    project.close()


def test_recrawl_gui_on_a_missing_folder_creates_nothing_when_declined(qtbot, tmp_path, capsys):
    from recrawl.main import main

    missing = tmp_path / "typo"
    asked = answer_when_asked("Cancel")
    assert main(["gui", str(missing)]) == 1
    assert asked()
    assert f"no project at {missing}" in capsys.readouterr().err
    assert not missing.exists()  # a typo creates nothing unasked
