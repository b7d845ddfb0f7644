"""The selected page: its interval trajectory, its fetch history and what to do with it.

A view only: it draws a :class:`recrawl.gui.pages.page_jobs.PageDetail` and reports the user's
actions as signals; the Pages panel runs them through the store thread.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt, Signal, SignalInstance
from PySide6.QtGui import QFont, QTextOption
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.archive.screenshots import CaptureShot
from recrawl.core.clock import DAY, HOUR, human_duration
from recrawl.core.errors import RecrawlError
from recrawl.core.store import NEVER
from recrawl.core.store.models import PageKind
from recrawl.gui.common import formatting
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.common.plots import BOUND, CHANGED, UNCHANGED, from_zero, plot_column, plot_widget
from recrawl.gui.common.tables import compact_rows
from recrawl.gui.pages.diff_view import DiffDialog
from recrawl.gui.pages.page_jobs import Content, PageDetail
from recrawl.gui.pages.pages_model import (
    EMBEDS_COLUMN,
    ERROR_COLUMN,
    HISTORY_COLUMNS,
    MISSING,
    HistoryModel,
    MissingModel,
    missing_count,
)
from recrawl.gui.pages.timeline_model import TimelineModel
from recrawl.gui.pages.timeline_view import ScreenshotDialog, TimelineView

#: Qt lays out a run of text with nowhere to break in time that grows with its length
#: squared: a 2 MiB run (a bomb of zeros, a base64 blob, minified script) held the GUI
#: thread for minutes. Text with a run this long is wrapped anywhere instead.
LONGEST_RUN = 1000
_BREAKS = re.compile(r"[ \t\r\n]+")
#: A capture's missing embeds shown at once under its history (the list scrolls on).
MISSING_ROWS = 8


def interval_unit(seconds: list[float]) -> tuple[str, float]:
    """Days when some interval reaches two days, else hours: (unit, seconds per unit)."""
    return ("days", DAY) if seconds and max(seconds) >= 2 * DAY else ("hours", HOUR)


class PageDetailView(QWidget):
    sig_refetch = Signal(str)
    #: (url, seconds) to pin the interval; seconds None hands it back to the schedule.
    sig_fix_interval = Signal(str, object)
    #: (url, fetched_at): the capture of the fetch selected in the history (None: the
    #: latest capture).
    sig_show_content = Signal(str, object)
    #: (url, fetched_at, fetched_at or None): compare the captures of two fetches, or of
    #: one and the capture before it.
    sig_compare = Signal(str, object, object)
    sig_open = Signal(str)
    #: (url, fetched_at): open the capture of the fetch selected in the history (None:
    #: the latest capture) in the browser, as it looked.
    sig_open_capture = Signal(str, object)
    #: (url, text): a diff's "Ignore this text…" (the window opens the Change rules editor).
    sig_ignore_text = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.detail: PageDetail | None = None
        self.fix_dialog: FixIntervalDialog | None = None
        self.content_dialog: ContentDialog | None = None
        self.diff_dialog: DiffDialog | None = None
        self.screenshot_dialog: ScreenshotDialog | None = None

        self.title = QLabel("Select a page to see how its revisit interval moved.")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setWordWrap(True)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)

        actions = self._build_actions()
        # the page's visual history (browser captures): hidden for a page without any
        self.timeline_model = TimelineModel(self)
        self.timeline = TimelineView(self.timeline_model)
        plot_box = self._build_plot()
        history_box = self._build_history()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(plot_box)
        split.addWidget(history_box)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([500, 500])  # room for the history's columns from the start

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.summary)
        layout.addLayout(actions)
        layout.addWidget(self.timeline)
        layout.addWidget(split, 1)
        self.show_page(None)

    def _build_actions(self) -> FlowLayout:
        """What to do with the page: a row of buttons."""
        self.refetch_button = QPushButton("Refetch now")
        self.refetch_button.setToolTip("Make the page due: the next crawl round fetches it")
        self.fix_button = QPushButton("Fix interval…")
        self.fix_button.setToolTip(
            "Pin this page's revisit interval; the schedule stops adapting it"
        )
        self.content_button = QPushButton("Show content")
        self.content_button.setToolTip(
            "The payload of the capture selected in the history (none selected: the latest)"
        )
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip(
            "What changed in the text between the two captures selected in the history "
            "(one selected: between it and the capture before it)"
        )
        self.open_button = QPushButton("Open in browser")
        self.open_button.setToolTip("The page as it is now, on its site")
        self.capture_button = QPushButton("Open capture in browser")
        self.capture_button.setToolTip(
            "The capture selected in the history (none selected: the latest) as it looked, "
            "served from the project's archive"
        )
        self.refetch_button.clicked.connect(lambda: self._emit(self.sig_refetch))
        self.fix_button.clicked.connect(self._ask_interval)
        self.content_button.clicked.connect(self.show_selected_content)
        self.compare_button.clicked.connect(self.compare_selected)
        self.open_button.clicked.connect(lambda: self._emit(self.sig_open))
        self.capture_button.clicked.connect(self.open_selected_capture)
        actions = FlowLayout()  # the buttons wrap in a narrow window
        for button in (
            self.refetch_button,
            self.fix_button,
            self.content_button,
            self.compare_button,
            self.open_button,
            self.capture_button,
        ):
            actions.addWidget(button)
        actions.addStretch(1)
        return actions

    def _build_plot(self) -> QWidget:
        """The interval trajectory: its path, changed and unchanged fetches, bounds."""
        self.plot = plot_widget("fetched at", "local time", "Interval", "hours", time_axis=True)
        item = self.plot.getPlotItem()
        self.legend = item.addLegend(offset=(-10, 10))
        self.path = item.plot(pen=pg.mkPen(UNCHANGED, width=1), name=None)
        self.unchanged_points = pg.ScatterPlotItem(
            size=8, brush=pg.mkBrush(UNCHANGED), pen=pg.mkPen("w"), name="unchanged"
        )
        self.changed_points = pg.ScatterPlotItem(
            size=10, brush=pg.mkBrush(CHANGED), pen=pg.mkPen("w"), symbol="d", name="changed"
        )
        item.addItem(self.unchanged_points)
        item.addItem(self.changed_points)
        self.bound_lines: list[pg.InfiniteLine] = []
        #: The upright line at the page's next fetch (None: none drawn).
        self.next_line: pg.InfiniteLine | None = None
        self.bounds_label = QLabel("")
        self.bounds_label.setWordWrap(True)
        return plot_column(self.plot, self.bounds_label)

    def _build_history(self) -> QWidget:
        """The fetch history, and what the chosen capture misses of its embeds."""
        self.history = HistoryModel(self)
        self.history_view = QTableView()
        self.history_view.setModel(self.history)
        self.history_view.verticalHeader().hide()
        self.history_view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        # two rows to compare (click, then Ctrl+click the other)
        self.history_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.history_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.history_view.customContextMenuRequested.connect(self._history_menu)
        self.history_view.selectionModel().selectionChanged.connect(
            lambda *_: self._selection_changed()
        )
        header = self.history_view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # errors can be long: the column takes the room the others leave, elided (whole
        # in the tool tip), so the history never scrolls sideways where it has room
        header.setSectionResizeMode(ERROR_COLUMN, QHeaderView.ResizeMode.Stretch)
        self.history_view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.history_view.setWordWrap(False)
        compact_rows(self.history_view)

        # what the chosen capture is missing of its embeds, and why (docs/design.md §14)
        self.embeds_label = QLabel("")
        self.embeds_label.setObjectName("capture-embeds")
        self.embeds_label.setWordWrap(True)
        self.embeds_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.missing = MissingModel(self)
        self.missing_view = QTableView()
        self.missing_view.setObjectName("missing-embeds")
        self.missing_view.setModel(self.missing)
        self.missing_view.verticalHeader().hide()
        self.missing_view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.missing_view.setWordWrap(False)
        self.missing_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        missing_header = self.missing_view.horizontalHeader()
        missing_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        missing_header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        missing_header.resizeSection(1, 220)
        compact_rows(self.missing_view)
        history_box = QWidget()
        history_layout = QVBoxLayout(history_box)
        history_layout.setContentsMargins(0, 0, 0, 0)
        # as much room for the list as for the history: a page fetched once has one row
        history_layout.addWidget(self.history_view, 1)
        history_layout.addWidget(self.embeds_label)
        history_layout.addWidget(self.missing_view, 1)
        return history_box

    # -- drawing ----------------------------------------------------------------------

    def show_page(self, detail: PageDetail | None) -> None:
        self.detail = detail
        for button in (
            self.refetch_button,
            self.fix_button,
            self.content_button,
            self.open_button,
            self.capture_button,
        ):
            button.setEnabled(detail is not None)
        self.compare_button.setEnabled(False)
        for line in [*self.bound_lines, *([self.next_line] if self.next_line else [])]:
            self.plot.removeItem(line)
        self.bound_lines = []
        self.next_line = None
        shown = self.timeline_model.timeline
        if detail is None or (shown is not None and shown.url != detail.url):
            self.timeline_model.set_timeline(None)  # another page's: its own is coming
        if detail is None:
            self.title.setText("Select a page to see how its revisit interval moved.")
            self.summary.setText("")
            self.bounds_label.setText("")
            self.history.set_rows([])
            self._show_embeds()
            self.path.setData([], [])
            self.unchanged_points.setData([], [])
            self.changed_points.setData([], [])
            self._frame([], [])
            return
        self.title.setText(f"<b>{_escape(detail.url)}</b>")
        pinned = (
            f" — fixed at {human_duration(detail.fixed_interval)}"
            if detail.fixed_interval is not None
            else ""
        )
        embed = detail.kind == PageKind.EMBED
        kind = ""
        if embed:
            by = detail.discovered_from
            kind = f"embed (first embedded by {_escape(by)}): " if by else "embed: "
        self.summary.setText(
            f"{kind}{formatting.status_word(detail.status)}, interval {human_duration(detail.fetch_interval)}{pinned}, "
            f"next fetch {_next_fetch(detail)}, "
            + ("1 fetch" if len(detail.events) == 1 else f"{len(detail.events)} fetches")
        )
        # an embed's captures embed nothing the page needs counted (docs/design.md §14)
        self.history_view.setColumnHidden(EMBEDS_COLUMN, embed)
        self.refetch_button.setToolTip(
            "Make the embed due: the next fetch of a page that embeds it fetches it too"
            if embed
            else "Make the page due: the next crawl round fetches it"
        )
        self.history.set_rows(list(detail.events))
        self._selection_changed()
        self._draw(detail)

    def _draw(self, detail: PageDetail) -> None:
        at, change, before, after = (
            HISTORY_COLUMNS.index(name)
            for name in ("fetched_at", "change", "interval_before", "interval_after")
        )
        points = [
            (
                formatting.timestamp(e[at]),
                e[after] if e[after] is not None else e[before],
                e[change],
            )
            for e in detail.events
            if e[after] is not None or e[before] is not None
        ]
        low, high = detail.bounds
        unit, scale = interval_unit([y for _, y, _ in points])
        self.plot.getPlotItem().setLabel("left", "Interval", units=unit)
        self.path.setData([x for x, _, _ in points], [y / scale for _, y, _ in points])
        changed = [(x, y / scale) for x, y, c in points if c == "changed"]
        unchanged = [(x, y / scale) for x, y, c in points if c != "changed"]
        self.changed_points.setData([x for x, _ in changed], [y for _, y in changed])
        self.unchanged_points.setData([x for x, _ in unchanged], [y for _, y in unchanged])
        words = []
        for name, bound, anchor in (("min", low, (0, 1)), ("max", high, (0, 0))):
            if not bound:
                words.append(f"no {name}imum")
                continue
            self.bound_lines.append(
                self._line(bound / scale, 0, f"{name} {human_duration(bound)}", anchor)
            )
            words.append(f"{name} {human_duration(bound)}")
        times = [x for x, _, _ in points]
        if detail.next_fetch < NEVER:
            next_at = formatting.timestamp(detail.next_fetch)
            # its label low and left of the line: the legend holds the top right
            self.next_line = self._line(next_at, 90, "next fetch", (1, 1), position=0.12)
            times.append(next_at)
        self.bounds_label.setText(
            f"Schedule {detail.schedule}, bounds for {detail.host}: {', '.join(words)}. "
            "Diamonds: the fetch found a change."
        )
        self._frame(times, [y / scale for _, y, _ in points])

    def _line(
        self,
        pos: float,
        angle: float,
        label: str,
        anchor: tuple[int, int],
        position: float = 0.05,
    ) -> pg.InfiniteLine:
        """A dashed line: a schedule bound (across) or the next fetch (upright)."""
        line = pg.InfiniteLine(
            pos=pos,
            angle=angle,
            pen=pg.mkPen(BOUND, width=1, style=Qt.PenStyle.DashLine),
            label=label,
            # the max label below its line and the min one above: both stay in view
            labelOpts={"position": position, "color": BOUND, "anchors": [anchor, anchor]},
        )
        self.plot.addItem(line)
        return line

    def _frame(self, times: list[float], values: list[float]) -> None:
        """Dates across (at least a day, so one fetch reads as a date, not as seconds
        of an empty instant), intervals up from 0."""
        if not times:
            now = time.time()
            times = [now - 7 * DAY, now]
        start, end = min(times), max(times)
        middle, half = (start + end) / 2, max(end - start, DAY) / 2
        self.plot.setXRange(middle - half, middle + half, padding=0.05)
        from_zero(self.plot, max(values, default=1.0) * 1.15 or 1.0)

    def show_content(self, content: Content) -> None:
        self.content_dialog = ContentDialog(content, self)
        self.content_dialog.open()

    def open_screenshot(self, url: str, shot: CaptureShot) -> ScreenshotDialog:
        """A window for ``shot``'s screenshot, saying it loads until it is shown."""
        if self.screenshot_dialog is not None:
            self.screenshot_dialog.close()
            self.screenshot_dialog.deleteLater()
        self.screenshot_dialog = ScreenshotDialog(url, shot, self)
        self.screenshot_dialog.show()
        return self.screenshot_dialog

    def open_diff(self, url: str) -> DiffDialog:
        """A diff window for ``url``, saying it is comparing until :meth:`show_diff`."""
        if self.diff_dialog is not None:
            self.diff_dialog.close()
            self.diff_dialog.deleteLater()
        self.diff_dialog = DiffDialog(url, self)
        self.diff_dialog.view.sig_ignore_text.connect(self.sig_ignore_text)
        self.diff_dialog.show()
        return self.diff_dialog

    # -- the history's selection ------------------------------------------------------

    def selected_fetches(self) -> list[datetime]:
        """The fetch times of the history rows selected, oldest first (at most two: the
        two chosen last)."""
        rows = [index.row() for index in self.history_view.selectionModel().selectedRows()]
        times = [self.history.row(r)[0] for r in rows if 0 <= r < self.history.rowCount()]
        return sorted(times)

    def _selected_rows(self) -> list[int]:
        rows = {index.row() for index in self.history_view.selectionModel().selectedRows()}
        return sorted(r for r in rows if 0 <= r < self.history.rowCount())

    def _selection_changed(self) -> None:
        self._show_embeds()
        count = len(self.selected_fetches())
        self.compare_button.setEnabled(self.detail is not None and count in (1, 2))
        if self.detail is not None:
            captured = any(e[1] is not None for e in self.detail.events)
            self.content_button.setEnabled(captured and count <= 1)
            self.capture_button.setEnabled(captured and count <= 1)

    def _show_embeds(self) -> None:
        """What the chosen capture (the newest selected; none selected: the latest whose
        embeds are known) got of its embeds, and the missing ones with their reasons."""
        rows = self._selected_rows()
        events = self.detail.events if self.detail is not None else ()
        chosen: tuple[Any, ...] | None = None
        if rows:
            chosen = self.history.row(rows[-1])
        else:
            chosen = next((e for e in reversed(events) if e[EMBEDS_COLUMN] is not None), None)
        if chosen is None or chosen[EMBEDS_COLUMN] is None:
            shown = rows and self.detail is not None and self.detail.kind == PageKind.PAGE
            self.embeds_label.setText(
                "What this fetch got of the page's embeds is not known: it made no page "
                "capture, came before Recrawl archived embeds, or the crawl stopped first."
                if shown
                else ""
            )
            self.embeds_label.setVisible(bool(shown))
            self.missing.set_rows([])
            self.missing_view.hide()
            return
        when = formatting.local_time(chosen[0], seconds=True)
        which = "The capture" if rows else "The latest capture"
        archived, missing = chosen[EMBEDS_COLUMN], missing_count(chosen)
        listed = list(chosen[MISSING])
        if not missing:
            text = (
                f"{which} ({when}) has no embeds."
                if not archived
                else f"{which} ({when}) archived all {archived:,} of its embeds."
            )
        else:
            text = (
                f"<b>{missing:,} of {archived + missing:,} embeds missing</b> from "
                f"{which.lower()} ({when})"
            )
            if missing > len(listed):
                text += f"; the first {len(listed):,} are listed"
            text += ":"
        self.embeds_label.setText(text)
        self.embeds_label.show()
        self.missing.set_rows(listed)
        self.missing_view.setVisible(bool(listed))
        # as tall as its rows, up to MISSING_ROWS (it scrolls past them): the history
        # keeps the rest
        view = self.missing_view
        tall = min(len(listed), MISSING_ROWS)
        height = view.horizontalHeader().sizeHint().height() + 2 * view.frameWidth()
        view.setMaximumHeight(height + tall * view.verticalHeader().defaultSectionSize())

    def show_selected_content(self) -> None:
        if self.detail is None:
            return
        chosen = self.selected_fetches()
        self.sig_show_content.emit(self.detail.url, chosen[-1] if len(chosen) == 1 else None)

    def open_selected_capture(self) -> None:
        if self.detail is None:
            return
        chosen = self.selected_fetches()
        self.sig_open_capture.emit(self.detail.url, chosen[-1] if len(chosen) == 1 else None)

    def compare_selected(self) -> None:
        chosen = self.selected_fetches()
        if self.detail is None or len(chosen) not in (1, 2):
            return
        self.sig_compare.emit(self.detail.url, chosen[0], chosen[1] if len(chosen) == 2 else None)

    def _history_menu(self, at: QPoint) -> None:
        if self.detail is not None:
            self.history_menu = self.make_history_menu()
            self.history_menu.popup(self.history_view.viewport().mapToGlobal(at))

    def make_history_menu(self) -> QMenu:
        """The history's context menu: compare, show or open the chosen captures."""
        menu = QMenu(self)
        compare = menu.addAction("Compare")
        compare.setEnabled(self.compare_button.isEnabled())
        compare.triggered.connect(self.compare_selected)
        content = menu.addAction("Show content")
        content.setEnabled(self.content_button.isEnabled())
        content.triggered.connect(self.show_selected_content)
        capture = menu.addAction("Open capture in browser")
        capture.setEnabled(self.capture_button.isEnabled())
        capture.triggered.connect(self.open_selected_capture)
        return menu

    # -- actions ----------------------------------------------------------------------

    def _emit(self, signal: SignalInstance) -> None:
        if self.detail is not None:
            signal.emit(self.detail.url)

    def _ask_interval(self) -> None:
        if self.detail is None:
            return
        current = self.detail.fixed_interval or self.detail.fetch_interval
        dialog = FixIntervalDialog(self.detail.url, current, self.detail.fixed_interval, self)
        url = self.detail.url
        dialog.sig_chosen.connect(lambda seconds: self.sig_fix_interval.emit(url, seconds))
        self.fix_dialog = dialog
        dialog.open()  # window-modal, and the event loop keeps running


def _next_fetch(detail: PageDetail) -> str:
    if detail.next_fetch >= NEVER:
        return "never (filtered: the chain rejects it; Filters › Why not crawled? says why)"
    when = f"{formatting.local_time(detail.next_fetch)} (local time)"
    if detail.kind == PageKind.EMBED:  # never due by itself (docs/design.md §14)
        return f"with a page that embeds it, not before {when}"
    return when


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class FixIntervalDialog(QDialog):
    """Ask for a duration (``7 d``, ``12 h``, ``90 min``, ``3600s``) to pin a page's interval."""

    #: The chosen interval in seconds, or None to let the schedule decide again.
    sig_chosen = Signal(object)

    def __init__(
        self, url: str, current: float, fixed: float | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Fix interval")
        self.current = current
        # filled as the page's interval reads beside it (6.0 d), not as the CLI takes it
        self.edit = QLineEdit(human_duration(current))
        self.edit.setPlaceholderText("e.g. 7 d, 12 h, 90 min")
        self.error = QLabel("")
        self.error.setStyleSheet(f"color: {CHANGED}")
        intro = QLabel(
            f"Revisit {_escape(url)} at a fixed interval; the schedule stops adapting it."
        )
        intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Interval:", self.edit)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.unfix_button = self.buttons.addButton(
            "Let the schedule decide", QDialogButtonBox.ButtonRole.ResetRole
        )
        self.unfix_button.setEnabled(fixed is not None)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self.unfix_button.clicked.connect(self._unfix)
        self.edit.textChanged.connect(lambda _: self.error.setText(""))
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def _accept(self) -> None:
        try:
            seconds = formatting.typed_duration(self.edit.text(), self.current)
        except RecrawlError as exc:
            self.error.setText(str(exc))
            return
        if seconds <= 0:
            self.error.setText("the interval must be longer than zero")
            return
        self.sig_chosen.emit(seconds)
        self.accept()

    def _unfix(self) -> None:
        self.sig_chosen.emit(None)
        self.accept()


class ContentDialog(QDialog):
    """The decoded payload of one capture of a page, with its date, read-only."""

    def __init__(self, content: Content, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        when = formatting.local_time(content.date, seconds=True) if content.date else ""
        self.setWindowTitle(f"Content of {content.url}" + (f" — {when}" if when else ""))
        self.resize(760, 560)
        captured = f"Captured {when} (local time) — " if when else ""
        note = QLabel(
            captured
            + (content.content_type or "no Content-Type")
            + (f" — {content.note}" if content.note else "")
        )
        note.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFont("monospace"))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        if has_long_run(content.text):
            self.text.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        self.text.setPlainText(content.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)


def has_long_run(text: str) -> bool:
    """Whether ``text`` holds :data:`LONGEST_RUN` characters with no space or line break."""
    return len(text) >= LONGEST_RUN and any(len(run) >= LONGEST_RUN for run in _BREAKS.split(text))
