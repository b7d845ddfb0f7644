"""File ▸ New Project: a name and where its folder goes (issue 25).

A folder picker made whatever folder was typed into it a project, someone's documents
included. Here the project gets a new folder by name, and the dialog says before
Create what is at that place (:func:`~recrawl.core.folder_use.folder_use`): a folder
of other files is used only once the user says so, a project already there is opened.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.project import FolderKind, FolderUse, count_text, folder_use


class NewProjectDialog(QDialog):
    #: The folder to open the project in, and whether it is to be created (False: a
    #: project is there already).
    sig_chosen = Signal(str, bool)

    def __init__(self, location: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New Project")
        self.name = QLineEdit()
        self.name.setPlaceholderText("python-docs")
        self.name.setToolTip("The project's folder is made with this name")
        self.location = QLineEdit(str(location))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.location, 1)
        where.addWidget(browse)
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Create in", where)
        self.what = QLabel()
        self.what.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.create_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.create_button.setText("Create")
        self.buttons.accepted.connect(self.create_project)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.what)
        layout.addWidget(self.buttons)
        #: The question asked before a folder of other files is used (None: none asked).
        self.confirm: QMessageBox | None = None
        self.name.textChanged.connect(self._update)
        self.location.textChanged.connect(self._update)
        self.resize(560, self.sizeHint().height())
        self._update()
        self.name.setFocus()

    def folder(self) -> Path | None:
        name = self.name.text().strip()
        location = self.location.text().strip()
        if not name or not location:
            return None
        return Path(location).expanduser() / name

    def _update(self) -> None:
        folder = self.folder()
        use = folder_use(folder) if folder is not None else None
        self.what.setText(use.describe() if use is not None else "Type the project's name.")
        self.create_button.setEnabled(use is not None and use.kind != FolderKind.FILE)
        self.create_button.setText(
            "Open" if use is not None and use.kind == FolderKind.PROJECT else "Create"
        )

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(
            self, "Where the project's folder is made", self.location.text()
        )
        if chosen:
            self.location.setText(chosen)

    def create_project(self) -> None:
        """Create (or open) the project, asking first where the folder holds other files."""
        folder = self.folder()
        if folder is None:
            return
        use = folder_use(folder)  # again: the folder may have changed since it was typed
        if use.kind == FolderKind.FILE:
            self._update()
        elif use.kind == FolderKind.OTHER:
            self._ask(use)
        else:
            self._chosen(use)

    def _ask(self, use: FolderUse) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "New Project",
            f"{use.folder} holds {count_text(use.entries)} and is not a Recrawl project.",
            QMessageBox.StandardButton.NoButton,
            self,
        )
        box.setInformativeText(
            "Its files stay where they are; the project adds its store (recrawl.sqlite) "
            "and its captures (segments/) beside them. Use it anyway, or choose another "
            "name for a new folder."
        )
        use_button = box.addButton("Use This Folder", QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton("Choose Another Name", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        self.confirm = box

        def answered(button: QAbstractButton) -> None:
            self.confirm = None
            if button is use_button:
                self._chosen(use)
            else:
                self.name.setFocus()
                self.name.selectAll()

        box.buttonClicked.connect(answered)
        box.open()

    def _chosen(self, use: FolderUse) -> None:
        self.accept()
        self.sig_chosen.emit(str(use.folder), use.kind != FolderKind.PROJECT)
