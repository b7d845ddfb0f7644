"""Sources: the sitemaps and feeds read for the pages they list (docs/design.md §11).

A source is found (robots.txt, ``/sitemap.xml``, a sitemap index, a page's
``<link rel="alternate">``, injected), falls due on its own schedule, and each reading is
recorded in one transaction with what it found: new pages, child sitemaps, known pages a
newer ``lastmod`` makes due, dates of pages not yet fetched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from peewee import fn
from recrawl.core.store.embeds import promote_linked
from recrawl.core.store.filtered import NEVER
from recrawl.core.store.models import DB, DiscoveredVia, Page, PageStatus, Source
from recrawl.core.store.pages import NewPage, insert_pages
from recrawl.core.store.rejected import record_rejected
from recrawl.core.store.sql import chunks, executemany
from recrawl.core.store.workers import leased_hosts


@dataclass(frozen=True, slots=True)
class NewSource:
    url: str
    kind: str  # SourceKind
    host: str
    #: "robots", "default", "index", "page", "inject" (:class:`Source`).
    found_via: str
    found_from: str | None
    next_fetch: datetime
    fetch_interval: float


@dataclass(frozen=True, slots=True)
class DueSource:
    """A source to read, as plain values (it crosses to the store thread and back)."""

    id: int
    url: str
    kind: str
    host: str
    found_via: str
    found_from: str | None
    fetch_interval: float
    etag: str | None
    last_modified: datetime | None
    entries: int


@dataclass
class SourceReading:
    """What one reading of a source changes; applied by :func:`record_reading`."""

    source_id: int
    #: The source row's new values (next_fetch, fetch_interval, http_status, error, ...).
    fields: dict[str, Any]
    new_pages: list[NewPage] = field(default_factory=list)
    #: Entries the chain turned away: (url, filter name, line).
    rejected: list[tuple[str, str, int | None]] = field(default_factory=list)
    #: Known pages whose ``lastmod`` is newer than their last fetch: due now.
    modified: list[tuple[str, datetime]] = field(default_factory=list)
    #: Dates the source gives pages (for known pages not yet fetched and without one).
    dates: list[tuple[str, datetime]] = field(default_factory=list)
    #: Sitemaps a sitemap index lists.
    children: list[NewSource] = field(default_factory=list)
    #: The ids of known rows the chain accepted: those that were embeds become pages
    #: (docs/design.md §14: as an embed a page links to).
    listed: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """A source as ``recrawl sources`` lists it."""

    url: str
    kind: str
    host: str
    found_via: str
    found_from: str | None
    first_seen: datetime
    last_fetched: datetime | None
    next_fetch: datetime
    fetch_interval: float
    http_status: int | None
    entries: int
    #: Pages first found in it (discovered_from is its URL).
    pages: int
    error: str | None


def insert_sources(sources: Sequence[NewSource], now: datetime) -> int:
    """Add sources not yet known (inside the caller's transaction); returns how many."""
    added = 0
    for chunk in chunks(list({s.url: s for s in sources}.values()), 100):
        rows = [
            {
                "url": s.url,
                "kind": s.kind,
                "host": s.host,
                "found_via": s.found_via,
                "found_from": s.found_from,
                "first_seen": now,
                "next_fetch": s.next_fetch,
                "fetch_interval": s.fetch_interval,
            }
            for s in chunk
        ]
        added += Source.insert_many(rows).on_conflict_ignore().as_rowcount().execute()
    return added


def add_sources(sources: Sequence[NewSource], now: datetime) -> int:
    """:func:`insert_sources` in a transaction of its own."""
    if not sources:
        return 0
    with DB.atomic():
        return insert_sources(sources, now)


def make_sources_due(urls: Sequence[str], now: datetime) -> None:
    """The sources of ``urls`` due now (injected again: the user asked for them)."""
    for chunk in chunks(urls):
        Source.update(next_fetch=now).where(
            Source.url.in_(chunk), Source.next_fetch > now
        ).execute()


def due_sources(now: datetime, limit: int, leased_by: str | None = None) -> list[DueSource]:
    """Sources due now, the longest due first (``leased_by``: of the hosts that worker
    holds)."""
    due = Source.next_fetch <= now
    if leased_by is not None:
        due &= Source.host.in_(leased_hosts(leased_by))
    query = Source.select().where(due).order_by(Source.next_fetch, Source.id).limit(limit)
    return [
        DueSource(
            s.id,
            s.url,
            s.kind,
            s.host,
            s.found_via,
            s.found_from,
            s.fetch_interval,
            s.etag,
            s.last_modified,
            s.entries,
        )
        for s in query
    ]


def source_counts(host: str) -> dict[str, int]:
    """How many sources of each kind ``host`` has."""
    query = (
        Source.select(Source.kind, fn.COUNT(Source.id))
        .where(Source.host == host)
        .group_by(Source.kind)
    )
    return dict(query.tuples().iterator())


def known_sources(urls: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for chunk in chunks(list(dict.fromkeys(urls))):
        query = Source.select(Source.url).where(Source.url.in_(chunk))
        found.update(row[0] for row in query.tuples().iterator())
    return found


def source_parent(url: str) -> tuple[str, str | None] | None:
    """How the source ``url`` was found and from what, or None if it is not one."""
    row = Source.get_or_none(Source.url == url)
    return None if row is None else (row.found_via, row.found_from)


def record_reading(reading: SourceReading, now: datetime) -> int:
    """Apply one reading in one transaction; returns how many new pages it added."""
    with DB.atomic():
        added = insert_pages(reading.new_pages, now) if reading.new_pages else 0
        if reading.listed:
            promote_linked(reading.listed, now)
        record_rejected(reading.rejected, now)
        if reading.children:
            insert_sources(reading.children, now)
        if reading.modified:
            # newer than the last fetch and not due yet: due now (never a filtered page)
            sample_url, sample_at = reading.modified[0]
            query = Page.update(next_fetch=now).where(
                Page.url == sample_url,
                Page.last_fetched < sample_at,
                Page.next_fetch > now,
                Page.status != PageStatus.FILTERED,
            )
            params = [[now, url, at, now, PageStatus.FILTERED] for url, at in reading.modified]
            executemany(query, params)
        if reading.dates:
            # a page's own date comes with its first fetch; until then the source's stands
            sample_url, sample_at = reading.dates[0]
            query = Page.update(published_at=sample_at).where(
                Page.url == sample_url, Page.published_at.is_null(), Page.first_fetched.is_null()
            )
            executemany(query, [[at, url] for url, at in reading.dates])
        Source.update(reading.fields).where(Source.id == reading.source_id).execute()
    return added


def list_sources() -> list[SourceInfo]:
    """Every source, by host then URL, with the pages first found in it."""
    # one pass over the pages found in sources, not one count per source
    query = (
        Page.select(Page.discovered_from, fn.COUNT(Page.id))
        .where(Page.discovered_via.in_([DiscoveredVia.SITEMAP, DiscoveredVia.FEED]))
        .group_by(Page.discovered_from)
    )
    found_in: dict[str, int] = dict(query.tuples().iterator())
    return [
        SourceInfo(
            s.url,
            s.kind,
            s.host,
            s.found_via,
            s.found_from,
            s.first_seen,
            s.last_fetched,
            s.next_fetch,
            s.fetch_interval,
            s.http_status,
            s.entries,
            found_in.get(s.url, 0),
            s.error,
        )
        for s in Source.select().order_by(Source.host, Source.url)
    ]


def earliest_source_fetch() -> datetime | None:
    """The earliest next reading of any source (None: there is none)."""
    value = (
        Source.select(Source.next_fetch)
        .where(Source.next_fetch < NEVER)
        .order_by(Source.next_fetch)
        .limit(1)
        .scalar()
    )
    return Source.next_fetch.python_value(value) if value is not None else None


def next_source_due_at(now: datetime) -> datetime | None:
    """When the next source falls due after ``now`` (None: none will)."""
    value = Source.select(fn.MIN(Source.next_fetch)).where(Source.next_fetch > now).scalar()
    return Source.next_fetch.python_value(value) if value is not None else None
