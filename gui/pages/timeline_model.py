"""A page's screenshots as a list model: one item a capture that kept one, oldest first.

It holds the :class:`~recrawl.core.archive.screenshots.Timeline` a job found and the
thumbnails decoded so far; none is decoded here. The controller asks
:meth:`TimelineModel.to_load` which of the rows that came into view still need theirs,
has them decoded off the GUI thread, and hands each back (:meth:`set_thumbnail`).
Thumbnails are kept by capture, so the page's timeline found again after a crawl round
keeps those already decoded, and one that arrives for a page no longer shown is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QImage, QPixmap
from recrawl.core.archive.screenshots import CaptureShot, Timeline
from recrawl.core.clock import to_iso
from recrawl.gui.common import formatting
from recrawl.gui.pages.screenshot_jobs import THUMBNAIL

Index = QModelIndex | QPersistentModelIndex
#: A thumbnail not decoded yet (or that failed): a grey box of the thumbnail's size.
PENDING = QColor("#d0d7de")
FAILED = QColor("#ffaba8")


def timeline_summary(timeline: Timeline | None) -> str:
    """What the line above the thumbnails says ("" when there are none to show)."""
    if timeline is None or not timeline.shots:
        return ""
    shots, looked = len(timeline.shots), len(timeline.captures)
    noun = "capture" if looked == 1 else "captures"
    scope = f"its {looked:,} {noun}"
    if timeline.total > looked:
        scope = f"its latest {looked:,} {noun} (of {timeline.total:,})"
    if shots == looked:
        text = f"Screenshots of {scope}"
    else:
        text = f"Screenshots of {shots:,} of {scope} (the others were fetched over HTTP)"
    text += ", oldest first; click one to see it larger"
    if timeline.problems:
        many = len(timeline.problems)
        text += f". {many:,} {'capture' if many == 1 else 'captures'} could not be read: "
        text += timeline.problems[0]
    return text


class TimelineModel(QAbstractListModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timeline: Timeline | None = None
        self._shots: tuple[CaptureShot, ...] = ()
        self._rows: dict[CaptureShot, int] = {}
        self._thumbnails: dict[CaptureShot, QPixmap] = {}
        self._failed: dict[CaptureShot, str] = {}
        self._asked: set[CaptureShot] = set()
        self._placeholders: dict[str, QPixmap] = {}

    def set_timeline(self, timeline: Timeline | None) -> None:
        self.beginResetModel()
        self.timeline = timeline
        self._shots = timeline.shots if timeline is not None else ()
        self._rows = {shot: row for row, shot in enumerate(self._shots)}
        for kept in (self._thumbnails, self._failed):
            for shot in [s for s in kept if s not in self._rows]:
                del kept[shot]
        # a request of the timeline shown before is skipped by the loader: asked again
        self._asked = set(self._thumbnails) | set(self._failed)
        self.endResetModel()

    def shot(self, row: int) -> CaptureShot:
        return self._shots[row]

    def to_load(self, rows: Iterable[int]) -> list[CaptureShot]:
        """The captures of ``rows`` whose thumbnail nobody asked for yet (now asked for)."""
        wanted = [self._shots[r] for r in sorted(set(rows)) if 0 <= r < len(self._shots)]
        wanted = [shot for shot in wanted if shot not in self._asked]
        self._asked.update(wanted)
        return wanted

    def set_thumbnail(self, shot: CaptureShot, image: QImage) -> None:
        if shot in self._rows:  # else: of a page no longer shown
            self._thumbnails[shot] = QPixmap.fromImage(image)
            self._changed(self._rows[shot])

    def set_failed(self, shot: CaptureShot, message: str) -> None:
        if shot in self._rows:
            self._failed[shot] = message
            self._changed(self._rows[shot])

    def loaded(self) -> int:
        """How many thumbnails are decoded and shown."""
        return len(self._thumbnails)

    def _changed(self, row: int) -> None:
        index = self.index(row)
        self.dataChanged.emit(index, index)

    def rowCount(self, parent: Index | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._shots)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._shots):
            return None
        row = index.row()
        shot = self._shots[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return formatting.local_time(shot.date)
        if role == Qt.ItemDataRole.DecorationRole:
            if shot in self._thumbnails:
                return self._thumbnails[shot]
            return self._placeholder(FAILED if shot in self._failed else PENDING)
        if role == Qt.ItemDataRole.ToolTipRole:
            when = formatting.local_time(shot.date, seconds=True)
            tip = f"Captured {when} (local time; {to_iso(shot.date)} UTC)"
            if shot in self._failed:
                return f"{tip}\nThe screenshot could not be read: {self._failed[shot]}"
            return f"{tip}\nClick to see it larger"
        return None

    def _placeholder(self, colour: QColor) -> QPixmap:
        # made when first shown: a pixmap needs the GUI running, not just imported
        key = colour.name()
        if key not in self._placeholders:
            pixmap = QPixmap(THUMBNAIL)
            pixmap.fill(colour)
            self._placeholders[key] = pixmap
        return self._placeholders[key]
