"""The segments table: one row per segment, from ``store.segment_summaries`` (a job).

A project has hundreds or thousands of segments, not millions: the whole list is
loaded at once, off the GUI thread, and replaced when it changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from recrawl.core.clock import utcnow
from recrawl.gui.formatting import age, local_time, size

COLUMNS = ("Segment", "Age", "Records", "Live", "Liveness", "Size")
LIVENESS = COLUMNS.index("Liveness")
#: The row's summary dict, for delegates and tests.
ROW_ROLE = Qt.ItemDataRole.UserRole + 1

Index = QModelIndex | QPersistentModelIndex


class SegmentsModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self._rows: list[dict[str, Any]] = []
        self._now = utcnow()

    def set_rows(self, rows: list[dict[str, Any]], now: datetime | None = None) -> None:
        self.beginResetModel()
        self._rows = rows
        self._now = now or utcnow()
        self.endResetModel()

    def row(self, number: int) -> dict[str, Any]:
        return self._rows[number]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        seg = self._rows[index.row()]
        column = index.column()
        if role == ROW_ROLE:
            return seg
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                seg["name"],
                age(seg["created_at"], self._now),
                f"{seg['records']:,}",
                f"{seg['live_records']:,}",
                f"{seg['liveness'] * 100:.0f} %",
                size(seg["bytes"]),
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0:
                return f"written {local_time(seg['created_at'])} (local time)"
            if column == LIVENESS:
                return (
                    f"{seg['live_records']:,} of {seg['records']:,} records are a page's latest "
                    "capture, or the response a latest revisit refers to"
                )
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
