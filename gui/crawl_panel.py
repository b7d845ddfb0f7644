"""The Crawl panel (DESIGN.md §9): seeds, politeness, start/pause/resume/stop, progress.

The crawl runs on the crawl job's thread through the same core facade as ``recrawl
crawl``. Its event batches arrive by signal; the panel only appends them to buffers,
and a timer on the GUI thread redraws the progress bar, the pages/s plot and the log a
few times a second, so a fast crawl never floods the event loop.
"""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.config import CrawlSettings, PolitenessSettings
from recrawl.core.engine import (
    CrawlSummary,
    Event,
    InjectResult,
    LinkRejected,
    LogMessage,
    PageFetched,
    RoundFinished,
    RoundStarted,
    StatsSnapshot,
    inject,
)
from recrawl.gui.context import AppContext
from recrawl.gui.panel import Panel
from recrawl.gui.plots import UNCHANGED, plot_widget

REDRAW_MS = 250
LOG_LINES = 2000
PLOT_POINTS = 600


class CrawlPanel(Panel):
    title = "Crawl"
    key = "crawl"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._build()
        self._log_buffer: list[str] = []
        self._rates: list[tuple[float, float]] = []
        self._started = 0.0
        self._round = 0
        self._queued = 0
        self._done_in_round = 0
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        crawl = context.crawl
        crawl.sig_events.connect(self._on_events)
        crawl.sig_state.connect(self._on_state)
        crawl.sig_finished.connect(self._on_finished)
        crawl.sig_failed.connect(self._on_failed)
        self._on_state("idle")

    # -- layout ----------------------------------------------------------------------

    def _build(self) -> None:
        seeds_box = QGroupBox("Seeds")
        self.seeds = QPlainTextEdit()
        self.seeds.setPlaceholderText(
            "Paste the URLs to watch, one per line, then Add seeds.\n"
            "https://example.org/\nhttps://example.org/news/"
        )
        self.add_seeds = QPushButton("Add seeds")
        self.add_seeds.clicked.connect(self.inject_seeds)
        self.seed_status = QLabel()
        self.seed_status.setWordWrap(True)
        column = QVBoxLayout(seeds_box)
        column.addWidget(self.seeds)
        row = QHBoxLayout()
        row.addWidget(self.add_seeds)
        row.addWidget(self.seed_status, 1)
        column.addLayout(row)

        defaults = PolitenessSettings()
        polite_box = QGroupBox("Politeness and limits")
        form = QFormLayout(polite_box)
        self.delay = QDoubleSpinBox()
        self.delay.setRange(0.0, 120.0)
        self.delay.setDecimals(1)
        self.delay.setSuffix(" s")
        self.delay.setValue(defaults.delay)
        self.delay.setToolTip("Seconds between two requests to one host (jittered ±50 %)")
        self.per_host = QSpinBox()
        self.per_host.setRange(1, 64)
        self.per_host.setValue(defaults.per_host)
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 256)
        self.concurrency.setValue(defaults.concurrency)
        self.max_pages = QSpinBox()
        self.max_pages.setRange(0, 10_000_000)
        self.max_pages.setSpecialValueText("no limit")
        self.rounds = QSpinBox()
        self.rounds.setRange(0, 10_000)
        self.rounds.setSpecialValueText("until nothing is due")
        self.obey_robots = QCheckBox("Obey robots.txt")
        self.obey_robots.setChecked(True)
        form.addRow("Delay per host", self.delay)
        form.addRow("Connections per host", self.per_host)
        form.addRow("Connections in all", self.concurrency)
        form.addRow("Stop after pages", self.max_pages)
        form.addRow("Stop after rounds", self.rounds)
        form.addRow("", self.obey_robots)

        self.start_button = QPushButton("Start")
        self.pause_button = QPushButton("Pause")
        self.resume_button = QPushButton("Resume")
        self.stop_button = QPushButton("Stop")
        self.start_button.clicked.connect(self.start)
        self.pause_button.clicked.connect(self.context.crawl.pause)
        self.resume_button.clicked.connect(self.context.crawl.resume)
        self.stop_button.clicked.connect(self.context.crawl.stop)
        controls = QHBoxLayout()
        for button in (
            self.start_button,
            self.pause_button,
            self.resume_button,
            self.stop_button,
        ):
            controls.addWidget(button)
        controls.addStretch(1)

        self.round_label = QLabel("No crawl yet.")
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m done")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)  # until a round says how much there is
        self.plot = plot_widget("time since start", "s", "pages per second", None)
        self.curve = self.plot.plot(pen=UNCHANGED)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(LOG_LINES)
        self.log.setPlaceholderText("Errors and rejected links appear here.")

        left = QWidget()
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.addWidget(seeds_box, 1)
        left_column.addWidget(polite_box)
        left_column.addLayout(controls)
        right = QWidget()
        right_column = QVBoxLayout(right)
        right_column.setContentsMargins(0, 0, 0, 0)
        right_column.addWidget(self.round_label)
        right_column.addWidget(self.progress)
        right_column.addWidget(self.plot, 1)
        right_column.addWidget(QLabel("Log"))
        right_column.addWidget(self.log, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    # -- seeds -----------------------------------------------------------------------

    def inject_seeds(self) -> None:
        urls = [line.strip() for line in self.seeds.toPlainText().splitlines() if line.strip()]
        if not urls:
            self.seed_status.setText("Type or paste at least one URL.")
            return
        self.add_seeds.setEnabled(False)
        self.seed_status.setText("Adding…")
        self.context.jobs.submit(lambda: inject(urls, utcnow()), self._seeded, self._seed_failed)

    def _seeded(self, result: InjectResult) -> None:
        self.add_seeds.setEnabled(True)
        text = f"{result.added} new seed(s) added"
        if result.rejected:
            why = "; ".join(
                f"{url}: filter {v.filter_name or v.filter}, line {v.line}"
                for url, v in result.rejected[:3]
            )
            text += f", {len(result.rejected)} turned away by the filter chain ({why})"
        self.seed_status.setText(text + ".")
        if result.added:
            self.seeds.clear()
        self.context.changes.sig_pages.emit()
        self.context.changes.sig_policy.emit()  # the seeds' hosts joined the scope filter

    def _seed_failed(self, message: str) -> None:
        self.add_seeds.setEnabled(True)
        self.seed_status.setText(message)

    # -- crawl controls --------------------------------------------------------------

    def settings(self) -> CrawlSettings:
        base = CrawlSettings()
        politeness = replace(
            base.politeness,
            delay=self.delay.value(),
            per_host=self.per_host.value(),
            concurrency=self.concurrency.value(),
            obey_robots=self.obey_robots.isChecked(),
        )
        return replace(
            base,
            politeness=politeness,
            max_pages=self.max_pages.value() or None,
            rounds=self.rounds.value() or None,
        )

    def start(self) -> None:
        crawl = self.context.crawl
        if crawl.busy or self.context.compaction.busy:
            return
        self._rates.clear()
        self._log_buffer.clear()
        self.curve.setData([], [])
        self._round = self._queued = self._done_in_round = 0
        self.round_label.setText("Starting…")
        self._started = time.monotonic()
        crawl.start(self.settings())
        self._timer.start()

    def _on_state(self, state: str) -> None:
        idle = state == "idle"
        self.start_button.setEnabled(idle)
        self.pause_button.setEnabled(state == "running")
        self.resume_button.setEnabled(state == "paused")
        self.stop_button.setEnabled(state in ("running", "paused"))
        if idle:
            self._timer.stop()
            self._redraw()

    # -- events (GUI thread, by signal) ----------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, StatsSnapshot):
                self._queued = max(event.queued, 1)
                self._done_in_round = event.round_done
                self._rates.append((time.monotonic() - self._started, event.pages_per_s))
            elif isinstance(event, PageFetched):
                if event.error:
                    self._log_buffer.append(f"error  {event.url}: {event.error}")
            elif isinstance(event, LinkRejected):
                where = event.filter_name or event.filter
                rule = f"line {event.line}" if event.line is not None else "no rule matched"
                self._log_buffer.append(
                    f"rejected  {event.url} (filter {where}, {rule}; linked from {event.source})"
                )
            elif isinstance(event, LogMessage):
                self._log_buffer.append(f"{event.level}  {event.text}")
            elif isinstance(event, RoundStarted):
                self._round = event.round
                self._queued = max(event.queued, 1)
                self._done_in_round = 0
            elif isinstance(event, RoundFinished):
                self._done_in_round = self._queued
                self._log_buffer.append(
                    f"round {event.round} done: {event.fetched} fetched, {event.errors} "
                    f"errors, {event.new_urls} new URLs (segment {event.segment})"
                )
                self.context.changes.sig_pages.emit()
                self.context.changes.sig_segments.emit()
        self._dirty = True

    def _redraw(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        if self._round:
            self.round_label.setText(f"Round {self._round}")
            self.progress.setTextVisible(True)
            self.progress.setRange(0, self._queued)
            self.progress.setValue(min(self._done_in_round, self._queued))
        if self._rates:
            points = self._rates[-PLOT_POINTS:]
            self.curve.setData([t for t, _ in points], [r for _, r in points])
        if self._log_buffer:
            self.log.appendPlainText("\n".join(self._log_buffer))
            self._log_buffer.clear()

    def _on_finished(self, summary: CrawlSummary) -> None:
        word = "stopped" if summary.stopped else "finished"
        text = (
            f"Crawl {word}: {summary.fetched} pages in {summary.rounds} round(s), "
            f"{summary.new_urls} new URLs, {summary.errors} errors, "
            f"{summary.pages_per_s:.1f} pages/s"
        )
        self._log_buffer.append(text)
        self._dirty = True
        self._redraw()
        self.round_label.setText(text)
        self.context.changes.sig_status.emit(text)
        self.context.changes.sig_pages.emit()
        self.context.changes.sig_segments.emit()

    def _on_failed(self, message: str) -> None:
        self._log_buffer.append(f"error  the crawl stopped: {message}")
        self._dirty = True
        self._redraw()
        self.round_label.setText(f"The crawl stopped: {message}")
        self.context.changes.sig_status.emit(message)

    def activate(self) -> None:
        if not self.seeds.toPlainText() and not self.context.crawl.busy:
            self.context.jobs.submit(store.page_count, self._show_first_run)

    def _show_first_run(self, pages: int) -> None:
        if pages == 0 and self.round_label.text() == "No crawl yet.":
            self.round_label.setText(
                "This project is empty: add seed URLs on the left, then Start."
            )

    def shutdown(self) -> None:
        self._timer.stop()
