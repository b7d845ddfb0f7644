"""The Pages panel (docs/design.md §9): every page of the project, and the selected one's story.

The table is a lazy :class:`~recrawl.gui.pages.pages_model.PagesModel` over the store: a project of a
million pages opens with its first block of rows while the count is still coming.
Search (debounced), status, "found via" and "first seen since" filters and header clicks
become a new SQL query. The panel is the controller: it runs the detail view's actions through
the store thread and refreshes what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QDateTime, QModelIndex, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImage
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.archive import screenshots
from recrawl.core.archive.screenshots import CaptureShot, Timeline
from recrawl.core.clock import utcnow
from recrawl.core.store.models import DiscoveredVia, PageKind, PageStatus
from recrawl.gui.common import formatting
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.common.tables import compact_rows
from recrawl.gui.context import AppContext
from recrawl.gui.pages import diff_jobs, page_jobs
from recrawl.gui.pages.page_detail import PageDetailView
from recrawl.gui.pages.page_jobs import Content, PageDetail
from recrawl.gui.pages.pages_model import PagesModel
from recrawl.gui.pages.screenshot_jobs import ScreenshotLoader
from recrawl.gui.pages.timeline_view import ScreenshotDialog
from recrawl.gui.panel import Panel

#: Typing pauses this long (ms) before the search runs.
SEARCH_DELAY_MS = 300

#: The "found via" filter's choices (docs/design.md §11), in the order pages are found.
FOUND_VIA = (
    ("Found any way", None),
    ("Found as a seed", DiscoveredVia.SEED),
    ("Found via a link", DiscoveredVia.LINK),
    ("Found via a sitemap", DiscoveredVia.SITEMAP),
    ("Found via a feed", DiscoveredVia.FEED),
    ("Found via a redirect", DiscoveredVia.REDIRECT),
    ("Embedded by a page", DiscoveredVia.EMBED),
)

#: What the table lists (docs/design.md §14): pages, what they embed, or both.
KINDS = (
    ("Pages", (PageKind.PAGE,)),
    ("Embeds", (PageKind.EMBED,)),
    ("Pages and embeds", PageKind.ALL),
)
#: How a count of the rows listed reads, by the kinds listed: (one, many).
NOUNS = {
    (PageKind.PAGE,): ("page", "pages"),
    (PageKind.EMBED,): ("embed", "embeds"),
    PageKind.ALL: ("page or embed", "pages and embeds"),
}

EMPTY_HINT = (
    "<h3>No pages yet</h3>"
    "<p>Add seed URLs and start a crawl in the <b>Crawl</b> panel (Ctrl+2). Every page "
    "the crawl discovers is listed here, with when it was first seen, when it is "
    "fetched next and how its revisit interval moves.</p>"
)


class PagesPanel(Panel):
    title = "Pages"
    key = "pages"

    #: (url, text): a diff's "Ignore this text…": the Change rules editor, for the page.
    sig_ignore_text = Signal(str, str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.model = PagesModel(context.jobs, self)
        self._selected: str | None = None
        self._detail_generation = 0
        #: The page's screenshots, decoded on a thread of their own (started when needed).
        self.screenshots = ScreenshotLoader(self)
        self._screenshot_tickets: dict[int, ScreenshotDialog] = {}
        self._exporting = False

        bar, filters = self._build_controls()
        self._build_table()
        self.detail = PageDetailView()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        # the list first: three fifths of the height (the detail's size hint would take
        # more, and the table showed six rows)
        split.setSizes([600, 400])
        split.setChildrenCollapsible(False)
        self.split = split

        self.listing = listing = QWidget()
        listing_layout = QVBoxLayout(listing)
        listing_layout.setContentsMargins(0, 0, 0, 0)
        listing_layout.addLayout(bar)
        listing_layout.addLayout(filters)
        listing_layout.addWidget(split, 1)

        self.hint = QLabel(EMPTY_HINT)
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.hint.setObjectName("first-run-hint")
        self.stack = QStackedWidget()
        self.stack.addWidget(listing)
        self.stack.addWidget(self.hint)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack)

        self._connect()

    def _build_controls(self) -> tuple[QHBoxLayout, FlowLayout]:
        """The search bar (with Refresh and Export) and the filters below it."""
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search URLs…")
        self.search.setClearButtonEnabled(True)
        self.kinds = QComboBox()
        self.kinds.setObjectName("pages-kinds")
        self.kinds.setToolTip(
            "Pages, or what pages embed to be seen (styles, scripts, images, fonts…), or both"
        )
        for label, kinds in KINDS:
            self.kinds.addItem(label, kinds)
        self.status = QComboBox()
        self.status.addItem("Any status", None)
        for status in PageStatus.ALL:
            self.status.addItem(formatting.status_word(status), status)
        self.via = QComboBox()
        self.via.setToolTip("How the pages were first found")
        for label, via in FOUND_VIA:
            self.via.addItem(label, via)
        self.since_check = QCheckBox("First seen since")
        self.since = QDateTimeEdit(QDateTime.currentDateTime().addDays(-7))
        self.since.setCalendarPopup(True)
        self.since.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.since.setToolTip("Local time")
        self.since.setEnabled(False)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("The pages listed, filtered and sorted as shown")
        self.count_label = QLabel("")
        # the window may be narrow: the count gives way first
        self.count_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setShortcut("F5")
        self.refresh_button.setToolTip("Query the store again (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        bar = QHBoxLayout()
        bar.addWidget(self.search, 1)
        bar.addWidget(self.refresh_button)
        bar.addWidget(self.export_button)
        filters = FlowLayout()  # wraps in a narrow window
        filters.addWidget(self.kinds)
        filters.addWidget(self.status)
        filters.addWidget(self.via)
        filters.addSpacing(12)
        filters.addWidget(self.since_check)
        filters.addWidget(self.since)
        filters.addSpacing(12)
        filters.addWidget(self.count_label, 1)
        return bar, filters

    def _build_table(self) -> None:
        """The listing: sortable in SQL, the kind beside the status, rows a line high."""
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        compact_rows(self.table)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 360)
        for column in range(1, self.model.columnCount()):
            header.resizeSection(column, 130)
        header.setStretchLastSection(True)
        # the kind beside the status: a short word, where the eye reads what a row is
        kind = PagesModel.columns.index("kind")
        header.moveSection(header.visualIndex(kind), 1)
        header.resizeSection(kind, 70)
        # the indicator first, so enabling sorting asks for the order already shown
        header.setSortIndicator(PagesModel.columns.index("first_seen"), Qt.SortOrder.AscendingOrder)
        self.table.setSortingEnabled(True)

    def _connect(self) -> None:
        """The controls, the model and the detail view to what the panel does."""
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._apply_filters)
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        self.status.currentIndexChanged.connect(lambda _: self._apply_filters())
        self.kinds.currentIndexChanged.connect(lambda _: self._apply_filters())
        self.via.currentIndexChanged.connect(lambda _: self._apply_filters())
        self.since_check.toggled.connect(self._since_toggled)
        self.since.dateTimeChanged.connect(lambda _: self._apply_filters())
        self.export_button.clicked.connect(self._ask_export)
        self.model.sig_counted.connect(self._counted)
        self.model.sig_loaded.connect(self._reselect)
        self.model.sig_failed.connect(self.context.changes.sig_status)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.detail.sig_refetch.connect(self.refetch)
        self.detail.sig_fix_interval.connect(self.fix_interval)
        self.detail.sig_show_content.connect(self.show_content)
        self.detail.sig_compare.connect(self.compare)
        self.detail.sig_open.connect(self.open_in_browser)
        self.detail.sig_open_capture.connect(self.open_capture)
        self.detail.sig_ignore_text.connect(self.sig_ignore_text)
        self.detail.timeline.sig_visible.connect(self._thumbnails_wanted)
        self.detail.timeline.sig_open.connect(self.open_screenshot)
        model = self.detail.timeline_model
        self.screenshots.sig_thumbnail.connect(model.set_thumbnail)
        self.screenshots.sig_thumbnail_failed.connect(model.set_failed)
        self.screenshots.sig_image.connect(self._screenshot_arrived)
        self.screenshots.sig_image_failed.connect(self._screenshot_failed)
        self.context.replay.sig_failed.connect(self.context.changes.sig_status)
        self.context.changes.sig_pages.connect(self.changed)

    # -- panel ------------------------------------------------------------------------

    def query(self) -> None:
        """Query again (after a crawl round); the selected page stays selected."""
        self.model.reload()

    def reading(self) -> bool:
        # a reload in the middle of reading the table would take the reader to its top
        return self.table.verticalScrollBar().value() > 0 or self._selected is not None

    def shutdown(self) -> None:
        super().shutdown()
        self.screenshots.shutdown()

    def show_stale(self, stale: bool) -> None:
        self.refresh_button.setText("Refresh (new data)" if stale else "Refresh")

    # -- filters ----------------------------------------------------------------------

    def _since_toggled(self, on: bool) -> None:
        self.since.setEnabled(on)
        self._apply_filters()

    def since_utc(self) -> datetime | None:
        if not self.since_check.isChecked():
            return None
        seconds = self.since.dateTime().toSecsSinceEpoch()  # the edit shows local time
        return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)

    def _apply_filters(self) -> None:
        self._search_timer.stop()
        self.queried = True
        self.model.set_filters(
            self.search.text().strip(),
            self.status.currentData(),
            self.since_utc(),
            self.via.currentData(),
            self.kinds.currentData(),
        )

    def show_kinds(self, kinds: tuple[str, ...]) -> None:
        """List pages, embeds (``(PageKind.EMBED,)``) or both (``PageKind.ALL``)."""
        # by value: findData compares a Python value by identity
        index = next(i for i, (_, shown) in enumerate(KINDS) if shown == tuple(kinds))
        self.kinds.setCurrentIndex(index)

    def _counted(self, matching: int, total: int, pages: int) -> None:
        # the first-run hint while the project has no page (whatever is listed)
        self.stack.setCurrentWidget(self.hint if pages == 0 else self.listing)
        one, many = NOUNS.get(tuple(self.model.query.kinds), NOUNS[PageKind.ALL])
        if matching == total:
            self.count_label.setText(f"{total:,} {one if total == 1 else many}")
        else:
            self.count_label.setText(f"{matching:,} of {total:,} {many} match")
        # not while an export runs: a count arriving then would offer a second one
        self.export_button.setEnabled(matching > 0 and not self._exporting)

    # -- selection and detail ---------------------------------------------------------

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        url = self.model.url_at(current.row()) if current.isValid() else None
        if url is not None:
            self.select_url(url)

    def select_url(self, url: str) -> None:
        """Show ``url``'s trajectory and history (loaded on the store thread)."""
        self._selected = url
        self._detail_generation += 1
        generation = self._detail_generation
        self.context.jobs.submit(
            lambda: page_jobs.page_detail(url),
            lambda detail: self._detail_arrived(generation, detail),
            self.context.changes.sig_status.emit,
        )
        # its screenshots: their records' headers read on the long-job lane (hundreds of
        # captures), never on the store's, which keeps the table moving
        self.screenshots.want(generation)
        project_dir = self.context.project.path
        self.context.jobs.compute(
            lambda: screenshots.timeline(project_dir, url),
            lambda found: self._timeline_arrived(generation, found),
            self.context.changes.sig_status.emit,
        )

    def _detail_arrived(self, generation: int, detail: PageDetail) -> None:
        if generation == self._detail_generation:
            self.detail.show_page(detail)

    def _timeline_arrived(self, generation: int, timeline: Timeline) -> None:
        if generation == self._detail_generation:
            self.detail.timeline_model.set_timeline(timeline)

    def _thumbnails_wanted(self, rows: list[int]) -> None:
        """Decode the thumbnails that came into view (each once)."""
        shots = self.detail.timeline_model.to_load(rows)
        if shots:
            self.screenshots.thumbnails(self._detail_generation, shots)

    def open_screenshot(self, row: int) -> None:
        """The screenshot of the timeline's ``row``, larger, in a window of its own."""
        model = self.detail.timeline_model
        if model.timeline is None or not 0 <= row < model.rowCount():
            return
        shot: CaptureShot = model.shot(row)
        shown = self.detail.screenshot_dialog
        if shown is not None and shown.isVisible() and shown.shot == shot:
            return  # a click that also activates the item: one window, one read
        dialog = self.detail.open_screenshot(model.timeline.url, shot)
        self._screenshot_tickets = {self.screenshots.image(shot): dialog}

    def _screenshot_arrived(self, ticket: int, image: QImage) -> None:
        dialog = self._screenshot_tickets.pop(ticket, None)
        if dialog is not None and dialog is self.detail.screenshot_dialog:
            dialog.show_image(image)

    def _screenshot_failed(self, ticket: int, message: str) -> None:
        dialog = self._screenshot_tickets.pop(ticket, None)
        if dialog is not None and dialog is self.detail.screenshot_dialog:
            dialog.show_error(message)

    def _reselect(self) -> None:
        """After a reload: select the page shown before, if it is still listed."""
        if self._selected is None:
            return
        row = self.model.row_of(self._selected)
        if row is None:
            self.detail.show_page(None)
            self._selected = None
            return
        self.table.selectRow(row)  # a new current row: its detail loads again

    # -- actions ----------------------------------------------------------------------

    def refetch(self, url: str) -> None:
        now = utcnow()
        shown = self.detail.detail
        if shown is not None and shown.url == url and shown.kind == PageKind.EMBED:
            message = f"{url} is due: the next fetch of a page that embeds it fetches it too"
        else:
            message = f"{url} is due: the next crawl round fetches it"
        schedule = self.context.services.schedule
        self.context.jobs.submit(
            lambda: schedule.refetch(now, urls=[url]),  # as `recrawl refetch DIR URL`
            lambda done: self._acted(
                url, message if done.due else f"{url} is not made due: the filter chain rejects it"
            ),
            self.context.changes.sig_status.emit,
        )

    def fix_interval(self, url: str, seconds: float | None) -> None:
        now = utcnow()
        message = (
            f"{url}: the schedule decides its interval again"
            if seconds is None
            else f"{url}: interval fixed"
        )
        schedule = self.context.services.schedule
        self.context.jobs.submit(
            lambda: schedule.fix_interval(url, seconds, now),
            lambda _: self._acted(url, message),
            self.context.changes.sig_status.emit,
        )

    def _acted(self, url: str, message: str) -> None:
        self.context.changes.sig_status.emit(message)
        # other panels and this table refresh; the reload selects the page again
        self.context.changes.sig_pages.emit()
        if self.isVisible():
            self.refresh()  # the user's own action: show its effect now
        if self._selected == url and not self.isVisible():
            self.select_url(url)

    def show_content(self, url: str, fetched_at: datetime | None = None) -> None:
        """The payload of the capture of the fetch at ``fetched_at`` (None: the latest)."""
        project_dir = self.context.project.path
        self.context.jobs.submit(
            lambda: page_jobs.page_content(project_dir, url, fetched_at),
            self._content_arrived,
            self.context.changes.sig_status.emit,
        )

    def compare(self, url: str, first: datetime, second: datetime | None) -> None:
        """What changed between the captures of two fetches (``second`` None: between
        ``first``'s and the capture before it), in a diff window."""
        project_dir = self.context.project.path
        self._diff(url, lambda: diff_jobs.fetches_diff(project_dir, url, first, second))

    def show_latest_diff(self, url: str) -> None:
        """What changed on ``url`` at its latest change, in a diff window."""
        project_dir = self.context.project.path
        self._diff(url, lambda: diff_jobs.latest_diff(project_dir, url))

    def _diff(self, url: str, job: Callable[[], diff_jobs.DiffPage]) -> None:
        dialog = self.detail.open_diff(url)

        def done(page: diff_jobs.DiffPage) -> None:
            if self.detail.diff_dialog is dialog:  # not replaced by another meanwhile
                dialog.show_diff(page)

        def failed(message: str) -> None:
            if self.detail.diff_dialog is dialog:
                dialog.show_error(message)

        # reading two payloads and extracting their text takes a while: the long-job lane
        self.context.jobs.compute(job, done, failed)

    def _content_arrived(self, content: Content) -> None:
        self.detail.show_content(content)

    def open_in_browser(self, url: str) -> None:
        if not QDesktopServices.openUrl(QUrl(url)):
            self.context.changes.sig_status.emit(f"no browser could open {url}")

    def open_capture(self, url: str, fetched_at: datetime | None = None) -> None:
        """Open the capture of the fetch at ``fetched_at`` (None: the latest) in the
        browser as it looked, through the project's replay server."""
        project_dir = self.context.project.path
        replay = self.context.replay
        replay.warm()  # pywb loads while the capture is looked up
        self.context.jobs.submit(
            lambda: page_jobs.replay_stamp(project_dir, url, fetched_at),
            lambda stamp: replay.open(stamp, url),
            self.context.changes.sig_status.emit,
        )

    # -- export -----------------------------------------------------------------------

    def _ask_export(self) -> None:
        dialog = QFileDialog(self, "Export pages as CSV", str(Path.home() / "pages.csv"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("CSV files (*.csv)")
        dialog.setDefaultSuffix("csv")
        dialog.fileSelected.connect(lambda path: self.export_csv(Path(path)))
        self.export_dialog = dialog
        dialog.open()

    def export_csv(self, path: Path) -> None:
        """Write the listed pages (current filters and order) to ``path`` in a job."""
        query = self.model.query
        self._exporting = True
        self.export_button.setEnabled(False)
        self.context.changes.sig_status.emit(f"Exporting pages to {path}…")
        self.context.jobs.compute(  # long: its own thread, the table's queries go on
            lambda: page_jobs.export_csv(query, path),
            lambda count: self._exported(path, count),
            self._export_failed,
        )

    def _exported(self, path: Path, count: int) -> None:
        self._exporting = False
        self.export_button.setEnabled(True)
        self.context.changes.sig_status.emit(f"Exported {count:,} pages to {path}")

    def _export_failed(self, message: str) -> None:
        self._exporting = False
        self.export_button.setEnabled(True)
        self.context.changes.sig_status.emit(f"Export failed: {message}")
