"""Crawl runs: one row per crawl, written when it starts and completed when it ends.

A project opened later tells from them what the last crawl did and whether it ended:
a run with no end was killed (or is running in another process, its ``pid``); and,
from the pages, when the next crawl has work.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime

from peewee import Case, fn
from recrawl.core.store.filtered import NEVER
from recrawl.core.store.models import CrawlRun, FetchEvent, Page, PageKind, PageStatus, Segment

#: What the engine notes on a page robots.txt kept it from fetching (engine/record.py):
#: such a page was never requested, so it is neither fetched nor an error.
ROBOTS_DENIED_NOTE = "denied by robots.txt"


@dataclass(frozen=True)
class RunCounts:
    rounds: int
    fetched: int
    errors: int
    new_urls: int
    stopped: bool


@dataclass(frozen=True)
class CrawlRunInfo:
    """One crawl run as plain values (they may cross threads)."""

    id: int
    started_at: datetime
    ended_at: datetime | None
    pid: int | None
    rounds: int
    fetched: int
    errors: int
    new_urls: int
    stopped: bool

    @property
    def ended(self) -> bool:
        return self.ended_at is not None


def begin_crawl_run(started_at: datetime) -> int:
    """Record a crawl's start; returns the run's id for :func:`end_crawl_run`."""
    run: CrawlRun = CrawlRun.create(started_at=started_at, pid=os.getpid())
    return int(run.id)


def end_crawl_run(run_id: int, ended_at: datetime, counts: RunCounts) -> None:
    """Record a crawl's end and what it did (the counts of its summary)."""
    CrawlRun.update(
        ended_at=ended_at,
        rounds=counts.rounds,
        fetched=counts.fetched,
        errors=counts.errors,
        new_urls=counts.new_urls,
        stopped=int(counts.stopped),
    ).where(CrawlRun.id == run_id).execute()


def last_crawl_run() -> CrawlRunInfo | None:
    """The latest crawl run, or None when the project has never recorded one.

    A run that never ended has no counts of its own: they are read from the fetch
    events recorded since it started: what it committed before it was killed.
    """
    row = CrawlRun.select().order_by(CrawlRun.started_at.desc(), CrawlRun.id.desc()).first()
    if row is None:
        return None
    info = CrawlRunInfo(
        id=row.id,
        started_at=row.started_at,
        ended_at=row.ended_at,
        pid=row.pid,
        rounds=row.rounds,
        fetched=row.fetched,
        errors=row.errors,
        new_urls=row.new_urls,
        stopped=bool(row.stopped),
    )
    if info.ended:
        return info
    fetched, errors = _attempts_since(row.started_at)
    return CrawlRunInfo(**{**info.__dict__, "fetched": fetched, "errors": errors})


def _attempts_since(start: datetime) -> tuple[int, int]:
    """Fetches (the server answered) and errors recorded from ``start`` on.

    The meanings of engine/events.py's "Counts": a 5xx or 429 is an error, a page
    robots.txt denied is neither.
    """
    status = FetchEvent.http_status
    failed_status = (status >= 500) | (status == 429)
    answered = status.is_null(False) & ~failed_status
    failed = failed_status | (
        status.is_null()
        & FetchEvent.error.is_null(False)
        & (FetchEvent.error != ROBOTS_DENIED_NOTE)
    )
    query = FetchEvent.select(
        fn.COALESCE(fn.SUM(Case(None, [(answered, 1)], 0)), 0),
        fn.COALESCE(fn.SUM(Case(None, [(failed, 1)], 0)), 0),
    ).where(FetchEvent.fetched_at >= start)
    fetched, errors = query.tuples().execute()[0]  # one row of two sums
    return int(fetched), int(errors)


def earliest_next_fetch() -> datetime | None:
    """The earliest next fetch of the pages a crawl may fetch: in the past when pages
    are due; None when no page ever will be (filtered and parked pages never are).

    One step down the ``next_fetch`` index, whatever the project's size (a watcher asks
    after every round and every wake).
    """
    value = (
        Page.select(Page.next_fetch)
        .where(
            (Page.kind == PageKind.PAGE)
            & (Page.next_fetch < NEVER)
            & (Page.status != PageStatus.FILTERED)
        )
        .order_by(Page.next_fetch)
        .limit(1)
        .scalar()
    )
    return Page.next_fetch.python_value(value) if value is not None else None


def next_due_at(now: datetime) -> datetime | None:
    """When the next page falls due after ``now`` (None: no page ever will)."""
    value = (
        Page.select(fn.MIN(Page.next_fetch))
        .where(
            (Page.kind == PageKind.PAGE)
            & (Page.next_fetch > now)
            & (Page.status != PageStatus.FILTERED)
        )
        .scalar()
    )
    return Page.next_fetch.python_value(value) if value is not None else None


def commit_mark() -> tuple[object, ...]:
    """A value that changes whenever a crawl commits (fetches, new pages, segments): the
    app compares it to notice another process's commits on a store in a database server,
    where no file in the project folder changes with them."""
    return (
        FetchEvent.select(fn.MAX(FetchEvent.id)).scalar(),
        Page.select(fn.MAX(Page.id)).scalar(),
        Segment.select(fn.COUNT(Segment.id), fn.SUM(Segment.records)).tuples().first(),
    )
