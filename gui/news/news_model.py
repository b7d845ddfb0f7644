"""The What's new panel's tree: days, each day's sites, each site's news items, newest first.

The days come from one query (item counts by day and kind: a row or four a day); a
day's sites (counts by site and kind) are read when the day is opened, and a site's
items when the site is opened, a block at a time, the next block when the row saying
how many are left comes into view (:meth:`NewsModel.fetch_next`). So a store of 100,000
items on hundreds of sites lists its days at once, however its news is spread. Every
query runs on the store thread (``context.jobs``) and carries the generation it was
asked in: an answer to an older generation (the filters changed meanwhile) is dropped.
The tree's nodes and what their rows say: :mod:`recrawl.gui.news.news_nodes`.

Rows are addressed by their parent: an index's ``internalId`` is the key of the node
above it (0 for a day), so no Python object has to live inside a QModelIndex.
"""

from __future__ import annotations

import itertools
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from recrawl.core import store
from recrawl.core.store.models import NewsKind
from recrawl.core.words import plural
from recrawl.gui.common import formatting
from recrawl.gui.common.table_model import Index
from recrawl.gui.jobs.store_jobs import StoreJobs
from recrawl.gui.news.news_nodes import (
    DayNode,
    Overview,
    SiteNode,
    day_title,
    local_offset_minutes,
    overview,
    summary,
)

#: Items asked for at a time under one site.
BLOCK = 200
COLUMNS = ("What's new", "Kind", "At", "Published", "URL")
#: The page's title (its URL when it has none); day and site rows span the columns.
TITLE_COLUMN = 0
KIND_COLUMN = COLUMNS.index("Kind")
#: The item's time (local), in the columns above.
AT_COLUMN = COLUMNS.index("At")
#: When the item's page was published and first seen (docs/design.md §11).
PUBLISHED_COLUMN = COLUMNS.index("Published")
#: The URL's path last (the site row above says the host; the tooltip has it whole): it
#: is in the first column's tooltip too, and gives way first.
URL_COLUMN = COLUMNS.index("URL")
#: The URL an item row stands for (None on group rows).
URL_ROLE = Qt.ItemDataRole.UserRole

KIND_LABELS = {
    NewsKind.BASELINE: "first crawl",
    NewsKind.NEW: "new",
    NewsKind.CHANGED: "changed",
    NewsKind.GONE: "gone",
    NewsKind.BACK: "back",
}
KIND_COLORS = {
    NewsKind.BASELINE: QBrush(QColor("#6a4c93")),
    NewsKind.NEW: QBrush(QColor("#2e7d32")),
    NewsKind.CHANGED: QBrush(QColor("#1565c0")),
    NewsKind.GONE: QBrush(QColor("#b03a48")),
    NewsKind.BACK: QBrush(QColor("#00796b")),
}
MORE_BRUSH = QBrush(QColor("#6b7780"))
#: A changed item's summary in its tooltip: lines at most, characters a line at most.
TIP_LINES = 12
TIP_WIDTH = 160


class NewsModel(QAbstractItemModel):
    """Days → sites → items of the news matching a :class:`~recrawl.core.store.NewsFilter`."""

    #: A new listing's days arrived (the panel opens the newest day, fills filters).
    sig_loaded = Signal()
    #: A day's sites arrived (its row index: the panel opens those it should).
    sig_sites_loaded = Signal(QModelIndex)
    #: A query failed (the message is for the status bar).
    sig_failed = Signal(str)

    def __init__(self, jobs: StoreJobs, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs = jobs
        self._where = store.NewsFilter()
        self._generation = 0
        self._keys = itertools.count(1)
        self._nodes: dict[int, DayNode | SiteNode] = {}
        self.days: list[DayNode] = []
        self.marks = store.SeenMarks()
        self.newest: int | None = None
        self.hosts: list[str] = []
        #: Unseen items in all the news, listed or not (the panel's entry counts them).
        self.unseen = 0
        self.offset_minutes = local_offset_minutes()
        self.today = date.today()

    # -- the query ----------------------------------------------------------------------

    @property
    def where(self) -> store.NewsFilter:
        return self._where

    def set_filter(self, where: store.NewsFilter) -> None:
        if where != self._where:
            self._where = where
            self.reload()

    def reload(self) -> None:
        """Start over: forget the tree, ask for the groups of the current filter."""
        self._generation += 1
        generation, where = self._generation, self._where
        self.offset_minutes = local_offset_minutes()
        self.today = date.today()
        offset = self.offset_minutes
        self._jobs.submit(
            lambda: overview(where, offset),
            lambda answer: self._arrived(generation, answer),
            self.sig_failed.emit,
        )

    def _arrived(self, generation: int, answer: Overview) -> None:
        if generation != self._generation:
            return
        self.beginResetModel()
        self._nodes.clear()
        self.days = []
        for found in answer.days:  # newest first
            day = DayNode(
                next(self._keys), len(self.days), found.day, found.counts, found.unseen, found.sites
            )
            self.days.append(day)
            self._nodes[day.key] = day
        self.hosts, self.unseen, self.marks = answer.hosts, answer.unseen, answer.marks
        self.newest = answer.newest
        self.endResetModel()
        self.sig_loaded.emit()

    @property
    def listed_unseen(self) -> int:
        """Unseen items among those the filters list."""
        return sum(day.unseen for day in self.days)

    def set_marks(self, marks: store.SeenMarks, unseen: int) -> None:
        """What is listed is seen (up to ``newest``): no row is bold any more; ``unseen``
        is what is left unseen in all the news."""
        self.marks, self.unseen = marks, unseen
        for day in self.days:
            day.unseen = 0
            for site in day.sites or ():
                site.unseen = 0
        self._changed(QModelIndex())
        for day in self.days:  # the rows under them too: one signal per list shown
            if day.sites:
                self._changed(self.day_index(day))
                for site in day.sites:
                    self._changed(self.site_index(site))

    def _changed(self, parent: QModelIndex) -> None:
        rows = self.rowCount(parent)
        if rows:
            bottom = self.index(rows - 1, len(COLUMNS) - 1, parent)
            self.dataChanged.emit(self.index(0, 0, parent), bottom)

    # -- lazy loading -------------------------------------------------------------------

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        # A day's sites, a site's first block: the view asks again after every block
        # it gets, which would read a site of 10,000 items whole. The next blocks come
        # when the row saying how many are left is in view (fetch_next).
        day = self.day_at(parent)
        if day is not None:
            return day.sites is None and not day.pending
        site = self.site_at(parent)
        return site is not None and site.more and not site.pending and not site.items

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        day = self.day_at(parent)
        if day is not None:
            self._fetch_sites(day)
        site = self.site_at(parent)
        if site is not None:
            self.fetch_next(site)

    def _fetch_sites(self, day: DayNode) -> None:
        day.pending = True
        since, until = store.day_bounds(day.day, self.offset_minutes)
        where = store.NewsFilter(since, until, self._where.kind, self._where.host)
        generation, offset = self._generation, self.offset_minutes
        self._jobs.submit(
            lambda: store.news_groups(where, offset),
            lambda groups: self._sites_arrived(generation, day, groups),
            lambda message: self._sites_failed(generation, day, message),
        )

    def _sites_arrived(self, generation: int, day: DayNode, groups: list[store.NewsGroup]) -> None:
        if generation != self._generation:
            return
        day.pending = False
        sites: dict[str, SiteNode] = {}
        for group in groups:  # sites by name
            site = sites.get(group.host)
            if site is None:
                site = sites[group.host] = SiteNode(next(self._keys), day, len(sites), group.host)
                self._nodes[site.key] = site
            site.counts[group.kind] = group.count
            site.unseen += group.unseen
        parent = self.day_index(day)
        if sites:
            self.beginInsertRows(parent, 0, len(sites) - 1)
        day.sites = list(sites.values())
        if sites:
            self.endInsertRows()
        self.sig_sites_loaded.emit(parent)

    def _sites_failed(self, generation: int, day: DayNode, message: str) -> None:
        if generation == self._generation:
            day.pending = False
        self.sig_failed.emit(message)

    def fetch_next(self, site: SiteNode) -> None:
        """Read the site's next block of items (on the store thread)."""
        if not site.more or site.pending:
            return
        site.pending = True
        since, until = store.day_bounds(site.day.day, self.offset_minutes)
        where = store.NewsFilter(since, until, self._where.kind, site.host)
        last = site.items[-1] if site.items else None
        after = (last.at, last.id) if last is not None else None
        generation = self._generation
        self._jobs.submit(
            lambda: store.news_items(where, after, BLOCK),
            lambda items: self._items_arrived(generation, site, items),
            lambda message: self._items_failed(generation, site, message),
        )
        if site.items:  # the "more" row now says it is loading
            more = self.index(len(site.items), 0, self.site_index(site))
            self.dataChanged.emit(more, more)

    def _items_arrived(self, generation: int, site: SiteNode, items: list[store.NewsItem]) -> None:
        if generation != self._generation:
            return
        site.pending = False
        parent = self.site_index(site)
        had_more = site.more
        start = len(site.items)
        site.exhausted = len(items) < BLOCK
        if items:
            self.beginInsertRows(parent, start, start + len(items) - 1)
            site.items.extend(items)
            self.endInsertRows()
        if had_more and not site.more:  # the "more" row goes
            row = len(site.items)
            self.beginRemoveRows(parent, row, row)
            self.endRemoveRows()
        elif site.more:
            more = self.index(len(site.items), 0, parent)
            self.dataChanged.emit(more, more)

    def _items_failed(self, generation: int, site: SiteNode, message: str) -> None:
        if generation == self._generation:
            site.pending = False
        self.sig_failed.emit(message)

    # -- addressing ---------------------------------------------------------------------

    def site_at(self, index: Index) -> SiteNode | None:
        """The site of a site row."""
        if not index.isValid():
            return None
        parent = self._nodes.get(index.internalId())
        if isinstance(parent, DayNode) and parent.sites and 0 <= index.row() < len(parent.sites):
            return parent.sites[index.row()]
        return None

    def day_at(self, index: Index) -> DayNode | None:
        if index.isValid() and index.internalId() == 0 and 0 <= index.row() < len(self.days):
            return self.days[index.row()]
        return None

    def item_at(self, index: Index) -> store.NewsItem | None:
        if not index.isValid():
            return None
        parent = self._nodes.get(index.internalId())
        if isinstance(parent, SiteNode) and 0 <= index.row() < len(parent.items):
            return parent.items[index.row()]
        return None

    def more_of(self, index: Index) -> SiteNode | None:
        """The site whose "more" row ``index`` is."""
        parent = self._nodes.get(index.internalId()) if index.isValid() else None
        if isinstance(parent, SiteNode) and parent.more and index.row() == len(parent.items):
            return parent
        return None

    def site_index(self, site: SiteNode) -> QModelIndex:
        return self.createIndex(site.row, 0, site.day.key)

    def day_index(self, day: DayNode) -> QModelIndex:
        return self.createIndex(day.row, 0, 0)

    # -- Qt's tree surface --------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not 0 <= column < len(COLUMNS) or row < 0 or row >= self.rowCount(parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0)
        day = self.day_at(parent)
        if day is not None:
            return self.createIndex(row, column, day.key)
        site = self.site_at(parent)
        if site is not None:
            return self.createIndex(row, column, site.key)
        return QModelIndex()

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008  # Qt's two parent()s in one
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        node = self._nodes.get(index.internalId())
        if isinstance(node, DayNode):
            return self.createIndex(node.row, 0, 0)
        if isinstance(node, SiteNode):
            return self.createIndex(node.row, 0, node.day.key)
        return QModelIndex()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self.days)
        if parent.column() != 0:
            return 0
        day = self.day_at(parent)
        if day is not None:
            return len(day.sites or ())
        site = self.site_at(parent)
        if site is not None:
            return len(site.items) + (1 if site.more else 0)
        return 0

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if not parent.isValid():
            return bool(self.days)
        if parent.column() != 0:
            return False
        day = self.day_at(parent)
        if day is not None:
            return day.total > 0  # its sites are read when it opens
        site = self.site_at(parent)
        return site is not None and site.total > 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section] if 0 <= section < len(COLUMNS) else None
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            if section == PUBLISHED_COLUMN:
                return (
                    "When the page says it was published (else its sitemap's or feed's "
                    "date), when the crawl first saw it, and the delay between them"
                )
            return "Local time" if section == AT_COLUMN else None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        day = self.day_at(index)
        if day is not None:
            return self._group_data(index.column(), role, self._day_text(day), day.unseen)
        site = self.site_at(index)
        if site is not None:
            text = summary(site.counts, f" on {site.host}")
            return self._group_data(index.column(), role, text, site.unseen)
        item = self.item_at(index)
        if item is not None:
            return self._item_data(item, index.column(), role)
        if self.more_of(index) is not None:
            return self._more_data(index, role)
        return None

    def _day_text(self, day: DayNode) -> str:
        sites = day.site_count
        where = f" on {sites:,} site{'s' if sites != 1 else ''}"
        return f"{day_title(day.day, self.today)} — {summary(day.counts)}{where}"

    @staticmethod
    def _group_data(column: int, role: int, text: str, unseen: int) -> Any:
        if column != 0:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{text} ({unseen:,} unseen)" if unseen else text
        if role == Qt.ItemDataRole.FontRole and unseen:
            return _bold()
        return None

    def _item_data(self, item: store.NewsItem, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                item_text(item),
                KIND_LABELS.get(item.kind, item.kind),
                formatting.local_time(item.at, seconds=True),
                self._published(item),
                url_path(item.url),
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == PUBLISHED_COLUMN:
                return _published_tip(item)
            return item_tip(item) if column in (0, URL_COLUMN) else None
        if role == Qt.ItemDataRole.ForegroundRole and column == KIND_COLUMN:
            return KIND_COLORS.get(item.kind)
        if role == Qt.ItemDataRole.FontRole and store.is_unseen(item, self.marks):
            return _bold()
        if role == URL_ROLE:
            return item.url
        return None

    def _published(self, item: store.NewsItem) -> str:
        if item.published_at is None:
            return ""
        return formatting.published_and_seen(item.published_at, item.first_seen, self.today)

    def _more_data(self, index: Index, role: int) -> Any:
        site = self._nodes.get(index.internalId())
        if not isinstance(site, SiteNode) or index.column() != 0:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if site.pending:
                return "Loading…"
            left = site.total - len(site.items)
            return f"{left:,} more…"
        if role == Qt.ItemDataRole.ForegroundRole:
            return MORE_BRUSH
        return None


def url_path(url: str) -> str:
    """``/library/functions.html?x=1``: what a URL names on its host."""
    parts = urlsplit(url)
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def item_text(item: store.NewsItem) -> str:
    """An item row's first column: the page's title (else its URL); a baseline's what
    its host's first crawl archived (docs/design.md §15), while under way and once done."""
    if item.kind != NewsKind.BASELINE:
        return item.title or item.url
    archived = f"{plural(item.pages or 0, 'page')} archived"
    if item.complete:
        return f"First crawl of {item.host}: {archived}"
    return f"First crawl of {item.host} under way: {archived} so far"


def item_tip(item: store.NewsItem) -> str:
    """An item row's tooltip: its URL; a changed item's also what changed (its diff's
    first lines) and the change rule that judged it (docs/design.md §17)."""
    parts = [item.url]
    if item.summary:
        lines = item.summary.splitlines()
        shown = [_cut(line) for line in lines[:TIP_LINES]]
        if len(lines) > TIP_LINES:
            shown.append(f"… {plural(len(lines) - TIP_LINES, 'more line')}")
        parts.append("What changed:\n" + "\n".join(shown))
    if item.rule:
        parts.append(f"Judged by the change rule on {item.rule}")
    return "\n\n".join(parts)


def _cut(line: str) -> str:
    return line if len(line) <= TIP_WIDTH else line[: TIP_WIDTH - 1] + "…"


def _published_tip(item: store.NewsItem) -> str | None:
    if item.published_at is None:
        return None
    return (
        f"Published {formatting.published_tip(item.published_at)}\n"
        f"First seen {formatting.local_time(item.first_seen, seconds=True)} (local time)"
    )


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font
