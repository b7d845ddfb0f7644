"""The Crawl panel's right side: what the crawl does now, what it did, and its log.

A view only: it draws a :class:`~recrawl.gui.crawl.crawl_progress.CrawlProgress` and the
sentences the panel gives it; the panel decides when.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QGraphicsItem,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.words import plural
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.common.formatting import embeds_done, stopwatch
from recrawl.gui.common.plots import UNCHANGED, from_zero, plot_widget
from recrawl.gui.crawl.crawl_progress import (
    LOG_KIND_TIPS,
    LOG_KIND_TITLES,
    RATE_WINDOW_S,
    CrawlProgress,
    LogLines,
)

LOG_LINES = 2000

#: The plot's time unit for crawls up to this long: (seconds, unit, seconds per unit).
TIME_UNITS = ((600.0, "s", 1.0), (3 * 3600.0, "min", 60.0), (float("inf"), "h", 3600.0))


#: Seconds between two redraws of the rate plot while a crawl runs (its rate is over the
#: last RATE_WINDOW_S): every redraw of a pyqtgraph plot runs Python on the window's
#: thread, which at full speed waits for the interpreter lock the crawl holds.
PLOT_EVERY_S = 1.0
#: The steps of :func:`nice_ceiling` within a power of ten.
NICE_STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def time_unit(elapsed: float) -> tuple[str, float]:
    """Seconds for the first minutes of a crawl, then minutes, then hours."""
    return next((unit, scale) for limit, unit, scale in TIME_UNITS if elapsed <= limit)


def nice_ceiling(value: float) -> float:
    """The least of 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, ... at or above ``value``.

    The plot's ranges grow in these steps, not with every redraw: pyqtgraph lays out an
    axis's ticks and labels again whenever its range changes, in Python on the window's
    thread, and four times a second that was most of the window's longest stalls.
    """
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in NICE_STEPS if step * power >= value * 0.9999)


class CrawlProgressView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.round_label = QLabel("")
        self.round_label.setWordWrap(True)
        self.round_label.setObjectName("crawl-round")
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m done")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)  # until a round says how much there is
        self.totals = QLabel("")
        self.totals.setWordWrap(True)  # a line of counts must not hold the window wide
        self.totals.setObjectName("crawl-totals")
        self.outlook = QLabel("")
        self.outlook.setWordWrap(True)
        self.outlook.setObjectName("crawl-outlook")
        self.plot = plot_widget("time since start", "s", "pages per second", None)
        self.plot.getPlotItem().setTitle(
            f"pages fetched per second, over the last {RATE_WINDOW_S:.0f} s",
            size="9pt",
            color="#555",
        )
        # not antialiased: filling the antialiased area was the costliest part of a
        # redraw, four times a second, on the window's thread
        self.curve = self.plot.plot(
            pen=UNCHANGED, fillLevel=0, brush=(45, 106, 143, 40), antialias=False
        )
        self._unit = ""
        self._ranges = (0.0, 0.0)  # the plot's x and y tops as last set
        self._plotted_at = -math.inf
        # the axes and the title drawn once into pixmaps, blitted while they stay the
        # same: replaying their text four times a second was the window's longest work
        item = self.plot.getPlotItem()
        for part in (*(item.getAxis(side) for side in ("left", "bottom")), item.titleLabel):
            part.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(LOG_LINES)
        self.log.setPlaceholderText("Errors and rejected links appear here.")
        #: The log's lines with their kinds; the log shows the kinds whose button is on.
        self.log_lines = LogLines(LOG_LINES)
        self.kind_buttons: dict[str, QToolButton] = {}
        log_bar = FlowLayout()
        log_bar.addWidget(QLabel("Log:"))
        for kind, title in LOG_KIND_TITLES.items():
            button = QToolButton()
            button.setText(title)
            button.setCheckable(True)
            button.setChecked(True)
            button.setToolTip(f"Show the log's lines of this kind: {LOG_KIND_TIPS[kind]}")
            button.toggled.connect(self._filter_log)
            self.kind_buttons[kind] = button
            log_bar.addWidget(button)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.round_label)
        column.addWidget(self.progress)
        column.addWidget(self.totals)
        column.addWidget(self.outlook)
        column.addWidget(self.plot, 1)
        column.addLayout(log_bar)
        column.addWidget(self.log, 1)
        self.clear()

    def clear(self) -> None:
        """No crawl yet in this window: an empty plot, no bar, no totals."""
        self.curve.setData([], [])
        self._set_ranges(60.0, 1.0)
        self.show_totals("")
        self.show_outlook("")
        self.progress.setTextVisible(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.hide()

    def show_totals(self, text: str) -> None:
        self.totals.setText(text)
        self.totals.setVisible(bool(text))

    def show_outlook(self, text: str) -> None:
        self.outlook.setText(text)
        self.outlook.setVisible(bool(text))

    def draw(self, progress: CrawlProgress, now: float) -> None:
        """The round's bar, the totals and the rate plot as of ``now`` (monotonic)."""
        elapsed = progress.elapsed(now)
        if progress.ended_after is None:
            state = " (paused)" if progress.paused else ""
            rate = f" · {progress.rate():.1f} pages/s now{state}"
        else:
            rate = ""
        # what pages embed apart: the rate, the bar and the errors are the pages' own
        embeds = embeds_done(progress.embeds_fetched, progress.embed_errors)
        self.show_totals(
            f"Elapsed {stopwatch(elapsed)} · {plural(progress.fetched, 'page')} fetched · "
            f"{plural(progress.errors, 'error')} · {f'{embeds} · ' if embeds else ''}"
            f"{plural(progress.new_urls, 'new URL')}{rate}"
        )
        rnd = progress.round
        if rnd.number:
            self.progress.show()
            self.progress.setTextVisible(True)
            self.progress.setRange(0, rnd.queued)
            self.progress.setValue(min(rnd.done, rnd.queued))
        points = progress.rates.points()
        ended = progress.ended_after is not None
        if points and (ended or now - self._plotted_at >= PLOT_EVERY_S):
            self._plotted_at = now
            unit, scale = time_unit(elapsed)
            if unit != self._unit:
                self._unit = unit
                self.plot.getPlotItem().setLabel("bottom", "time since start", units=unit)
            self.curve.setData([t / scale for t, _ in points], [r for _, r in points])
            top = max(r for _, r in points)
            # from 0, with room above: a steady crawl reads flat, not as zoomed-in noise
            x_top = max(elapsed / scale, points[-1][0] / scale)
            self._set_ranges(max(nice_ceiling(x_top), 60.0 / scale), nice_ceiling(top * 1.15))

    def _set_ranges(self, x_top: float, y_top: float) -> None:
        if (x_top, y_top) == self._ranges:
            return
        self._ranges = (x_top, y_top)
        from_zero(self.plot, y_top)
        self.plot.setXRange(0, x_top, padding=0)

    def append_log(self, lines: Sequence[str]) -> None:
        # only what the log keeps: 100,000 lines appended to be trimmed to LOG_LINES held
        # the GUI thread for seconds (a page of 100,000 links robots.txt denies)
        if not lines:
            return
        kinds = self.shown_kinds()
        added = self.log_lines.extend(lines[-LOG_LINES:])
        shown = [line for kind, line in added if kind in kinds]
        if shown:
            self.log.appendPlainText("\n".join(shown))
        self._count_kinds()

    def shown_kinds(self) -> set[str]:
        """The kinds of line the log shows (its buttons that are on)."""
        return {kind for kind, button in self.kind_buttons.items() if button.isChecked()}

    def _filter_log(self) -> None:
        self.log.setPlainText("\n".join(self.log_lines.shown(self.shown_kinds())))
        self.log.moveCursor(QTextCursor.MoveOperation.End)  # the newest lines, as appended

    def _count_kinds(self) -> None:
        for kind, button in self.kind_buttons.items():
            count = self.log_lines.counts[kind]
            title = LOG_KIND_TITLES[kind]
            button.setText(f"{title} ({count:,})" if count else title)
