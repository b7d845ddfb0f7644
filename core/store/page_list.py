"""The page listing the GUI browses (docs/design.md §9): filtered and sorted in SQL, read in
blocks by key so that a million pages page as quickly as a hundred.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from peewee import Expression, Field, ModelSelect
from recrawl.core.errors import StoreError
from recrawl.core.store.models import Page, PageKind
from recrawl.core.store.sql import is_server_store, url_contains

#: The columns of a page listing, as ``recrawl urls`` prints them.
LISTING_COLUMNS = (
    "url",
    "status",
    "first_seen",
    "last_fetched",
    "next_fetch",
    "fetch_interval",
    "content_changed_at",
    "segment",
    "score",
    "discovered_via",
    "discovered_from",
    "published_at",
    "kind",
)


@dataclass(frozen=True)
class PageQuery:
    """One filtered, sorted view of the pages; sorting and filtering happen in SQL."""

    search: str = ""  # a substring of the URL
    status: str | None = None
    first_seen_since: datetime | None = None
    #: How the pages were first found (:class:`~recrawl.core.store.models.DiscoveredVia`).
    discovered_via: str | None = None
    #: Pages, embeds, or both (:class:`~recrawl.core.store.models.PageKind`; docs/design.md §14).
    kinds: tuple[str, ...] = (PageKind.PAGE,)
    order_by: str = "first_seen"
    descending: bool = False


def count_listing(query: PageQuery) -> int:
    """How many pages match ``query``'s filters."""
    return _listing(query, ("url",)).count()


def listing_rows(
    query: PageQuery, after: tuple[Any, int] | None, limit: int
) -> list[tuple[Any, ...]]:
    """The next block of matching pages: tuples of :data:`LISTING_COLUMNS` plus the id.

    ``after`` is the (sort value, id) of the last row already shown, None for the first
    block. Paging by key, not OFFSET, keeps the thousandth block as quick as the first:
    an OFFSET query sorts and skips every row before it again.
    """
    select = _ordered(query, (*LISTING_COLUMNS, "id"))
    if after is not None:
        select = select.where(_after(_column(query.order_by), query.descending, *after))
    return list(select.limit(limit).tuples().iterator())


def iter_listing(query: PageQuery) -> Iterator[tuple[Any, ...]]:
    """Every matching page, streamed (for exports)."""
    return _ordered(query, LISTING_COLUMNS).tuples().iterator()


def _column(name: str) -> Field[Any]:
    column: Field[Any] = getattr(Page, name)
    return column


def _listing(query: PageQuery, columns: Sequence[str]) -> ModelSelect[Page]:
    if query.order_by not in LISTING_COLUMNS:
        raise StoreError(f"internal: cannot sort pages by {query.order_by!r}")
    select = Page.select(*(_column(name) for name in columns))
    if tuple(query.kinds) != PageKind.ALL:
        select = select.where(Page.kind.in_(list(query.kinds)))
    if query.search:
        select = select.where(url_contains(Page.url, query.search))
    if query.status:
        select = select.where(Page.status == query.status)
    if query.first_seen_since is not None:
        select = select.where(Page.first_seen >= query.first_seen_since)
    if query.discovered_via:
        select = select.where(Page.discovered_via == query.discovered_via)
    return select


def _ordered(query: PageQuery, columns: Sequence[str]) -> ModelSelect[Page]:
    column = _column(query.order_by)
    # the id breaks ties, so pages never repeat or go missing between blocks; NULL first
    # ascending as SQLite sorts it (PostgreSQL sorts it last unless told: _after counts on it)
    first: Any
    if is_server_store():
        first = column.desc(nulls="LAST") if query.descending else column.asc(nulls="FIRST")
    else:
        first = column.desc() if query.descending else column
    order = (first, Page.id.desc()) if query.descending else (first, Page.id)
    return _listing(query, columns).order_by(*order)


def _after(column: Field[Any], descending: bool, value: object, page_id: int) -> Expression:
    """Rows past (value, id) in ``ORDER BY column, id``; SQL sorts NULL first ascending."""
    if not descending:
        if value is None:
            return (column.is_null() & (Page.id > page_id)) | column.is_null(False)
        return (column > value) | ((column == value) & (Page.id > page_id))
    if value is None:
        return column.is_null() & (Page.id < page_id)
    return (column < value) | ((column == value) & (Page.id < page_id)) | column.is_null()
