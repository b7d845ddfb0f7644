"""The Segments panel (docs/design.md §9): liveness per segment, and compaction in one click.

The list comes from the store thread; a compaction runs on the compaction job's thread
(the same ``compact`` the command line calls) with its progress shown here, and the
list reloads when it is done.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from recrawl.core import store
from recrawl.core.archive.compaction import CompactionSummary
from recrawl.core.clock import utcnow
from recrawl.core.words import plural
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.common.formatting import size
from recrawl.gui.context import AppContext
from recrawl.gui.panel import Panel
from recrawl.gui.segments.segments_model import LIVENESS, ROW_ROLE, SegmentsModel

EMPTY_HINT = (
    "No segments yet. Each crawl round writes one segment: a WARC file of its captures "
    "and a CDXJ index. Start a crawl in the Crawl panel (Ctrl+2)."
)


class LivenessBar(QStyledItemDelegate):
    """A bar as long as the segment's liveness, with the percentage on it."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        seg = index.data(ROW_ROLE)
        if seg is None:
            super().paint(painter, option, index)
            return
        painter.save()
        rect = option.rect.adjusted(3, 4, -3, -4)
        painter.fillRect(rect, QColor("#e6ebef"))
        filled = QRect(rect)
        filled.setWidth(round(rect.width() * seg["liveness"]))
        low = seg["liveness"] < 0.5
        painter.fillRect(filled, QColor("#e0a458" if low else "#5b9a68"))
        painter.setPen(QColor("#222"))
        # the model's text: rounded down, never a full bar's "100 %" for a partial segment
        text = index.data(Qt.ItemDataRole.DisplayRole)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class SegmentsPanel(Panel):
    title = "Segments"
    key = "segments"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.model = SegmentsModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(LIVENESS, LivenessBar(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        # widths from sample texts, not ResizeToContents: that measures every row on each
        # reload, and a project has thousands of segments
        metrics = self.table.fontMetrics()
        samples = ("2026-11-30 07:13:23 w1", "181.9 d", "1,000,000", "1,000,000", "", "999.9 MB")
        for column, sample in enumerate(samples):
            if column != LIVENESS:
                width = max(
                    metrics.horizontalAdvance(sample),
                    metrics.horizontalAdvance(
                        self.model.headerData(column, Qt.Orientation.Horizontal)
                    ),
                )
                self.table.setColumnWidth(column, width + 24)
        header.setSectionResizeMode(LIVENESS, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)

        self.summary = QLabel()
        self.hint = QLabel(EMPTY_HINT)
        self.hint.setWordWrap(True)
        self.compact_selected = QPushButton("Compact selected")
        self.compact_selected.clicked.connect(self.compact_selection)
        self.threshold = QSpinBox()
        self.threshold.setRange(1, 100)
        self.threshold.setValue(50)
        self.threshold.setSuffix(" %")
        self.compact_below = QPushButton("Compact all below")
        self.compact_below.clicked.connect(self.compact_all_below)
        self.drop = QCheckBox("Drop superseded captures")
        self.drop.setToolTip(
            "Off (the default): captures that are no longer the latest move to history/, "
            "still readable. On: they are deleted."
        )
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)

        buttons = FlowLayout()  # wraps in a narrow window
        buttons.addWidget(self.compact_selected)
        buttons.addSpacing(16)
        buttons.addWidget(self.compact_below)
        buttons.addWidget(self.threshold)
        buttons.addWidget(self.drop)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)

        compaction = context.compaction
        compaction.sig_progress.connect(self._progress)
        compaction.sig_finished.connect(self._compacted)
        compaction.sig_failed.connect(self._failed)
        compaction.sig_idle.connect(self._update_buttons)
        context.crawl.sig_state.connect(self._update_buttons)
        context.changes.sig_segments.connect(self.reload)
        self._loaded = False
        self._update_buttons()

    # -- the list --------------------------------------------------------------------

    def activate(self) -> None:
        self.reload()

    def reload(self) -> None:
        if not self.isVisible() and self._loaded:
            self._loaded = False  # reload when shown next
            return
        self.context.jobs.submit(store.segment_summaries, self._show)

    def _show(self, rows: list[dict[str, Any]]) -> None:
        selected = {self.model.row(i.row())["name"] for i in self._selected_rows()}
        self.model.set_rows(rows, utcnow())
        self._loaded = True
        self.hint.setVisible(not rows)
        self.table.setVisible(bool(rows))
        if rows:
            records = sum(r["records"] for r in rows)
            live = sum(r["live_records"] for r in rows)
            low = sum(1 for r in rows if r["liveness"] < self.threshold.value() / 100)
            self.summary.setText(
                f"{plural(len(rows), 'segment')}, {size(sum(r['bytes'] for r in rows))}; "
                f"{live:,} of {plural(records, 'record')} live; {low:,} below "
                f"{self.threshold.value()} %"
            )
        else:
            self.summary.setText("")
        for number, row in enumerate(rows):
            if row["name"] in selected:
                self.table.selectRow(number)
        self._update_buttons()

    def _selected_rows(self) -> list[QModelIndex]:
        return self.table.selectionModel().selectedRows()

    def _update_buttons(self, *_: object) -> None:
        free = not self.context.compaction.busy and not self.context.crawl.busy
        self.compact_selected.setEnabled(free and bool(self._selected_rows()))
        self.compact_below.setEnabled(free and self.model.rowCount() > 0)
        if self.context.crawl.busy and not self.context.compaction.busy:
            self.status.setText("Compaction waits until the crawl is over.")
        elif self.status.text() == "Compaction waits until the crawl is over.":
            self.status.setText("")

    # -- compaction ------------------------------------------------------------------

    def compact_selection(self) -> None:
        names = [self.model.row(i.row())["name"] for i in self._selected_rows()]
        if names:
            self._start(names=names)

    def compact_all_below(self) -> None:
        self._start(below=self.threshold.value() / 100)

    def _start(self, *, names: list[str] | None = None, below: float | None = None) -> None:
        if self.context.compaction.busy or self.context.crawl.busy:
            return
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.status.setText("Compacting…")
        self.context.compaction.start(
            below=below, names=names, drop_superseded=self.drop.isChecked()
        )
        self._update_buttons()

    def _progress(self, phase: str, done: int, total: int) -> None:
        if phase == "copy" and total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(round(1000 * done / total))
            self.status.setText(f"Copying live records: {size(done)} of {size(total)}")
        elif phase in ("commit", "rename"):
            self.status.setText("Pointing the pages at the new segment…")
        elif phase == "delete":
            self.status.setText(f"Removing the old segments ({done} of {total})…")

    def _compacted(self, summary: CompactionSummary) -> None:
        self.progress.setVisible(False)
        if not summary.compacted:
            text = "Nothing to compact: no segment is below the threshold."
        else:
            kept = f"{plural(summary.records_kept, 'record')} kept in {summary.new_segment or '-'}"
            moved = (
                f"{summary.records_moved_to_history:,} moved to history"
                if summary.records_moved_to_history
                else ""
            )
            dropped = f"{summary.records_dropped:,} dropped" if summary.records_dropped else ""
            parts = ", ".join(p for p in (kept, moved, dropped) if p)
            text = (
                f"Compacted {plural(len(summary.compacted), 'segment')}: {parts}; "
                f"{size(summary.bytes_before)} became {size(summary.bytes_after)}."
            )
        self.status.setText(text)
        self.context.changes.sig_status.emit(text)
        self.context.changes.sig_pages.emit()
        self.context.changes.sig_segments.emit()

    def _failed(self, message: str) -> None:
        self.progress.setVisible(False)
        self.status.setText(f"Compaction failed: {message}")
        self.context.changes.sig_status.emit(message)
