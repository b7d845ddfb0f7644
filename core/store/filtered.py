"""Filtered pages (docs/design.md §10): known pages the chain now rejects, kept but never fetched.

A filtered page keeps its captures and history; its status is ``filtered`` and its next
fetch :data:`NEVER`, so no due query meets it. Why it is filtered is written where "why
was X never crawled" looks: its rejected-links row holds the deciding filter's name and
rule line, and ``first_seen`` there is when the chain that filtered it was applied. A
page that comes back is ``unfetched`` and due at once, and that row is gone.

The policy layer decides which pages (:mod:`recrawl.core.policy.filter_reach`); these are
its reads and its batched writes, each of one statement per batch (executemany).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from peewee import fn
from recrawl.core.store.models import DB, Page, PageKind, PageStatus, RejectedLink
from recrawl.core.store.sql import chunks, executemany

#: The next fetch of a page that is never fetched again (filtered: the chain rejects it).
NEVER = datetime(9999, 1, 1)
_PAGES = Page.kind == PageKind.PAGE


@dataclass(frozen=True, slots=True)
class KnownPage:
    """A page as the chain is applied to it: its URL, and whether and why it is filtered."""

    id: int
    url: str
    filtered: bool
    #: The rejected-links row of a filtered page (filter name, rule line), if it has one.
    record: tuple[str, int | None] | None


def known_pages_block(
    after: int, limit: int, hosts: Sequence[str] | None = None
) -> list[KnownPage]:
    """The next ``limit`` pages by id after ``after``; with ``hosts``, only theirs."""
    # the chain decides pages; embeds have rules of their own, checked as pages embed them
    query = Page.select(Page.id, Page.url, Page.status == PageStatus.FILTERED).where(
        (Page.id > after) & _PAGES
    )
    if hosts is not None:
        query = query.where(Page.host.in_(list(hosts)))
    # the cursor's own rows: peewee's row conversion would cost more than the query
    rows: list[tuple[int, str, int]] = DB.execute(query.order_by(Page.id).limit(limit)).fetchall()
    # the records of the filtered ones only (a join would look up every page's URL)
    records: dict[str, tuple[str, int | None]] = {}
    filtered = [url for _, url, is_filtered in rows if is_filtered]
    for chunk in chunks(filtered):
        found = RejectedLink.select(RejectedLink.url, RejectedLink.filter, RejectedLink.line)
        for url, name, line in found.where(RejectedLink.url.in_(chunk)).tuples().iterator():
            records[url] = (name, line)
    return [
        KnownPage(page_id, url, bool(is_filtered), records.get(url))
        for page_id, url, is_filtered in rows
    ]


def page_urls() -> Iterator[tuple[str, bool]]:
    """Every page's URL, and whether it is filtered (oldest first)."""
    query = (
        Page.select(Page.url, Page.status == PageStatus.FILTERED).where(_PAGES).order_by(Page.id)
    )
    return ((url, bool(filtered)) for url, filtered in query.tuples().iterator())


def count_known_pages(hosts: Sequence[str] | None = None, after: int = 0) -> int:
    query = Page.select().where((Page.id > after) & _PAGES)
    if hosts is not None:
        query = query.where(Page.host.in_(list(hosts)))
    return int(query.count())


def filter_pages(pages: Sequence[tuple[int, str, str, int | None]], now: datetime) -> int:
    """Mark pages (id, url, filter name, rule line) ``filtered``, never due, and record why
    (``now``: when the chain was applied); how many were not filtered before."""
    if not pages:
        return 0
    filtered, never = PageStatus.FILTERED, Page.next_fetch.db_value(NEVER)
    query = Page.update(status=filtered, next_fetch=NEVER).where(
        (Page.id == pages[0][0]) & (Page.status != filtered)
    )
    with DB.atomic():
        changed = executemany(
            query, [[filtered, never, page_id, filtered] for page_id, *_ in pages]
        )
        record_filtered([(url, name, line) for _, url, name, line in pages], now)
    return changed


def record_filtered(records: Sequence[tuple[str, str, int | None]], now: datetime) -> None:
    """Write why pages are filtered (url, filter name, rule line), since ``now``; the
    count of a row a crawl made (the link met before) is kept."""
    if not records:
        return
    url, name, line = records[0]
    query = RejectedLink.insert(
        url=url, filter=name, line=line, first_seen=now, count=0
    ).on_conflict(
        conflict_target=[RejectedLink.url],
        preserve=[RejectedLink.filter, RejectedLink.line, RejectedLink.first_seen],
    )
    stamp = RejectedLink.first_seen.db_value(now)
    executemany(query, [[u, n, ln, stamp, 0] for u, n, ln in records])


def unfilter_pages(pages: Sequence[tuple[int, str]], now: datetime) -> int:
    """Bring filtered pages (id, url) back: ``unfetched``, due ``now``, their record
    gone; how many were filtered."""
    if not pages:
        return 0
    back = 0
    with DB.atomic():
        for chunk in chunks(pages):
            back += (
                Page.update(status=PageStatus.UNFETCHED, next_fetch=now)
                .where(Page.id.in_([page_id for page_id, _ in chunk]))
                .where(Page.status == PageStatus.FILTERED)
                .execute()
            )
            RejectedLink.delete().where(RejectedLink.url.in_([url for _, url in chunk])).execute()
    return back


def filtered_ids(ids: Sequence[int]) -> list[int]:
    """Those of ``ids`` whose pages are filtered."""
    found: list[int] = []
    for chunk in chunks(ids):
        query = Page.select(Page.id).where(
            Page.id.in_(chunk) & (Page.status == PageStatus.FILTERED)
        )
        found.extend(page_id for (page_id,) in query.tuples().iterator())
    return found


def keep_filtered(ids: Sequence[int]) -> None:
    """Put pages back to ``filtered`` and never due (a crawl's fetch of a page filtered
    while the fetch was in flight: the capture is kept, the page stays out)."""
    for chunk in chunks(ids):
        Page.update(status=PageStatus.FILTERED, next_fetch=NEVER).where(
            Page.id.in_(chunk)
        ).execute()


def last_page_id() -> int:
    found = Page.select(fn.MAX(Page.id)).scalar()
    return int(found) if found is not None else 0


def count_filtered() -> int:
    return int(Page.select().where(Page.status == PageStatus.FILTERED).count())
