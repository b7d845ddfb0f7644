"""The What's new panel (docs/design.md §10, issue 13): news newest first, by day and site.

A tree of :class:`~recrawl.gui.news.news_model.NewsModel`: each day says what happened on
how many sites, each site what happened to its pages ("12 new pages on example.org, 3
changed"), and under it the pages themselves, read from the store only when the site
is opened. Filters by kind and site; "Mark all as seen" (unseen rows are bold, and the
panel's entry in the window's list counts them); a double-click on a page asks for its
diff (:attr:`NewsPanel.sig_open_diff`).
"""

from __future__ import annotations

from datetime import date
from functools import partial

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)
from recrawl.core import store
from recrawl.core.store.models import NewsKind
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.context import AppContext
from recrawl.gui.news.news_columns import NewsColumns
from recrawl.gui.news.news_model import NewsModel
from recrawl.gui.news.news_nodes import DayNode, SiteNode
from recrawl.gui.panel import Panel

EMPTY_HINT = (
    "<h3>No news yet</h3>"
    "<p>A site's first crawl shows here as one item, the pages it archived; from then "
    "on, whenever a crawl finds a new page, finds one changed, gone or back, it shows "
    "here, newest first, by day and site. Start a crawl in the <b>Crawl</b> panel "
    "(Ctrl+2).</p>"
)
KIND_FILTERS = (
    ("All kinds", None),
    ("First crawls", NewsKind.BASELINE),
    ("New pages", NewsKind.NEW),
    ("Changed", NewsKind.CHANGED),
    ("Gone", NewsKind.GONE),
    ("Back", NewsKind.BACK),
)
#: A day opens with its sites open when it has at most this many.
OPEN_SITES = 5


class NewsPanel(Panel):
    title = "What's new"
    key = "news"

    #: A page's news was double-clicked: show what changed on it (its URL, and a changed
    #: item's time: that change, else None: the latest one).
    sig_open_diff = Signal(str, object)
    #: How many news items are unseen, whenever that is counted again.
    sig_unseen = Signal(int)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.model = NewsModel(context.jobs, self)
        #: The days open, and (day, host) of the sites open, kept across reloads.
        self._open_days: set[date] | None = None
        self._open_sites: set[tuple[date, str]] = set()
        #: (day, host) of every site listed when the open ones were noted.
        self._known_sites: set[tuple[date, str]] = set()
        #: The listing shown opens as new (its newest day and that day's sites).
        self._first_time = True

        self.kind = QComboBox()
        for text, kind in KIND_FILTERS:
            self.kind.addItem(text, kind)
        self.site = QComboBox()
        self.site.addItem("All sites", None)
        self.site.setMinimumContentsLength(18)
        self.count_label = QLabel("")
        self.count_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.seen_button = QPushButton("Mark all as seen")
        self.seen_button.setToolTip(
            "Unseen news is bold; this makes what is listed seen (of the kind and on the "
            "site chosen beside)"
        )
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setShortcut("F5")
        self.refresh_button.setToolTip("Query the store again (F5)")
        bar = FlowLayout()  # wraps in a narrow window
        bar.addWidget(self.kind)
        bar.addWidget(self.site)
        bar.addSpacing(12)
        bar.addWidget(self.count_label, 1)
        bar.addWidget(self.seen_button)
        bar.addWidget(self.refresh_button)

        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)  # a million rows lay out without measuring
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setExpandsOnDoubleClick(True)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.columns = NewsColumns(self.tree, self.model)

        self.listing = QWidget()
        listing_layout = QVBoxLayout(self.listing)
        listing_layout.setContentsMargins(0, 0, 0, 0)
        listing_layout.addLayout(bar)
        listing_layout.addWidget(self.tree, 1)
        self.hint = QLabel(EMPTY_HINT)
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.hint.setObjectName("first-run-hint")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.listing)
        self.stack.addWidget(self.hint)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack)

        self.kind.currentIndexChanged.connect(lambda _: self._apply_filters())
        self.site.activated.connect(lambda _: self._apply_filters())
        self.seen_button.clicked.connect(self.mark_all_seen)
        self.refresh_button.clicked.connect(self.refresh)
        self.model.sig_loaded.connect(self._loaded_days)
        self.model.sig_sites_loaded.connect(self._loaded_sites)
        self.model.sig_failed.connect(self.context.changes.sig_status)
        self.model.rowsInserted.connect(lambda *_: self._load_visible_more())
        self.tree.expanded.connect(self._expanded)
        self.tree.doubleClicked.connect(self._double_clicked)
        self.tree.verticalScrollBar().valueChanged.connect(lambda _: self._load_visible_more())
        self.context.changes.sig_pages.connect(self._news_changed)
        self.count_unseen()  # the window's list shows it before the panel is opened

    # -- panel ------------------------------------------------------------------------

    def query(self) -> None:
        """Query again; the days and sites open stay open."""
        if self.model.days:
            self._remember_open()
        self.model.reload()

    def reading(self) -> bool:
        return self.tree.verticalScrollBar().value() > 0

    def show_stale(self, stale: bool) -> None:
        self.refresh_button.setText("Refresh (new news)" if stale else "Refresh")

    def _news_changed(self) -> None:
        """A crawl round (or another change) may have written news."""
        self.count_unseen()
        self.changed()

    def count_unseen(self) -> None:
        self.context.jobs.submit(store.unseen_news_count, self._unseen_counted)

    def _unseen_counted(self, unseen: int) -> None:
        self.sig_title.emit(f"{self.title} ({unseen:,})" if unseen else self.title)
        self.sig_unseen.emit(unseen)

    # -- filters ----------------------------------------------------------------------

    def _apply_filters(self) -> None:
        self.queried = True
        self._open_days, self._open_sites = None, set()  # a new view: it opens as new
        self.model.set_filter(
            store.NewsFilter(kind=self.kind.currentData(), host=self.site.currentData())
        )

    def _fill_sites(self, hosts: list[str]) -> None:
        chosen = self.site.currentData()
        self.site.blockSignals(True)
        self.site.clear()
        self.site.addItem("All sites", None)
        for host in hosts:
            self.site.addItem(host, host)
        self.site.setCurrentIndex(max(0, self.site.findData(chosen)) if chosen else 0)
        self.site.blockSignals(False)

    # -- the tree ---------------------------------------------------------------------

    def _loaded_days(self) -> None:
        model = self.model
        self._fill_sites(model.hosts)
        filtered = model.where != store.NewsFilter()
        self.stack.setCurrentWidget(self.hint if not model.days and not filtered else self.listing)
        self._show_counts()
        self._unseen_counted(model.unseen)
        open_days = self._open_days or set()
        # the first listing, or none of the days open before is listed (a filter
        # changed): the newest day opens
        self._first_time = not open_days & {day.day for day in model.days}
        for number, day in enumerate(model.days):
            self.tree.setFirstColumnSpanned(day.row, QModelIndex(), True)
            if (self._first_time and number == 0) or day.day in open_days:
                self.tree.expand(model.day_index(day))  # its sites are read, then opened

    def _loaded_sites(self, day_index: QModelIndex) -> None:
        model = self.model
        day = model.day_at(day_index)
        if day is None or not day.sites:
            return
        few = len(day.sites) <= OPEN_SITES
        for site in day.sites:
            site_index = model.site_index(site)
            self.tree.setFirstColumnSpanned(site.row, day_index, True)
            key = (day.day, site.host)
            # an open day's sites open, but for those the reader closed
            opens = few and (self._first_time or key not in self._known_sites)
            if opens or key in self._open_sites:
                self.tree.expand(site_index)

    def _remember_open(self) -> None:
        model = self.model
        self._open_days = {d.day for d in model.days if self.tree.isExpanded(model.day_index(d))}
        self._known_sites = {(d.day, s.host) for d in model.days for s in d.sites or ()}
        self._open_sites = {
            (d.day, s.host)
            for d in model.days
            for s in d.sites or ()
            if self.tree.isExpanded(model.site_index(s))
        }

    def _expanded(self, index: QModelIndex) -> None:
        site = self.model.site_at(index)
        if site is not None and site.items:
            self._load_visible_more()

    def _load_visible_more(self) -> None:
        """Read the next block of every open site whose "N more…" row is in view."""
        viewport = self.tree.viewport().rect()
        for day in self.model.days:
            if not day.sites or not self.tree.isExpanded(self.model.day_index(day)):
                continue
            for site in day.sites:
                if not site.items or not site.more or site.pending:
                    continue
                site_index = self.model.site_index(site)
                if not self.tree.isExpanded(site_index):
                    continue
                more = self.model.index(len(site.items), 0, site_index)
                if self.tree.visualRect(more).intersects(viewport):
                    self.model.fetch_next(site)

    def _double_clicked(self, index: QModelIndex) -> None:
        item = self.model.item_at(index)
        if item is not None:
            # a changed item opens its own change, not the page's latest one
            self.sig_open_diff.emit(item.url, item.at if item.kind == "changed" else None)
            return
        site = self.model.more_of(index)
        if site is not None:
            self.model.fetch_next(site)

    # -- seen -------------------------------------------------------------------------

    def mark_all_seen(self) -> None:
        """Mark the news listed as seen: of the kind and on the site the filters show,
        and not what a crawl wrote since the listing."""
        self.seen_button.setEnabled(False)
        self.context.jobs.submit(
            partial(mark_listed_seen, self.model.where, self.model.newest),
            self._marked,
            self._mark_failed,
        )

    def _marked(self, answer: tuple[store.SeenMarks, int]) -> None:
        marks, unseen = answer
        self.model.set_marks(marks, unseen)
        self._show_counts()
        # what a crawl wrote since the listing, and what the filters hide, is unseen
        self._unseen_counted(unseen)
        self.context.changes.sig_news.emit()  # the tray counts them too

    def _mark_failed(self, message: str) -> None:
        self._show_counts()
        self.context.changes.sig_status.emit(message)

    def _show_counts(self) -> None:
        model = self.model
        total = sum(day.total for day in model.days)
        shown = f"{total:,} item{'s' if total != 1 else ''}"
        unseen = model.listed_unseen
        self.count_label.setText(f"{shown}, {unseen:,} unseen" if unseen else shown)
        self.seen_button.setEnabled(unseen > 0)

    # -- for the window and tests -----------------------------------------------------

    def site_node(self, day: date, host: str) -> SiteNode | None:
        for node in self.model.days:
            if node.day == day:
                return next((s for s in node.sites or () if s.host == host), None)
        return None

    def day_node(self, day: date) -> DayNode | None:
        return next((node for node in self.model.days if node.day == day), None)


def mark_listed_seen(where: store.NewsFilter, newest: int | None) -> tuple[store.SeenMarks, int]:
    """Runs on the store thread: mark what ``where`` lists up to ``newest`` as seen; the
    marks now, and how many items are left unseen."""
    with store.transaction():
        store.mark_news_seen(newest, kind=where.kind, host=where.host)
        return store.seen_marks(), store.unseen_news_count()
