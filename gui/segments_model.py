"""The segments table: one row per segment, from ``store.segment_summaries`` (a job).

A project has hundreds or thousands of segments, not millions: the whole list is
loaded at once, off the GUI thread, and replaced when it changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt
from recrawl.core.clock import utcnow
from recrawl.gui.formatting import age, local_time, size
from recrawl.gui.table_model import Column, TableModel

#: The row's summary dict, for delegates and tests.
ROW_ROLE = Qt.ItemDataRole.UserRole + 1


class SegmentsModel(TableModel[dict[str, Any]]):
    """Rows are the summary dicts of ``store.segment_summaries``."""

    COLUMNS = (
        Column("Segment"),
        Column("Age"),
        Column("Records", numeric=True),
        Column("Live", numeric=True),
        Column("Liveness", numeric=True),
        Column("Size", numeric=True),
    )

    def __init__(self) -> None:
        super().__init__()
        self._now = utcnow()

    def set_rows(self, rows: list[dict[str, Any]], now: datetime | None = None) -> None:
        self._now = now or utcnow()
        super().set_rows(rows)

    def cell(self, seg: dict[str, Any], column: int, role: int) -> Any:
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
        return None


#: The column the segments panel draws as a bar.
LIVENESS = [column.title for column in SegmentsModel.COLUMNS].index("Liveness")
