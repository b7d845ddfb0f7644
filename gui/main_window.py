"""The main window. Step 1: the project it shows and a place for the panels to come."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from core import __version__


class MainWindow(QMainWindow):
    def __init__(self, project_path: str) -> None:
        super().__init__()
        self.setWindowTitle(f"Recrawl — {project_path}")
        self.resize(960, 640)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        title = QLabel(f"<h2>Recrawl {__version__}</h2>")
        self.project_label = QLabel(f"Project: {project_path}")
        hint = QLabel(
            "Crawls run from the command line in this version: "
            "<code>recrawl inject DIR URL</code>, then <code>recrawl crawl DIR</code>."
        )
        hint.setWordWrap(True)
        for widget in (title, self.project_label, hint):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.setCentralWidget(central)
        self.statusBar().showMessage("Idle")
