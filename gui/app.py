"""Start the desktop app on a project (the default one unless a folder is given)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from recrawl.core.project import FolderKind, FolderUse, Project, folder_use

if TYPE_CHECKING:  # Qt loads when the app starts, not when this module is imported
    from recrawl.gui.project.password import AskPassword


def run_app(project_dir: str | None = None, *, watch: bool = False, hidden: bool = False) -> int:
    """Run the app until it quits; ``watch``: watching from the start; ``hidden``: the
    window starts in the system tray (where there is one, else it shows)."""
    from PySide6.QtWidgets import QApplication
    from recrawl.gui.main_window import MainWindow
    from recrawl.gui.project.password import password_dialog
    from recrawl.gui.resources import icon, stylesheet
    from recrawl.gui.stop_signals import close_on_stop_signals

    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)  # a window needs the widgets' application
    app.setApplicationName("Recrawl")
    app.setOrganizationName("Recrawl")
    app.setWindowIcon(icon("app"))
    app.setStyleSheet(stylesheet())
    # a folder given by name must be a project, or the user says to create one (a typo
    # should not create one unasked); the default project is created on first start
    if project_dir:
        project = open_named_project(project_dir, password_dialog(None))
    else:
        project = Project.open_or_init_default()
    window = MainWindow(project)
    # The app ends when the window closes for good, not when it hides in the tray (nor
    # when a message box closes while the window is hidden).
    app.setQuitOnLastWindowClosed(False)
    window.sig_closed.connect(app.quit)
    if watch:
        window.start_watching()
    if not (hidden and window.tray.available):
        window.show()
    # Ctrl-C or SIGTERM: as the tray's Quit (a watch stops cleanly, the window closes)
    with close_on_stop_signals(window, window.quit_app):
        return app.exec()


def open_named_project(folder: str, ask_password: AskPassword) -> Project:
    """The project in ``folder``; where there is none yet (no such folder, or an empty
    one) the user is asked whether to create it there. Declined, or a folder of other
    files: the error that there is no project."""
    from recrawl.gui.project.password import open_asking_password

    use = folder_use(folder)
    create = use.kind in (FolderKind.MISSING, FolderKind.EMPTY) and ask_to_create(use)
    return open_asking_password(
        lambda password: (
            Project.init(folder, password=password)
            if create
            else Project.open(folder, password=password)
        ),
        ask_password,
    )


def ask_to_create(use: FolderUse) -> bool:
    from PySide6.QtWidgets import QMessageBox

    where = "There is no folder" if use.kind == FolderKind.MISSING else "There is an empty folder"
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Recrawl",
        f"{where} at {use.folder}, and no Recrawl project.",
        QMessageBox.StandardButton.NoButton,
    )
    box.setInformativeText("Create a new project there?")
    create = box.addButton("Create Project", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(create)
    box.exec()
    return box.clickedButton() is create
