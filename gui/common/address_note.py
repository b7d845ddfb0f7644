"""The status bar's note of an address the app handed to the browser, with Copy (issue 25).

"Open capture in browser" said nothing: where no browser started (none set, a launcher
that fails, a remote session), the user had nothing to go on. The note says which
address was opened, or that no browser could open it, and Copy puts it on the
clipboard to paste into a browser by hand. It stays until dismissed or replaced: an
address is read, then copied, not caught in the eight seconds of a status message.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget


class AddressNote(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("address-note")
        self.address = ""
        self.label = QLabel()
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a long address is cut, not the window widened (its tooltip has it whole)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy the address, to paste into a browser")
        self.copy_button.clicked.connect(self.copy)
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setToolTip("Dismiss")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.copy_button)
        row.addWidget(self.close_button)
        self.hide()

    def show_address(self, address: str, opened: bool) -> None:
        """``address`` was handed to the browser (``opened``), or no browser took it."""
        self.address = address
        head = "Opened in the browser" if opened else "Could not open a browser"
        self.label.setText(f"{head}: {address}")
        self.label.setToolTip(address)
        self.copy_button.setText("Copy")
        self.show()

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.address)
        self.copy_button.setText("Copied")
