"""The Crawl panel (DESIGN.md §9): seeds, politeness, start/pause/resume/stop, progress.

The crawl runs on the crawl job's thread through the same core facade as ``recrawl
crawl``. Its event batches arrive by signal; the panel feeds them to a
:class:`~recrawl.gui.crawl_progress.CrawlProgress` and a timer on the GUI thread redraws
the progress view a few times a second, so a fast crawl never floods the event loop.

Politeness is the project's: the fields show its stored crawl settings (the ones
``recrawl crawl`` starts from) and a change is kept at once. While no crawl runs, the
panel says what the last one did (a killed one reads as interrupted) and what is due.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.clock import utcnow
from recrawl.core.config import CrawlSettings
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
from recrawl.gui import crawl_jobs
from recrawl.gui.context import AppContext
from recrawl.gui.crawl_jobs import CrawlOutlook
from recrawl.gui.crawl_progress import CrawlProgress
from recrawl.gui.crawl_view import CrawlProgressView
from recrawl.gui.panel import Panel

REDRAW_MS = 250


class CrawlPanel(Panel):
    title = "Crawl"
    key = "crawl"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._build()
        self.tracker = CrawlProgress()
        self._log_buffer: list[str] = []
        self._dirty = False
        #: The project's crawl settings; the fields override the politeness ones.
        self._stored = CrawlSettings()
        self.settings_loaded = False
        #: What the crawl run in this window said when it ended (None: none ran yet).
        self._ended_text: str | None = None
        #: The last crawl and what is due, as last read (None: not yet).
        self.last_outlook: CrawlOutlook | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        crawl = context.crawl
        crawl.sig_events.connect(self._on_events)
        crawl.sig_state.connect(self._on_state)
        crawl.sig_finished.connect(self._on_finished)
        crawl.sig_failed.connect(self._on_failed)
        self._on_state("idle")
        self._load_settings()

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

        polite_box = QGroupBox("Politeness and limits")
        polite_box.setToolTip("Kept in the project: `recrawl crawl` starts from the same settings")
        form = QFormLayout(polite_box)
        self.delay = QDoubleSpinBox()
        self.delay.setRange(0.0, 120.0)
        self.delay.setDecimals(2)  # 0.05 s is a delay people type
        self.delay.setSingleStep(0.1)
        self.delay.setSuffix(" s")
        self.delay.setToolTip("Seconds between two requests to one host (jittered ±50 %)")
        self.per_host = QSpinBox()
        self.per_host.setRange(1, 64)
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 256)
        self.max_pages = QSpinBox()
        self.max_pages.setRange(0, 10_000_000)
        self.max_pages.setSpecialValueText("no limit")
        self.rounds = QSpinBox()
        self.rounds.setRange(0, 10_000)
        self.rounds.setSpecialValueText("until nothing is due")
        self.obey_robots = QCheckBox("Obey robots.txt")
        for box in (self.delay, self.per_host, self.concurrency, self.max_pages, self.rounds):
            box.setKeyboardTracking(False)  # a value when typing is done, not per key
        self._show_politeness(self._defaults())
        self.delay.valueChanged.connect(
            lambda v: self._politeness_changed("politeness.delay", round(v, 3))
        )
        self.per_host.valueChanged.connect(
            lambda v: self._politeness_changed("politeness.per_host", v)
        )
        self.concurrency.valueChanged.connect(
            lambda v: self._politeness_changed("politeness.concurrency", v)
        )
        self.obey_robots.toggled.connect(
            lambda on: self._politeness_changed("politeness.obey_robots", on)
        )
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

        self.view = CrawlProgressView()
        # the parts tests and the window read by name
        self.round_label = self.view.round_label
        self.progress = self.view.progress
        self.log = self.view.log
        self.plot = self.view.plot
        self.curve = self.view.curve

        left = QWidget()
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.addWidget(seeds_box, 1)
        left_column.addWidget(polite_box)
        left_column.addLayout(controls)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.view)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    # -- the project's crawl settings ------------------------------------------------

    @staticmethod
    def _defaults() -> CrawlSettings:
        return CrawlSettings()

    def _show_politeness(self, settings: CrawlSettings) -> None:
        """Show ``settings`` in the fields without taking them for the user's changes."""
        politeness = settings.politeness
        widgets = (self.delay, self.per_host, self.concurrency, self.obey_robots)
        for widget in widgets:
            widget.blockSignals(True)
        self.delay.setValue(politeness.delay)
        self.per_host.setValue(politeness.per_host)
        self.concurrency.setValue(politeness.concurrency)
        self.obey_robots.setChecked(politeness.obey_robots)
        for widget in widgets:
            widget.blockSignals(False)

    def _load_settings(self) -> None:
        self.context.jobs.submit(
            crawl_jobs.load_settings, self._settings_arrived, self._settings_failed
        )

    def _settings_arrived(self, settings: CrawlSettings) -> None:
        self._stored = settings
        if not self.context.crawl.busy:
            self._show_politeness(settings)
        self._settings_ready()

    def _settings_failed(self, message: str) -> None:
        self._stored = self._defaults()
        self.context.changes.sig_status.emit(
            f"The project's crawl settings could not be read ({message}): the defaults are used"
        )
        self._settings_ready()

    def _settings_ready(self) -> None:
        self.settings_loaded = True
        self.start_button.setEnabled(not self.context.crawl.busy)

    def _politeness_changed(self, name: str, value: object) -> None:
        """Keep a changed field in the project; its default is kept as "not set"."""
        group, _, field = name.partition(".")
        default = getattr(getattr(self._defaults(), group), field)
        change = {name: None if value == default else value}
        self.context.jobs.submit(
            lambda: crawl_jobs.save_settings(change),
            lambda _: None,
            lambda message: self.context.changes.sig_status.emit(f"{name} was not kept: {message}"),
        )

    def settings(self) -> CrawlSettings:
        """The settings a Start uses: the project's, with the fields and limits shown."""
        base = self._stored
        politeness = replace(
            base.politeness,
            delay=round(self.delay.value(), 3),
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
            # describe() says "no rule matched" where no line decided, never "line None"
            why = "; ".join(f"{url}: {v.describe()}" for url, v in result.rejected[:3])
            text += f", {len(result.rejected)} turned away by the filter chain ({why})"
        self.seed_status.setText(text + ". The Sites panel lists what the project watches.")
        if result.added:
            self.seeds.clear()
        self.context.changes.sig_pages.emit()
        self.context.changes.sig_policy.emit()  # the seeds' hosts joined the scope filter
        self._refresh_outlook()

    def _seed_failed(self, message: str) -> None:
        self.add_seeds.setEnabled(True)
        self.seed_status.setText(message)

    # -- crawl controls --------------------------------------------------------------

    def start(self) -> None:
        crawl = self.context.crawl
        if crawl.busy or self.context.compaction.busy or not self.settings_loaded:
            return
        self._log_buffer.clear()
        self.tracker.start(time.monotonic())
        self.view.clear()
        self.view.progress.show()
        self.round_label.setText("Starting…")
        crawl.start(self.settings())
        self._timer.start()

    def _on_state(self, state: str) -> None:
        idle = state == "idle"
        self.start_button.setEnabled(idle and self.settings_loaded)
        self.pause_button.setEnabled(state == "running")
        self.resume_button.setEnabled(state == "paused")
        self.stop_button.setEnabled(state in ("running", "paused"))
        if idle and self._timer.isActive():  # a crawl of this window ended
            self._timer.stop()
            self._redraw()
            self._refresh_outlook()

    # -- events (GUI thread, by signal) ----------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        now = time.monotonic()
        for event in events:
            if isinstance(event, StatsSnapshot):
                self.tracker.snapshot(now, event)
            elif isinstance(event, PageFetched):
                if event.error:
                    # robots.txt's answer is not a failure (the crawl counts no error)
                    denied = event.status == "robots_denied"
                    kind = "denied" if denied else "error"
                    self._log_buffer.append(f"{kind}  {event.url}: {event.error}")
            elif isinstance(event, LinkRejected):
                where = event.filter_name or event.filter
                rule = f"line {event.line}" if event.line is not None else "no rule matched"
                self._log_buffer.append(
                    f"rejected  {event.url} (filter {where}, {rule}; linked from {event.source})"
                )
            elif isinstance(event, LogMessage):
                self._log_buffer.append(f"{event.level}  {event.text}")
            elif isinstance(event, RoundStarted):
                self.tracker.round_started(event)
            elif isinstance(event, RoundFinished):
                self.tracker.round_finished(event)
                news = ""
                if event.new_pages or event.changed_pages:  # what the What's new panel lists
                    news = f", news: {event.new_pages} new pages, {event.changed_pages} changed"
                self._log_buffer.append(
                    f"round {event.round} done: {event.fetched} fetched, {event.errors} "
                    f"errors, {event.new_urls} new URLs{news} (segment {event.segment})"
                )
                self.context.changes.sig_pages.emit()
                self.context.changes.sig_segments.emit()
        self._dirty = True

    def _redraw(self) -> None:
        if not self.context.crawl.busy and not self._dirty:
            return
        self._dirty = False
        if self.tracker.round.number and self.context.crawl.busy:
            self.round_label.setText(f"Round {self.tracker.round.number}")
        self.view.draw(self.tracker, time.monotonic())  # the elapsed time moves on
        self.view.append_log(self._log_buffer)
        self._log_buffer.clear()

    def _on_finished(self, summary: CrawlSummary) -> None:
        word = "stopped" if summary.stopped else "finished"
        text = (
            f"Crawl {word}: {summary.fetched} pages in {summary.rounds} round(s), "
            f"{summary.new_urls} new URLs, {summary.errors} errors, "
            f"{summary.pages_per_s:.1f} pages/s"
        )
        self._log_buffer.append(text)
        self.tracker.finished(summary)
        self._dirty = True
        self._redraw()
        self._ended_text = text
        self.round_label.setText(text)
        self.context.changes.sig_status.emit(text)
        self.context.changes.sig_pages.emit()
        self.context.changes.sig_segments.emit()

    def _on_failed(self, message: str) -> None:
        self._log_buffer.append(f"error  the crawl stopped: {message}")
        self._dirty = True
        self._redraw()
        self._ended_text = f"The crawl stopped: {message}"
        self.round_label.setText(self._ended_text)
        self.context.changes.sig_status.emit(message)

    # -- while no crawl runs: the last one, and what is due ----------------------------

    def _refresh_outlook(self) -> None:
        if self.context.crawl.busy:
            return
        now = utcnow()
        self.context.jobs.submit(
            lambda: crawl_jobs.crawl_outlook(now),
            lambda outlook: self._outlook_arrived(outlook, now),
        )

    def _outlook_arrived(self, outlook: CrawlOutlook, now: datetime) -> None:
        if self.context.crawl.busy:
            return  # a crawl started meanwhile: its progress is shown instead
        self.last_outlook = outlook
        if self._ended_text is None:
            self.round_label.setText(crawl_jobs.last_run_text(outlook))
        self.view.show_outlook(crawl_jobs.due_text(outlook, now))

    def activate(self) -> None:
        if not self.context.crawl.busy:
            if self.settings_loaded:  # `recrawl settings` may have changed them meanwhile
                self._load_settings()
            self._refresh_outlook()

    def shutdown(self) -> None:
        self._timer.stop()
