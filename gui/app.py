"""Start the desktop app on a project (the default one unless a folder is given)."""

from __future__ import annotations

import sys

from recrawl.core.project import Project


def run_app(project_dir: str | None = None, *, watch: bool = False, hidden: bool = False) -> int:
    """Run the app until it quits; ``watch``: watching from the start; ``hidden``: the
    window starts in the system tray (where there is one, else it shows)."""
    from PySide6.QtWidgets import QApplication
    from recrawl.gui.main_window import MainWindow
    from recrawl.gui.password import open_asking_password, password_dialog
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
    if project_dir:
        folder = project_dir
        project = open_asking_password(
            lambda password: Project.open(folder, password=password), password_dialog(None)
        )
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
