"""The Crawl menu's watching items, and the question closing the window asks.

- **Watch**: the Crawl panel's toggle, from the menu (checked while watching).
- **Start Watching at Login**: writes or removes the XDG autostart entry
  (:mod:`recrawl.gui.watch.autostart`) for the open project; checked when the entry starts
  this project. Freedesktop systems only: docs/guide.md says what Windows and macOS need.
- **When the Window Closes While Watching**: ask, keep watching in the tray, or stop
  watching: the choice "Remember my choice" keeps, and the way to change it back.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QCheckBox, QMenu, QMessageBox, QWidget
from recrawl.gui.preferences import Preferences
from recrawl.gui.watch import autostart

CLOSE_LABELS = {
    "ask": "Ask Each Time",
    "tray": "Keep Watching in the Tray",
    "stop": "Stop Watching",
}

#: Where the autostart entry is a freedesktop one (elsewhere: docs/guide.md).
HAS_XDG_AUTOSTART = sys.platform not in ("win32", "darwin")


class WatchMenu(QObject):
    #: The Watch item was toggled by the user (True: start watching).
    sig_watch = Signal(bool)
    #: Something to say in the status bar.
    sig_status = Signal(str)

    def __init__(self, menu: QMenu, prefs: Preferences, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._prefs = prefs
        self._project: Path | None = None
        menu.addSeparator()
        self.watch_action = QAction("&Watch", self)
        self.watch_action.setCheckable(True)
        self.watch_action.setToolTip("Keep crawling as pages come due (the Crawl panel's Watch)")
        self.watch_action.triggered.connect(self.sig_watch)
        menu.addAction(self.watch_action)

        self.login_action = QAction("Start Watching at &Login", self)
        self.login_action.setCheckable(True)
        self.login_action.setEnabled(HAS_XDG_AUTOSTART)
        self.login_action.setToolTip(
            f"Writes {autostart.entry_path()}: Recrawl starts in the tray, watching this project"
            if HAS_XDG_AUTOSTART
            else "On this system: see the user guide's 'Start watching at login' (docs/guide.md)"
        )
        self.login_action.triggered.connect(self._login_toggled)
        menu.addAction(self.login_action)

        self.close_menu = menu.addMenu("When the Window Closes While Watching")
        group = QActionGroup(self)
        group.setExclusive(True)
        self.close_actions: dict[str, QAction] = {}
        for choice, label in CLOSE_LABELS.items():
            action = QAction(label, self)
            action.setCheckable(True)
            action.triggered.connect(lambda _=False, c=choice: prefs.set_close_while_watching(c))
            group.addAction(action)
            self.close_menu.addAction(action)
            self.close_actions[choice] = action
        self.show_close_choice()

    def show_close_choice(self) -> None:
        self.close_actions[self._prefs.close_while_watching()].setChecked(True)

    def set_project(self, path: Path) -> None:
        self._project = path
        self.login_action.setChecked(HAS_XDG_AUTOSTART and autostart.is_enabled_for(path))

    def _login_toggled(self, on: bool) -> None:
        project = self._project
        if project is None:
            return
        try:
            if on:
                path = autostart.enable(project)
                self.sig_status.emit(f"At login, Recrawl starts watching {project} ({path})")
            else:
                autostart.disable()
                self.sig_status.emit("Recrawl no longer starts at login")
        except OSError as exc:
            self.login_action.setChecked(not on)
            self.sig_status.emit(f"The login entry could not be changed: {exc}")


def ask_keep_watching(parent: QWidget) -> tuple[str | None, bool]:
    """Ask whether to keep watching in the tray: ("tray" | "stop" | None to cancel, and
    whether to remember the choice)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Recrawl")
    box.setText("Keep watching in the tray?")
    box.setInformativeText(
        "Recrawl can keep watching this project with the window closed: its icon in the "
        "system tray shows what it does and opens the window again."
    )
    keep = box.addButton("Keep Watching", QMessageBox.ButtonRole.AcceptRole)
    stop = box.addButton("Stop Watching and Close", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(keep)
    remember = QCheckBox("Remember my choice")
    remember.setObjectName("remember-choice")
    box.setCheckBox(remember)
    box.setObjectName("keep-watching-question")
    box.exec()
    clicked = box.clickedButton()
    choice = "tray" if clicked is keep else "stop" if clicked is stop else None
    return choice, remember.isChecked() and choice is not None
