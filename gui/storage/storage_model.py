"""The Storage panel's tables: bytes by site and by month, from a ``StorageReport`` (a job).

A project has a few hundred sites and a few dozen months: the rows are loaded whole.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from recrawl.core.services.storage import Bucket
from recrawl.gui.common.formatting import size
from recrawl.gui.common.table_model import Column, TableModel

#: The row's bucket, for tests.
ROW_ROLE = Qt.ItemDataRole.UserRole + 1

_KIND_TIPS = (
    "Bytes of the captures in segments of pages (a capture runs from its record to the "
    "next capture: its request, a browser capture's DOM and screenshot with it)",
    "Bytes of the captures in segments of embeds (images, styles, scripts a page needs)",
    "Bytes of superseded captures that compaction kept in history/",
)


def _columns(key_title: str, key_tip: str) -> tuple[Column, ...]:
    return (
        Column(key_title, tip=key_tip),
        Column("Size", numeric=True, tip="Pages, embeds and history together"),
        Column("Captures", numeric=True),
        Column("Pages", numeric=True, tip=_KIND_TIPS[0]),
        Column("Embeds", numeric=True, tip=_KIND_TIPS[1]),
        Column("History", numeric=True, tip=_KIND_TIPS[2]),
    )


class BucketModel(TableModel[Bucket]):
    """Rows are the report's buckets: sites (hosts) or months."""

    def cell(self, bucket: Bucket, column: int, role: int) -> Any:
        if role == ROW_ROLE:
            return bucket
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                bucket.key,
                size(bucket.bytes),
                f"{bucket.captures:,}",
                size(bucket.pages),
                size(bucket.embeds),
                size(bucket.history),
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 1:
            return f"{bucket.bytes:,} bytes"
        return None


class SitesModel(BucketModel):
    COLUMNS = _columns("Site", "The host of each capture's URL")


class MonthsModel(BucketModel):
    COLUMNS = _columns(
        "Month", "The month of each capture's own date, in UTC (as the archive keeps it)"
    )
