"""Start the desktop app on a project (the default one unless a folder is given)."""

from __future__ import annotations

import sys

from recrawl.core.project import Project


def run_app(project_dir: str | None = None) -> int:
    from PySide6.QtWidgets import QApplication
    from recrawl.gui.main_window import MainWindow
    from recrawl.gui.resources import icon, stylesheet
    from recrawl.gui.stop_signals import close_on_stop_signals

    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)  # a window needs the widgets' application
    app.setApplicationName("Recrawl")
    app.setOrganizationName("Recrawl")
    app.setWindowIcon(icon("app"))
    app.setStyleSheet(stylesheet())
    # a folder given by name must be a project (a typo should not create one); the
    # default project is created on first start
    project = Project.open(project_dir) if project_dir else Project.open_or_init_default()
    window = MainWindow(project)
    window.show()
    with close_on_stop_signals(window):  # Ctrl-C in the terminal: as closing the window
        return app.exec()
