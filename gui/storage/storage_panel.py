"""The Storage panel (docs/design.md §18): where the project's bytes are, how fast they
grow, what compaction would free, and whether the disk has room.

The report is the one ``recrawl storage`` prints (``storage_report``), made on the
compute lane: a project's first look measures every WARC's index (seconds on a large
one), later looks read the figures cached in the store. It is made again when the
segments or the settings change (a round, a compaction, storage.warn_free) while the
panel is shown, or when it is shown next.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.services.storage import KINDS, WARN_SETTING, StorageReport, storage_report
from recrawl.core.words import percent, plural
from recrawl.gui.common.formatting import local_time, size
from recrawl.gui.common.plots import from_zero, plot_widget
from recrawl.gui.common.tables import compact_rows
from recrawl.gui.context import AppContext
from recrawl.gui.panel import Panel
from recrawl.gui.storage.storage_model import MonthsModel, SitesModel

KIND_TIPS = {
    "pages": "Captures of pages in the segments (each with its request and renderings)",
    "embeds": "Captures of embeds in the segments: images, styles, scripts, fonts",
    "history": "Superseded captures compaction kept in history/, still read by show --at",
    "open": "WARCs being written: a round's, or a compaction's new files",
    "indexes": "The CDXJ indexes of segments and history",
    "store": "The store: recrawl.sqlite with its write-ahead log",
    "other": "Everything else in the project folder",
}
BAR = "#2d6a8f"


class StoragePanel(Panel):
    title = "Storage"
    key = "storage"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        #: The report shown (None until the first one comes).
        self.report: StorageReport | None = None
        self._asked = False
        #: Asked again while a report was being made: one more when it comes.
        self._again = False
        self.warning = QLabel()
        self.warning.setObjectName("storage-warning")
        self.warning.setStyleSheet("color: #b00020; font-weight: bold;")
        self.warning.setWordWrap(True)
        self.warning.setVisible(False)
        self.summary = QLabel("Measuring…")
        self.summary.setWordWrap(True)
        self.kinds = QGridLayout()
        self.kind_values: dict[str, QLabel] = {}
        for column, kind in enumerate(KINDS):
            name, value = QLabel(kind.capitalize()), QLabel("")
            name.setToolTip(KIND_TIPS[kind])
            value.setToolTip(KIND_TIPS[kind])
            self.kinds.addWidget(name, 0, column)
            self.kinds.addWidget(value, 1, column)
            self.kind_values[kind] = value
        self.free = QLabel()
        self.segments = QLabel()
        self.compaction = QLabel()
        self.compaction.setWordWrap(True)
        self.growth = QLabel()
        self.growth.setWordWrap(True)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)

        self.sites = SitesModel()
        self.months = MonthsModel()
        self.sites_table = self._table(self.sites)
        self.months_table = self._table(self.months)
        self.chart = plot_widget("Month (UTC)", None, "Archived", "MB")
        self.chart.getPlotItem().getAxis("bottom").setStyle(tickTextOffset=4)
        tabs = QTabWidget()
        tabs.addTab(self.sites_table, "By site")
        tabs.addTab(self.months_table, "By month")
        tabs.addTab(self.chart, "Growth")
        self.tabs = tabs

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.warning)
        layout.addLayout(top)
        layout.addLayout(self.kinds)
        for label in (self.free, self.segments, self.compaction, self.growth):
            layout.addWidget(label)
        layout.addWidget(tabs, 1)
        context.changes.sig_segments.connect(self.changed)
        context.changes.sig_settings.connect(self.changed)  # storage.warn_free

    @staticmethod
    def _table(model: SitesModel | MonthsModel) -> QTableView:
        table = QTableView()
        table.setModel(model)
        table.verticalHeader().setVisible(False)
        table.setSortingEnabled(False)
        compact_rows(table)
        # the site or month takes the spare width: the figures stay beside one another
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        return table

    # -- loading --------------------------------------------------------------------------

    def query(self) -> None:
        if self._asked:
            self._again = True
            return
        self._asked = True
        folder = self.context.project.path
        self.context.jobs.compute(lambda: storage_report(folder), self._show, self._failed)

    def show_stale(self, stale: bool) -> None:
        self.refresh_button.setText("Refresh (changed)" if stale else "Refresh")

    def _failed(self, message: str) -> None:
        self._asked = self._again = False
        self.summary.setText(f"Could not measure the project: {message}")

    def _show(self, report: StorageReport) -> None:
        self._asked = False
        if self._again:  # the store changed while this one was made
            self._again = False
            self.query()
        self.report = report
        free = report.free
        # the report's sentence is the command's, in GiB: said again in the panel's units,
        # or the free space reads as two different figures a line apart
        self.warning.setText(
            f"Low disk space: only {size(free.free_bytes)} free on {free.path}, below "
            f"{WARN_SETTING} ({size(free.warn_below)}): compact the segments with "
            "superseded captures dropped, or move the project"
            if free.warning
            else ""
        )
        self.warning.setVisible(free.warning is not None)
        self.summary.setText(
            f"{size(report.total_bytes)} in {report.folder} "
            f"(measured {local_time(report.measured_at)})"
        )
        for kind, label in self.kind_values.items():
            label.setText(size(report.by_kind[kind]))
        self.free.setText(
            f"Free: {size(free.free_bytes)} of {size(free.total_bytes)} on {free.path}"
            + (f"; a warning below {size(free.warn_below)}" if free.warn_below else "")
        )
        records = sum(s.records for s in report.segments)
        live = sum(s.live_records for s in report.segments)
        self.segments.setText(
            f"Segments: {len(report.segments):,}, {plural(records, 'record')}, "
            f"{percent(live, records)} live"
        )
        self.compaction.setText(_compaction_text(report))
        self.growth.setText(_growth_text(report))
        self.sites.set_rows(report.by_site)
        self.months.set_rows(report.by_month)
        self._draw(report)

    def _draw(self, report: StorageReport) -> None:
        self.chart.clear()
        months = report.by_month
        if not months:
            return
        heights = [b.bytes / 1e6 for b in months]
        self.chart.addItem(
            pg.BarGraphItem(x=list(range(len(months))), height=heights, width=0.7, brush=BAR)
        )
        step = max(1, len(months) // 12)  # a label a month, up to a dozen
        ticks = [(i, b.key) for i, b in enumerate(months) if i % step == 0]
        self.chart.getPlotItem().getAxis("bottom").setTicks([ticks])
        from_zero(self.chart, max(heights) * 1.1 or 1.0)


def _compaction_text(report: StorageReport) -> str:
    fold = report.compaction
    if fold.segments:
        text = (
            f"Compaction: {plural(len(fold.segments), 'segment')} ({size(fold.segments_bytes)}) "
            f"{'holds' if len(fold.segments) == 1 else 'hold'} "
            f"{plural(fold.superseded_records, 'superseded capture')} "
            f"({size(fold.superseded_bytes)}); compacting moves them to history/, dropping "
            "superseded captures frees them."
        )
    else:
        text = "Compaction: every segment is all live."
    if fold.history_files:
        text += (
            f" History holds {size(fold.history_bytes + fold.history_index_bytes)}; keeping "
            f"no superseded capture would free {size(fold.drop_superseded_bytes)}."
        )
    return text


def _growth_text(report: StorageReport) -> str:
    growth = report.growth
    if growth.bytes_per_month is None or growth.next_year_bytes is None:
        return "Growth: not known yet (less than a day of captures)."
    how = (
        f"the mean of {', '.join(growth.months)}"
        if growth.method == "full-months"
        else "since the first capture"
    )
    text = (
        f"Growth: {size(growth.bytes_per_month)} a month ({how}); in a year "
        f"{size(growth.next_year_bytes)} more."
    )
    if growth.months_until_full is not None and growth.months_until_full < 24:
        text += f" At that rate the disk is full in {growth.months_until_full:.1f} months."
    return text
