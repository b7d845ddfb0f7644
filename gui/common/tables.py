"""How the app's table views sit: rows as tall as a line of text, not the style's 30 px.

A list of pages is read by scanning many rows: at the style's default row height the
Pages table showed six rows in a full window.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTableView

#: Pixels above and below a row's text.
ROW_PADDING = 6


def compact_rows(view: QTableView) -> None:
    rows = view.verticalHeader()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setMinimumSectionSize(1)
    rows.setDefaultSectionSize(view.fontMetrics().height() + ROW_PADDING)
