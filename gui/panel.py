"""The base of every panel: a widget shown in the main window's stack."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget
from recrawl.gui.context import AppContext


class Panel(QWidget):
    #: The name in the navigation, and the key preferences remember.
    title = ""
    key = ""

    #: The panel's entry in the window's list reads this now (e.g. with a count).
    sig_title = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setObjectName(f"{self.key}-panel")

    def activate(self) -> None:
        """Called each time the panel is shown: load or refresh what it displays."""

    def shutdown(self) -> None:
        """Called before the window closes or the project changes."""
