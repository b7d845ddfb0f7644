"""Hosts: what the project holds of each one (the app's Sites list), read in blocks.

One row per host, grouped in SQL and paged by host name, so a project of a million
pages on thousands of hosts lists them as quickly as a few. Seeds are the pages the
user added (no ``discovered_from``). A host taken out of the crawl keeps its pages,
``filtered`` by the chain and never due (:mod:`.filtered`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from peewee import SQL, Case, Expression, NodeList, fn
from recrawl.core.store.models import Page, PageKind, PageStatus
from recrawl.core.store.sql import chunks


@dataclass(frozen=True)
class HostSummary:
    host: str
    pages: int
    seeds: int
    #: Pages due now (next fetch not after ``now``).
    due: int
    #: Pages kept but never fetched again (filtered: the chain rejects them).
    filtered: int
    last_fetched: datetime | None
    #: The earliest next fetch of its pages still crawled (None: none is).
    next_fetch: datetime | None
    #: One of its seeds (the first by URL), None when it has none.
    first_seed: str | None


def _when(condition: Expression, value: object, default: object = None) -> Case:
    return Case(None, [(condition, value)], default)


def host_summaries(now: datetime, after: str | None, limit: int) -> list[HostSummary]:
    """The next ``limit`` hosts by name after ``after`` (None: from the first)."""
    seed = Page.discovered_from.is_null()
    crawled = Page.status != PageStatus.FILTERED
    query = Page.select(
        Page.host,
        fn.COUNT(Page.id),
        fn.SUM(_when(seed, 1, 0)),
        fn.SUM(_when(Page.next_fetch <= now, 1, 0)),
        fn.SUM(_when(~crawled, 1, 0)),
        fn.MAX(Page.last_fetched).python_value(Page.last_fetched.python_value),
        fn.MIN(_when(crawled, Page.next_fetch)).python_value(Page.next_fetch.python_value),
        fn.MIN(_when(seed, Page.url)),
    )
    query = query.where(Page.kind == PageKind.PAGE)  # a host embeds come from is no site
    if after is not None:
        query = query.where(Page.host > after)
    rows = query.group_by(Page.host).order_by(Page.host).limit(limit).tuples()
    return [
        HostSummary(host, int(pages), int(seeds), int(due), int(filtered), last, nxt, first)
        for host, pages, seeds, due, filtered, last, nxt, first in rows.iterator()
    ]


def count_hosts() -> int:
    return Page.select(Page.host).where(Page.kind == PageKind.PAGE).distinct().count()


def host_seeds(host: str, limit: int = 50) -> list[str]:
    """The seeds of ``host``, by URL."""
    query = (
        Page.select(Page.url)
        .where((Page.host == host) & Page.discovered_from.is_null())
        .order_by(Page.url)
        .limit(limit)
    )
    return [url for (url,) in query.tuples().iterator()]


def hosts_with_pages(hosts: Sequence[str]) -> set[str]:
    """Those of ``hosts`` that have at least one page."""
    found: set[str] = set()
    for chunk in chunks(list(hosts)):
        query = (
            Page.select(Page.host)
            .where(Page.host.in_(chunk) & (Page.kind == PageKind.PAGE))
            .distinct()
        )
        found.update(host for (host,) in query.tuples().iterator())
    return found


def page_hosts() -> list[str]:
    """Every host with pages (not embeds alone), by name."""
    query = Page.select(Page.host).where(Page.kind == PageKind.PAGE).distinct()
    return sorted(host for (host,) in query.tuples().iterator())


def hosts_under(domain: str) -> list[str]:
    """Hosts with pages that are ``domain`` or end in ``.domain`` (a scope entry's hosts)."""
    escaped = domain.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    below = NodeList((Page.host, SQL("LIKE"), f"%.{escaped}", SQL("ESCAPE '\\'")))
    query = (
        Page.select(Page.host)
        .where(((Page.host == domain) | below) & (Page.kind == PageKind.PAGE))
        .distinct()
    )
    return sorted(host for (host,) in query.tuples().iterator())


def host_page_count(hosts: Sequence[str]) -> int:
    pages = Page.kind == PageKind.PAGE
    return sum(
        Page.select().where(Page.host.in_(chunk) & pages).count() for chunk in chunks(list(hosts))
    )
