"""The Crawl panel (docs/design.md §9): seeds, politeness, start/pause/resume/stop, progress.

The crawl runs on the crawl job's thread through the same core facade as ``recrawl
crawl``. Its event batches arrive by signal; the panel feeds them to a
:class:`~recrawl.gui.crawl.crawl_progress.CrawlProgress` and a timer on the GUI thread redraws
the progress view a few times a second, so a fast crawl never floods the event loop.

Politeness is the project's: the fields show its stored crawl settings (the ones
``recrawl crawl`` starts from) and a change is kept at once. While no crawl runs, the
panel says what the last one did (a killed one reads as interrupted) and what is due.

Watch (docs/design.md §10) runs the core's watcher on the same job, rounds as pages come due;
asleep, the panel says when the next is. While ``recrawl watch`` holds the project, a
banner says so and can stop it. Seeds and politeness changed here wake a watcher.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.clock import utcnow
from recrawl.core.config import CrawlSettings
from recrawl.core.engine import (
    CrawlFinished,
    CrawlSummary,
    Event,
    InjectResult,
    RoundFinished,
    RoundStarted,
    StatsSnapshot,
    WatchRound,
    WatchSleeping,
)
from recrawl.core.watch.watcher import WatchSummary
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.common.setting_widgets import fit_to_setting
from recrawl.gui.context import AppContext
from recrawl.gui.crawl import crawl_jobs
from recrawl.gui.crawl.crawl_jobs import CrawlOutlook, crawl_summary_text
from recrawl.gui.crawl.crawl_progress import CrawlProgress, LogTail
from recrawl.gui.crawl.crawl_view import LOG_LINES, CrawlProgressView
from recrawl.gui.crawl.notify_box import NotifyBox
from recrawl.gui.crawl.seeds_box import SeedsBox
from recrawl.gui.panel import Panel
from recrawl.gui.watch.watch_text import (
    WatcherHolder,
    sleeping_text,
    watch_round_text,
    watch_summary_text,
)
from recrawl.gui.watch.watched_banner import WatchedBanner

REDRAW_MS = 250
#: While the watch sleeps, "in 3.2 h" is refreshed this often (no redraws meanwhile).
SLEEP_TEXT_MS = 30_000


class CrawlPanel(Panel):
    title = "Crawl"
    key = "crawl"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._build()
        self.tracker = CrawlProgress()
        self._log_buffer = LogTail(LOG_LINES)
        self._dirty = False
        #: The project's crawl settings; the fields override the politeness ones.
        self._stored = CrawlSettings()
        self.settings_loaded = False
        #: Watch as soon as the settings are read (``recrawl gui --watch``).
        self._watch_when_ready = False
        #: What the crawl run in this window said when it ended (None: none ran yet).
        self._ended_text: str | None = None
        #: The last crawl and what is due, as last read (None: not yet).
        self.last_outlook: CrawlOutlook | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        #: While the watch sleeps: until when (naive UTC; None: nothing will be due).
        self.sleeping = False
        self._sleeping_until: datetime | None = None
        self._sleep_timer = QTimer(self)
        self._sleep_timer.setInterval(SLEEP_TEXT_MS)
        self._sleep_timer.timeout.connect(self._show_sleeping)
        #: Another process watching the project (None: none).
        self.holder: WatcherHolder | None = None
        context.watch.sig_holder.connect(self._holder_changed)
        context.watch.sig_store_changed.connect(self._refresh_outlook)
        context.changes.sig_settings.connect(self._load_settings)
        self.banner.stop_button.clicked.connect(self.stop_external_watcher)
        crawl = context.crawl
        crawl.sig_events.connect(self._on_events)
        crawl.sig_state.connect(self._on_state)
        crawl.sig_finished.connect(self._on_finished)
        crawl.sig_failed.connect(self._on_failed)
        self._state = "idle"
        #: Start added the seeds typed and waits for them to be in.
        self._adding_seeds = False
        #: A crawl or watch of this window runs (from Start or Watch until idle again).
        self._ran = False
        self._on_state("idle")
        self._load_settings()
        self._holder_changed(context.watch.holder)

    # -- layout ----------------------------------------------------------------------

    def _build(self) -> None:
        self.seeds_box = seeds_box = SeedsBox(self.context)
        seeds_box.sig_added.connect(self._refresh_outlook)
        # the parts tests read by name
        self.seeds, self.add_seeds = seeds_box.seeds, seeds_box.add_seeds
        self.seed_status, self.inject_seeds = seeds_box.seed_status, seeds_box.inject_seeds
        polite_box = self._build_politeness()
        controls = self._build_controls()
        self.banner = WatchedBanner()

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
        left_column.addWidget(self.notify_box)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.view)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([300, 700])  # the plot and the log keep room in a narrow window
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(splitter)

    def _build_politeness(self) -> QGroupBox:
        """The project's politeness and the crawl's limits, kept as they are edited."""
        polite_box = QGroupBox("Politeness and limits")
        polite_box.setToolTip("Kept in the project: `recrawl crawl` starts from the same settings")
        form = QFormLayout(polite_box)
        # ranges and tooltips from the settings schema, within what these fields reach
        self.delay = QDoubleSpinBox()
        fit_to_setting(self.delay, "politeness.delay", reach=120.0, unit=True)
        self.delay.setDecimals(2)  # 0.05 s is a delay people type
        self.delay.setSingleStep(0.1)
        self.per_host = QSpinBox()
        fit_to_setting(self.per_host, "politeness.per_host", reach=64)
        self.concurrency = QSpinBox()
        fit_to_setting(self.concurrency, "politeness.concurrency", reach=256)
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
        return polite_box

    def _build_controls(self) -> FlowLayout:
        """Start, Watch, Pause, Resume, Stop, and whether to be notified."""
        self.start_button = QPushButton("Start")
        self.watch_button = QPushButton("Watch")
        self.watch_button.setCheckable(True)
        self.watch_button.setObjectName("watch-button")
        self.watch_button.setToolTip(
            "Keep crawling as pages come due: a round when pages are due, asleep in between"
        )
        self.watch_button.clicked.connect(self.watch_toggled)
        self.notify_box = NotifyBox(self.context.jobs)
        self.pause_button = QPushButton("Pause")
        self.resume_button = QPushButton("Resume")
        self.stop_button = QPushButton("Stop")
        self.start_button.clicked.connect(self.start)
        self.pause_button.clicked.connect(self.context.crawl.pause)
        self.resume_button.clicked.connect(self.context.crawl.resume)
        self.stop_button.clicked.connect(self.context.crawl.stop)
        controls = FlowLayout()  # wraps in a narrow window
        for button in (
            self.start_button,
            self.watch_button,
            self.pause_button,
            self.resume_button,
            self.stop_button,
        ):
            controls.addWidget(button)
        controls.addStretch(1)
        return controls

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
        self._enable_controls()
        if self._watch_when_ready:
            self._watch_when_ready = False
            self.start(watch=True)

    def _politeness_changed(self, name: str, value: object) -> None:
        """Keep a changed field in the project; its default is kept as "not set"."""
        group, _, field = name.partition(".")
        default = getattr(getattr(self._defaults(), group), field)
        change = {name: None if value == default else value}
        # what a Start crawls with from now on (settings()): the edit, not the value before
        part = replace(getattr(self._stored, group), **{field: value})
        self._stored = replace(self._stored, **{group: part})
        settings = self.context.services.settings  # a watcher takes them at once
        self.context.jobs.submit(
            lambda: settings.save(change),
            lambda _: None,
            lambda message: self.context.changes.sig_status.emit(f"{name} was not kept: {message}"),
        )

    def _watch_settings(self) -> Callable[[], CrawlSettings]:
        """What a watch reads before each crawl: the project's settings as they are then
        (the fields keep theirs in it at once), with the limits shown now."""
        max_pages, rounds = self.max_pages.value() or None, self.rounds.value() or None
        return lambda: replace(crawl_jobs.load_settings(), max_pages=max_pages, rounds=rounds)

    def settings(self) -> CrawlSettings:
        """The settings a Start uses: the project's, with the fields and limits shown."""
        base = self._stored
        kept = base.politeness
        politeness = replace(
            kept,
            delay=_unless_shown(round(self.delay.value(), 3), kept.delay, self.delay),
            per_host=_unless_shown(self.per_host.value(), kept.per_host, self.per_host),
            concurrency=_unless_shown(self.concurrency.value(), kept.concurrency, self.concurrency),
            obey_robots=self.obey_robots.isChecked(),
        )
        return replace(
            base,
            politeness=politeness,
            max_pages=self.max_pages.value() or None,
            rounds=self.rounds.value() or None,
        )

    # -- crawl controls --------------------------------------------------------------

    def start(self, watch: bool = False) -> None:
        """Start a crawl, or (``watch``) a watch: rounds as pages come due. Seeds typed
        and not added yet are added first: they are what the user means to crawl."""
        if not self._can_start():
            return
        if not self.settings_loaded:
            self._watch_when_ready = watch
            return
        if self.seeds_box.typed():
            self._adding_seeds = True
            self._enable_controls()
            self.seeds_box.inject_seeds(
                lambda result: self._seeds_added(result, watch), self._seeds_failed
            )
            return
        self._start(watch)

    def _can_start(self) -> bool:
        crawl = self.context.crawl
        busy = crawl.busy or self.context.compaction.busy or self._adding_seeds
        return not busy and self.holder is None

    def _seeds_added(self, result: InjectResult, watch: bool) -> None:
        self._adding_seeds = False
        self._enable_controls()
        if result.rejected and len(result.rejected) == len(result.urls):
            return  # the chain turned them all away: the seeds' line says why
        if self._can_start():
            self._start(watch)

    def _seeds_failed(self, message: str) -> None:
        self._adding_seeds = False  # the seeds' line says why (a URL that is none)
        self._enable_controls()

    def _start(self, watch: bool) -> None:
        crawl = self.context.crawl
        self._log_buffer.clear()
        self.tracker.start(time.monotonic())
        self.view.clear()
        self.view.progress.show()
        self._ended_text = None
        self.round_label.setText("Starting to watch…" if watch else "Starting…")
        if watch:
            crawl.watch(self._watch_settings())
        else:
            crawl.start(self.settings())
        self._ran = True
        self._timer.start()

    def watch_toggled(self, on: bool) -> None:
        if on:
            self.start(watch=True)
        elif self.context.crawl.watching:
            self.context.crawl.stop()
        self._enable_controls()

    def _enable_controls(self) -> None:
        crawl = self.context.crawl
        free = (
            not crawl.busy
            and self.settings_loaded
            and self.holder is None
            and not self._adding_seeds
        )
        self.start_button.setEnabled(free)
        self.watch_button.setEnabled(free or (crawl.watching and self._state != "stopping"))
        self.watch_button.setChecked(crawl.watching and self._state != "stopping")

    def _on_state(self, state: str) -> None:
        self._state = state
        idle = state == "idle"
        self.pause_button.setEnabled(state == "running")
        self.resume_button.setEnabled(state == "paused")
        self.stop_button.setEnabled(state in ("running", "paused"))
        self._enable_controls()
        if idle:
            self._wake_up()
        elif self.sleeping:
            self._show_sleeping()  # paused or not
        if idle and self._ran:  # a crawl (or watch) of this window ended
            self._ran = False
            self._timer.stop()
            self._redraw()
            self._refresh_outlook()

    # -- watching ----------------------------------------------------------------------

    def _asleep(self, until: datetime | None) -> None:
        """The watch sleeps: no redraws until its next round, and when that is due."""
        self.sleeping, self._sleeping_until = True, until
        self._redraw()
        self._timer.stop()
        self.round_label.setText("Watching: waiting for the next page to come due")
        self._show_sleeping()
        self._sleep_timer.start()

    def _show_sleeping(self) -> None:
        paused = self._state == "paused"
        self.view.show_outlook(sleeping_text(self._sleeping_until, utcnow(), paused))

    def _wake_up(self) -> None:
        if self.sleeping:
            self.sleeping = False
            self._sleep_timer.stop()
            self.view.show_outlook("")
            if self.context.crawl.busy:
                self._timer.start()

    def _holder_changed(self, holder: WatcherHolder | None) -> None:
        self.holder = holder
        self.banner.show_holder(holder)
        self._enable_controls()
        self._refresh_outlook()

    def stop_external_watcher(self) -> None:
        self.banner.stopping()
        self.context.watch.stop_watcher()

    # -- events (GUI thread, by signal) ----------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        # Bounded work a batch, whatever its size: the events that only make log lines
        # are kept as they are (the last LOG_LINES), and become text at the next redraw.
        now = time.monotonic()
        self._log_buffer.extend(events)
        for event in events:
            if isinstance(event, StatsSnapshot):
                self.tracker.snapshot(now, event)
            elif isinstance(event, RoundStarted):
                if self.sleeping:
                    self.tracker.idle(now)  # the rate was zero until now
                self._wake_up()
                self.tracker.round_started(event)
            elif isinstance(event, CrawlFinished) and self.context.crawl.watching:
                self.tracker.crawl_finished(event.summary)
            elif isinstance(event, WatchSleeping):
                self.tracker.idle(now)
                self._asleep(event.until)
            elif isinstance(event, WatchRound):
                self._log_buffer.add(watch_round_text(event))
                self.context.changes.sig_news.emit()
            elif isinstance(event, RoundFinished):
                self.tracker.round_finished(event)
                self.context.changes.sig_pages.emit()
                self.context.changes.sig_segments.emit()
        self._dirty = True

    def _redraw(self) -> None:
        if not self.context.crawl.busy and not self._dirty:
            return
        self._dirty = False
        # busy stays true until the crawl's thread is done, after its summary is shown:
        # a redraw then must not put "Round N" back over it
        if self.tracker.round.number and self.context.crawl.busy and self._ended_text is None:
            self.round_label.setText(f"Round {self.tracker.round.number}")
        self.view.draw(self.tracker, time.monotonic())  # the elapsed time moves on
        self.view.append_log(self._log_buffer.take())

    def _on_finished(self, summary: CrawlSummary | WatchSummary) -> None:
        if isinstance(summary, WatchSummary):
            # its summary counts no embeds: the watch's crawls' own summaries did
            tracker = self.tracker
            text = watch_summary_text(summary, tracker.embeds_fetched, tracker.embed_errors)
            self.tracker.ended(summary.elapsed_s)
        else:
            text = crawl_summary_text(summary)
            self.tracker.finished(summary)
        self._log_buffer.add(text)
        self._dirty = True
        self._redraw()
        self._ended_text = text
        self.round_label.setText(text)
        self.context.changes.sig_status.emit(text)
        self.context.changes.sig_pages.emit()
        self.context.changes.sig_segments.emit()

    def _on_failed(self, message: str) -> None:
        self._log_buffer.add(f"error  the crawl stopped: {message}")
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
            self.round_label.setText(crawl_jobs.last_run_text(outlook, self.holder is not None))
        self.view.show_outlook(crawl_jobs.due_text(outlook, now, self.holder is not None))

    def activate(self) -> None:
        if not self.context.crawl.busy:
            if self.settings_loaded:  # `recrawl settings` may have changed them meanwhile
                self._load_settings()
            self._refresh_outlook()

    def shutdown(self) -> None:
        self._timer.stop()
        self._sleep_timer.stop()


T = TypeVar("T", int, float)


def _unless_shown(value: T, kept: T, field: QSpinBox | QDoubleSpinBox) -> T:
    """``value``, the field's, or ``kept`` where the field shows it as near as it can: a
    kept delay of 5 min (``recrawl settings``) past the field's 120 s, or 0.004 s past its
    two decimals, is crawled with as kept; only an edit changes it."""
    shown = min(max(kept, field.minimum()), field.maximum())
    if isinstance(field, QDoubleSpinBox):
        shown = round(shown, field.decimals())
    return kept if value == shown else value
