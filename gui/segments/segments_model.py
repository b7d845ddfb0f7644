"""The segments table: one row per segment, from ``store.segment_summaries`` (a job).

A project has hundreds or thousands of segments, not millions: the whole list is
loaded at once, off the GUI thread, and replaced when it changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt
from recrawl.core.clock import utcnow
from recrawl.core.words import percent
from recrawl.gui.common.formatting import SEGMENT_TIP, age, segment_time, segment_tip, size
from recrawl.gui.common.table_model import Column, TableModel

#: The row's summary dict, for delegates and tests.
ROW_ROLE = Qt.ItemDataRole.UserRole + 1


class SegmentsModel(TableModel[dict[str, Any]]):
    """Rows are the summary dicts of ``store.segment_summaries``."""

    COLUMNS = (
        Column("Segment", tip=SEGMENT_TIP),
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
                segment_time(seg["name"]),
                age(seg["created_at"], self._now),
                f"{seg['records']:,}",
                f"{seg['live_records']:,}",
                percent(seg["live_records"], seg["records"]),
                size(seg["bytes"]),
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0:
                return segment_tip(seg["name"])
            if column == LIVENESS:
                return (
                    f"{seg['live_records']:,} of {seg['records']:,} records are a page's latest "
                    "capture, or the response a latest revisit refers to"
                )
        return None


#: The column the segments panel draws as a bar.
LIVENESS = [column.title for column in SegmentsModel.COLUMNS].index("Liveness")
