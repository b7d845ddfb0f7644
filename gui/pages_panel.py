"""The Pages panel (DESIGN.md §9)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gui.context import AppContext
from gui.panel import Panel, placeholder


class PagesPanel(Panel):
    title = "Pages"
    key = "pages"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        placeholder(self, "Pages")
