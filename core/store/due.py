"""When pages are due: making them due now (refetch), and the rows a schedule re-plans.

A filtered page is never made due here: the chain rejects it, and only a chain that
accepts it brings it back (docs/design.md §10).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from peewee import Expression
from recrawl.core.store.models import Page, PageKind, PageStatus
from recrawl.core.store.sql import chunks, update_pages


@dataclass(frozen=True)
class DueCounts:
    """What making pages due did: of the pages asked for, how many were made due now,
    were due already, or are filtered (left alone)."""

    made_due: int = 0
    already_due: int = 0
    filtered: int = 0
    #: The URLs asked for that the project knows (when URLs were asked for).
    known: frozenset[str] = frozenset()

    def __add__(self, other: DueCounts) -> DueCounts:
        return DueCounts(
            self.made_due + other.made_due,
            self.already_due + other.already_due,
            self.filtered + other.filtered,
            self.known | other.known,
        )


def make_due(urls: Sequence[str], now: datetime) -> DueCounts:
    """The pages (or embeds) of ``urls`` due now; inside the caller's transaction."""
    counts = DueCounts()
    for chunk in chunks(list(dict.fromkeys(urls))):
        chosen = Page.url.in_(list(chunk))
        known = frozenset(page.url for page in Page.select(Page.url).where(chosen))
        counts += _make_due(chosen, now, known)
    return counts


def make_hosts_due(hosts: Sequence[str] | None, now: datetime) -> DueCounts:
    """Every page of ``hosts`` (None: of the project) due now; embeds are fetched with
    the pages that embed them (docs/design.md §14), so they are left as they are."""
    pages = Page.kind == PageKind.PAGE
    if hosts is None:
        return _make_due(pages, now)
    counts = DueCounts()
    for chunk in chunks(list(hosts)):
        counts += _make_due(pages & Page.host.in_(list(chunk)), now)
    return counts


def _make_due(chosen: Expression, now: datetime, known: frozenset[str] = frozenset()) -> DueCounts:
    crawled = chosen & (Page.status != PageStatus.FILTERED)
    filtered = Page.select().where(chosen & (Page.status == PageStatus.FILTERED)).count()
    already = Page.select().where(crawled & (Page.next_fetch <= now)).count()
    moved = Page.update(next_fetch=now).where(crawled & (Page.next_fetch > now)).execute()
    return DueCounts(int(moved), already, filtered, known)


def crawled_hosts() -> list[str]:
    """The hosts of the pages and embeds still crawled (not filtered)."""
    query = Page.select(Page.host).where(Page.status != PageStatus.FILTERED).distinct()
    return sorted(host for (host,) in query.tuples().iterator())


@dataclass(frozen=True, slots=True)
class PlannedPage:
    """What re-planning a page's next fetch reads of it."""

    id: int
    status: str
    interval: float
    last_fetched: datetime | None
    next_fetch: datetime
    metadata: dict[str, Any]


def intervals_outside(
    hosts: Sequence[str], low: float, high: float, block: int = 5000
) -> Iterator[list[PlannedPage]]:
    """The pages and embeds of ``hosts``, not filtered, whose interval is below ``low``
    or above ``high``, by id in blocks: each block is read whole before it is yielded,
    so the caller may update its pages before asking for the next."""
    outside = Page.fetch_interval < low
    if high != math.inf:  # no bound: no infinity handed to the database
        outside |= Page.fetch_interval > high
    columns = (
        Page.id, Page.status, Page.fetch_interval, Page.last_fetched, Page.next_fetch,
        Page.metadata,
    )  # fmt: skip
    for chunk in chunks(list(hosts)):
        after = 0
        while True:
            query = (
                Page.select(*columns)
                .where(
                    Page.host.in_(list(chunk))
                    & (Page.status != PageStatus.FILTERED)
                    & outside
                    & (Page.id > after)
                )
                .order_by(Page.id)
                .limit(block)
            )
            rows = [
                PlannedPage(
                    row.id,
                    row.status,
                    row.fetch_interval,
                    row.last_fetched,
                    row.next_fetch,
                    row.metadata or {},
                )
                for row in query.objects()
            ]
            if not rows:
                break
            yield rows
            after = rows[-1].id


def plan_pages(plans: Sequence[tuple[int, float, datetime | None]]) -> None:
    """Set pages' intervals, and next fetches where not None: (page id, interval, next
    fetch); inside the caller's transaction."""
    update_pages(
        [
            (page_id, {"fetch_interval": interval} if due is None else
             {"fetch_interval": interval, "next_fetch": due})
            for page_id, interval, due in plans
        ]
    )  # fmt: skip
