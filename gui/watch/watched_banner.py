"""The Crawl panel's banner while another process (``recrawl watch``) watches the project.

A view only: the sentence and the button; the panel fills it and wires the button.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget
from recrawl.gui.watch.watch_text import WatcherHolder, watched_text


class WatchedBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("watched-banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        self.text.setObjectName("watched-text")
        self.stop_button = QPushButton("Stop the watcher")
        self.stop_button.setToolTip(
            "Asks `recrawl watch` to stop after the fetches in flight; then this window can crawl"
        )
        row = QHBoxLayout(self)
        row.addWidget(self.text, 1)
        row.addWidget(self.stop_button)
        self.hide()

    def show_holder(self, holder: WatcherHolder | None) -> None:
        if holder is None:
            self.hide()
            return
        self.text.setText(
            watched_text(holder) + " Start and Watch wait until it stops; the panels show "
            "what it fetches as it commits."
        )
        self.stop_button.setEnabled(True)
        self.stop_button.setText("Stop the watcher")
        self.show()

    def stopping(self) -> None:
        self.stop_button.setEnabled(False)
        self.stop_button.setText("Stopping…")
