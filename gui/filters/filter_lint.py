"""The Filters panel's Lint tab: the edited chain's lint warnings, each leading to its rule."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget
from recrawl.gui.filters.filter_draft import Validation


class LintList(QListWidget):
    """One line per warning; activating one says which filter and rule line it is about."""

    #: (filter index, rule line or None) of an activated warning.
    sig_chosen = Signal(int, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lint-list")
        self.itemActivated.connect(self._activated)

    def show_validation(self, validation: Validation) -> None:
        self.clear()
        for warning in validation.warnings:
            item = QListWidgetItem(str(warning))
            item.setData(Qt.ItemDataRole.UserRole, (warning.filter, warning.line))
            self.addItem(item)
        if not validation.warnings and validation.ok:
            self.addItem("No warnings: every rule can decide something.")

    def _activated(self, item: QListWidgetItem) -> None:
        where = item.data(Qt.ItemDataRole.UserRole)
        if where:
            self.sig_chosen.emit(*where)
