"""Table models of the Pages panel: the lazy page listing and one page's fetch history.

:class:`PagesModel` never queries on the GUI thread. It asks the store thread
(``context.jobs``) for the first block of rows and the match count, and for the next
block whenever the view scrolls near the end (``canFetchMore``/``fetchMore``). Sorting
and filtering replace the :class:`~recrawl.core.store.PageQuery` and start over; SQL does the
sorting (``ORDER BY column, id``, paged by key), never Python. Every query carries the generation it
was asked in, and an answer to an older generation is dropped, so a slow block that
arrives after the filters changed never lands in the new listing.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from recrawl.core import store
from recrawl.core.clock import human_duration
from recrawl.core.store import NEVER
from recrawl.core.store.models import PageKind
from recrawl.gui.common import formatting
from recrawl.gui.common.table_model import Column, Index, TableModel
from recrawl.gui.jobs.store_jobs import StoreJobs

#: Rows asked for at a time: a few screens, one quick indexed query.
BLOCK = 500

HEADERS = {
    "url": "URL",
    "status": "Status",
    "first_seen": "First seen",
    "last_fetched": "Last fetched",
    "next_fetch": "Next fetch",
    "fetch_interval": "Interval",
    "content_changed_at": "Changed at",
    "segment": "Segment",
    "score": "Score",
    "discovered_via": "Found via",
    "discovered_from": "Found in",
    "published_at": "Published",
    "kind": "Kind",
}
TIME_COLUMNS = {"first_seen", "last_fetched", "next_fetch", "content_changed_at", "published_at"}
COLUMN_TIPS = {
    "segment": formatting.SEGMENT_TIP,
    "discovered_via": (
        "How the page was first found: seed, link, sitemap, feed or redirect "
        "(embed: what a page embeds)"
    ),
    "discovered_from": "The page, sitemap or feed the page was first found in (an embed: "
    "the page or stylesheet that embeds it)",
    "published_at": (
        "When the page says it was published (else its sitemap's or feed's date); local time"
    ),
    "kind": (
        "page: decided by the filters, fetched on its schedule; embed: what a page needs to "
        "be seen (a style, script, image, font…), fetched with the pages that embed it"
    ),
}

ERROR_BRUSH = QBrush(QColor("#b03a48"))
#: A capture some of whose embeds are missing: drawn in a warning colour, not an error's.
INCOMPLETE_BRUSH = QBrush(QColor("#9a6700"))

#: The raw stored value of a cell (naive UTC datetimes, float seconds), for tests/exports.
RAW_ROLE = Qt.ItemDataRole.UserRole


def _text(column: str, value: Any) -> str:
    if value is None:
        return ""
    if column == "next_fetch" and value >= NEVER:
        return "never"  # filtered: kept, not fetched (policy/filter_reach.py)
    if column == "published_at":
        return formatting.published(value)
    if column in TIME_COLUMNS:
        return formatting.local_time(value)
    if column == "fetch_interval":
        return human_duration(value)
    if column == "score":
        return f"{value:.3g}"
    if column == "segment":
        return formatting.segment_time(value)
    if column == "status":
        return formatting.status_word(value)
    return str(value)


def _counts(query: store.PageQuery) -> tuple[int, int, int]:
    """(rows matching, rows of its kinds, pages in the project): on the store thread."""
    pages = store.page_count()
    if tuple(query.kinds) == (PageKind.PAGE,):
        of_kinds = pages
    else:
        of_kinds = store.count_listing(store.PageQuery(kinds=query.kinds))
    return store.count_listing(query), of_kinds, pages


class PagesModel(TableModel[tuple[Any, ...]]):
    """The pages matching a :class:`~recrawl.core.store.PageQuery`, loaded a block at a time.

    Rows are tuples as the store gives them: :data:`columns`, then the page id.
    """

    #: (matching rows, rows of the kinds listed, pages in the project), when a count arrives.
    sig_counted = Signal(int, int, int)
    #: A query failed (the message is for the status bar).
    sig_failed = Signal(str)
    #: The first block of a new listing arrived.
    sig_loaded = Signal()

    #: The store's names of the columns.
    columns = store.LISTING_COLUMNS
    COLUMNS = tuple(
        Column(
            HEADERS[name],
            tip=COLUMN_TIPS.get(name, "Local time" if name in TIME_COLUMNS else None),
            numeric=name in ("fetch_interval", "score"),
        )
        for name in columns
    )

    def __init__(self, jobs: StoreJobs, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs = jobs
        self._query = store.PageQuery()
        self._generation = 0
        self._pending = False  # a block is on its way
        self._exhausted = True  # nothing asked yet: nothing to fetch
        self.matching: int | None = None
        #: Rows of the kinds listed (pages, embeds or both), whatever the other filters.
        self.total: int | None = None
        #: Pages in the project (embeds not counted).
        self.pages: int | None = None

    # -- the query --------------------------------------------------------------------

    @property
    def query(self) -> store.PageQuery:
        return self._query

    def set_query(self, query: store.PageQuery) -> None:
        self._query = query
        self.reload()

    def set_filters(
        self,
        search: str,
        status: str | None,
        first_seen_since: datetime | None,
        discovered_via: str | None = None,
        kinds: tuple[str, ...] = (PageKind.PAGE,),
    ) -> None:
        query = replace(
            self._query,
            search=search,
            status=status,
            first_seen_since=first_seen_since,
            discovered_via=discovered_via,
            kinds=kinds,
        )
        if query != self._query:
            self.set_query(query)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.columns):
            return
        descending = order == Qt.SortOrder.DescendingOrder
        query = replace(self._query, order_by=self.columns[column], descending=descending)
        if query != self._query:
            self.set_query(query)

    def reload(self) -> None:
        """Start over: forget the rows, ask for the first block and the counts."""
        self._generation += 1
        self._pending = False
        self._exhausted = False
        self.matching = None
        self.set_rows([])
        self._request_block()  # rows first: the count may take longer on a big store
        generation, query = self._generation, self._query
        self._jobs.submit(
            lambda: _counts(query),
            lambda counts: self._counted(generation, counts),
            self._failed,
        )

    # -- lazy loading -----------------------------------------------------------------

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._exhausted and not self._pending

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._request_block()

    def _request_block(self) -> None:
        self._pending = True
        generation, query = self._generation, self._query
        after = None
        if self._rows:  # page by key: (the sort column's value, the id) of the last row
            last = self._rows[-1]
            after = (last[self.columns.index(query.order_by)], last[-1])
        self._jobs.submit(
            lambda: store.listing_rows(query, after, BLOCK),
            lambda rows: self._arrived(generation, rows),
            lambda message: self._block_failed(generation, message),
        )

    def _arrived(self, generation: int, rows: list[tuple[Any, ...]]) -> None:
        if generation != self._generation:
            return  # asked for an older query
        first = not self._rows
        self._pending = False
        self._exhausted = len(rows) < BLOCK
        self.append_rows(rows)
        if first:
            self.sig_loaded.emit()

    def _counted(self, generation: int, counts: tuple[int, int, int]) -> None:
        if generation != self._generation:
            return
        self.matching, self.total, self.pages = counts
        self.sig_counted.emit(*counts)

    def _block_failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self._pending = False
            self._exhausted = True  # don't hammer a failing query; a reload tries again
        self._failed(message)

    def _failed(self, message: str) -> None:
        self.sig_failed.emit(message)

    # -- the table --------------------------------------------------------------------

    def cell(self, row: tuple[Any, ...], column: int, role: int) -> Any:
        name = self.columns[column]
        value = row[column]
        if role == Qt.ItemDataRole.DisplayRole:
            return _text(name, value)
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "published_at" and value is not None:
                return formatting.published_tip(value)
            if name in TIME_COLUMNS and value is not None:
                return formatting.local_time(value, seconds=True) + " (local time)"
            if name == "url":
                return value
            if name == "segment" and value is not None:
                return formatting.segment_tip(value)
        if role == RAW_ROLE:
            return value
        return None

    def url_at(self, row: int) -> str | None:
        return self._rows[row][0] if 0 <= row < len(self._rows) else None

    def row_of(self, url: str) -> int | None:
        for row, values in enumerate(self._rows):
            if values[0] == url:
                return row
        return None


# -- one page's fetch history -----------------------------------------------------------

#: A fetch event as the detail shows it (store.history, as plain values).
HISTORY_COLUMNS = (
    "fetched_at",
    "http_status",
    "error",
    "change",
    "embeds",
    "interval_before",
    "interval_after",
    "segment",
)
HISTORY_HEADERS = (
    "Fetched at",
    "HTTP",
    "Error",
    "Change",
    "Embeds",
    "Interval",  # short: the history fits beside the plot (the tips say more)
    "New interval",
    "Segment",
)
#: A history row: the columns, then what the Embeds column and the missing list read.
HISTORY_FIELDS = (*HISTORY_COLUMNS, "embeds_missing_count", "embeds_missing")
#: The history column with why a fetch failed (``recrawl history``'s ``error``).
ERROR_COLUMN = HISTORY_COLUMNS.index("error")
#: The history column with what the capture got of its embeds (docs/design.md §14).
EMBEDS_COLUMN = HISTORY_COLUMNS.index("embeds")
MISSING_COUNT = HISTORY_FIELDS.index("embeds_missing_count")
MISSING = HISTORY_FIELDS.index("embeds_missing")
HISTORY_TIPS = {
    "fetched_at": "Local time",
    "segment": formatting.SEGMENT_TIP,
    "error": "Why the fetch failed or was cut",
    "interval_before": "The revisit interval the page had before this fetch",
    "interval_after": "The interval this fetch set: the time until the next one",
    "embeds": (
        "What the capture got of what the page embeds (styles, scripts, images, fonts…): "
        "archived/all. Empty: not known (not a page capture, made before Recrawl archived "
        "embeds, or the crawl stopped first). Select a fetch to see what is missing and why"
    ),
}


def missing_count(row: tuple[Any, ...]) -> int:
    """How many of the row's capture's embeds are missing (0 when not known)."""
    return int(row[MISSING_COUNT] or 0) if row[EMBEDS_COLUMN] is not None else 0


class HistoryModel(TableModel[tuple[Any, ...]]):
    """One page's fetch events, oldest first; rows are tuples of :data:`HISTORY_FIELDS`."""

    COLUMNS = tuple(
        Column(title, tip=HISTORY_TIPS.get(name), numeric=name == "embeds")
        for name, title in zip(HISTORY_COLUMNS, HISTORY_HEADERS, strict=True)
    )

    def cell(self, row: tuple[Any, ...], column: int, role: int) -> Any:
        name = HISTORY_COLUMNS[column]
        value = row[column]
        if role == RAW_ROLE:
            return value
        if name == "embeds":
            return self._embeds(row, role)
        if role == Qt.ItemDataRole.ToolTipRole and name == "error":
            return value
        if role == Qt.ItemDataRole.ToolTipRole and name == "segment" and value is not None:
            return formatting.segment_tip(value)
        if role == Qt.ItemDataRole.ForegroundRole and name == "error":
            return ERROR_BRUSH
        if role == Qt.ItemDataRole.DisplayRole:
            if value is None:
                return ""
            if name == "fetched_at":
                return formatting.local_time(value, seconds=True)
            if name.startswith("interval"):
                return human_duration(value)
            if name == "segment":
                return formatting.segment_time(value)
            return str(value)
        return None

    def _embeds(self, row: tuple[Any, ...], role: int) -> Any:
        archived, missing = row[EMBEDS_COLUMN], missing_count(row)
        if role == Qt.ItemDataRole.DisplayRole:
            return formatting.completeness(archived, missing)
        if archived is None:
            return None
        if role == Qt.ItemDataRole.ForegroundRole and missing:
            return INCOMPLETE_BRUSH
        if role == Qt.ItemDataRole.FontRole and missing:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            if not archived and not missing:
                return "The page embeds nothing"
            if not missing:
                return f"All {archived:,} embeds archived"
            return (
                f"{missing:,} of {archived + missing:,} embeds missing: select the fetch to "
                "see which and why"
            )
        return None


class MissingModel(TableModel[tuple[str, str]]):
    """The embeds one capture is missing, as (url, reason) in the order the page names them."""

    COLUMNS = (
        Column("Missing embed"),
        Column("Why", tip="Why the embed is not archived with this capture"),
    )

    def cell(self, row: tuple[str, str], column: int, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, RAW_ROLE):
            return row[column]
        return None
