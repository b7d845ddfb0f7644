"""Pages (docs/design.md §2): adding, finding, choosing the due ones, and their history.

Callers get model instances only on the thread that asked for them; what crosses
threads is plain values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from peewee import SQL, Expression, Field, NodeList, fn
from recrawl.core.errors import NotFound
from recrawl.core.store.models import DB, DiscoveredVia, FetchEvent, Page, PageKind, PageStatus
from recrawl.core.store.page_list import LISTING_COLUMNS
from recrawl.core.store.sql import chunks, insert_rows, is_server_store
from recrawl.core.store.workers import leased_hosts


@dataclass(frozen=True, slots=True)
class NewPage:
    url: str
    host: str
    next_fetch: datetime
    fetch_interval: float
    depth: int = 0
    discovered_from: str | None = None
    #: How it was found (:class:`~recrawl.core.store.models.DiscoveredVia`).
    discovered_via: str = DiscoveredVia.LINK
    #: When it says it was published (a sitemap's ``lastmod``, a feed entry's date).
    published_at: datetime | None = None
    #: Discovered pages start with nothing; the scoring gives them their due.
    score: float = 0.0
    cash: float = 0.0
    metadata: dict[str, Any] | None = None
    #: :class:`~recrawl.core.store.models.PageKind`: a page, or something pages embed.
    kind: str = PageKind.PAGE


def add_pages(pages: Sequence[NewPage], now: datetime) -> int:
    """Insert pages that are not yet known; ``first_seen`` is set once, never overwritten."""
    if not pages:
        return 0
    with DB.atomic():
        return insert_pages(pages, now)


def insert_pages(pages: Sequence[NewPage], now: datetime) -> int:
    """:func:`add_pages` inside the caller's transaction; returns how many were new."""
    added = 0
    for chunk in chunks(pages, 1000):  # rows made a chunk at a time: a page of 100,000 links
        rows = [
            (
                p.url, p.host, PageStatus.UNFETCHED, now, p.next_fetch, p.fetch_interval,
                p.depth, p.discovered_from, p.discovered_via, p.published_at, p.score, p.cash,
                p.metadata or {}, 0, p.kind,
            )
            for p in chunk
        ]  # fmt: skip
        added += insert_rows(Page, _NEW_PAGE_COLUMNS, rows, ignore=True)
    return added


_NEW_PAGE_COLUMNS = (
    "url", "host", "status", "first_seen", "next_fetch", "fetch_interval", "depth",
    "discovered_from", "discovered_via", "published_at", "score", "cash", "metadata",
    "retries", "kind",  # every column with a default is named: peewee would add it otherwise
)  # fmt: skip


def page_ids(urls: Iterable[str]) -> dict[str, int]:
    """The ids of the known pages among ``urls``."""
    return page_ids_and_embeds(urls)[0]


def page_ids_and_embeds(urls: Iterable[str]) -> tuple[dict[str, int], list[int]]:
    """The ids of the known pages (and embeds) among ``urls``, and which are embeds'.

    The statement is written here, not by peewee: a crawl asks this for every link it
    commits, and peewee spent more building 500-value IN lists than the database did
    answering them.
    """
    wanted = list(dict.fromkeys(urls))
    found: dict[str, int] = {}
    embeds: list[int] = []
    table, url, page_id = Page._meta.table_name, Page.url.column_name, Page.id.column_name
    kind = Page.kind.column_name
    for chunk in chunks(wanted):
        marks = ", ".join([DB.param] * len(chunk))
        sql = f'SELECT "{url}", "{page_id}", "{kind}" FROM "{table}" WHERE "{url}" IN ({marks})'
        for found_url, found_id, found_kind in DB.execute_sql(sql, list(chunk)).fetchall():
            found[found_url] = found_id
            if found_kind == PageKind.EMBED:
                embeds.append(found_id)
    return found, embeds


def page_titles(urls: Iterable[str]) -> dict[str, str]:
    """The stored titles (of each page's latest HTML fetch) of the pages among ``urls``."""
    found: dict[str, str] = {}
    for chunk in chunks(list(dict.fromkeys(urls))):
        query = Page.select(Page.url, Page.title).where(
            Page.url.in_(list(chunk)) & Page.title.is_null(False)
        )
        found.update((url, title) for url, title in query.tuples().iterator() if title)
    return found


def page_by_url(url: str) -> Page | None:
    return Page.get_or_none(Page.url == url)


def due_pages(now: datetime, limit: int, per_host_cap: int | None = None) -> list[Page]:
    """The pages a round fetches: due now, best score first, oldest due first."""
    query = Page.select().where(_due(now)).order_by(Page.score.desc(), Page.next_fetch, Page.id)
    if per_host_cap is None:
        return list(query.limit(limit))
    taken: dict[str, int] = {}
    chosen: list[Page] = []
    for page in query.iterator():
        if taken.get(page.host, 0) >= per_host_cap:
            continue
        taken[page.host] = taken.get(page.host, 0) + 1
        chosen.append(page)
        if len(chosen) >= limit:
            break
    return chosen


@dataclass(frozen=True, slots=True)
class DuePage:
    """A page a round will fetch, as the round queues it (the whole row is read when
    its turn comes: :func:`pages_by_id`)."""

    id: int
    url: str
    host: str
    #: :class:`~recrawl.core.store.models.PageKind`: an embed is queued by the round that
    #: fetches a page embedding it (docs/design.md §14).
    kind: str = PageKind.PAGE


def due_page_refs(
    now: datetime, limit: int, per_host_cap: int, leased_by: str | None = None
) -> tuple[list[DuePage], dict[str, int]]:
    """A round's pages, at most ``per_host_cap`` of a host; and for each host past the
    cap, how many of its due pages wait. ``leased_by``: of the hosts that worker holds.

    Best score first, as :func:`due_pages`; among equals, each page's first link target
    before its second, and so on (``turn``: its rank among the due pages found on the same
    page), then the longest due: one page of 100,000 links does not crowd the rest of its
    site out of the round for the 20 rounds its links take.
    """
    due_now = _due(now)
    if leased_by is not None:
        due_now &= Page.host.in_(leased_hosts(leased_by))
    turn = fn.ROW_NUMBER().over(
        partition_by=[Page.host, Page.discovered_from],
        order_by=[Page.score.desc(), Page.next_fetch, Page.id],
    )
    due = (
        Page.select(Page.id, Page.url, Page.host, Page.score, Page.next_fetch, turn.alias("turn"))
        .where(due_now)
        .alias("due")
    )
    order = [due.c.score.desc(), due.c.turn, due.c.next_fetch, due.c.id]
    rank = fn.ROW_NUMBER().over(partition_by=[due.c.host], order_by=order)
    ranked = (
        Page.select(*(due.c[name] for name in ("id", "url", "host", "score", "next_fetch", "turn")))
        .select_extend(rank.alias("rank"))
        .from_(due)
        .alias("ranked")
    )
    query = (
        Page.select(ranked.c.id, ranked.c.url, ranked.c.host)
        .from_(ranked)
        .where(ranked.c.rank <= per_host_cap)
        .order_by(ranked.c.score.desc(), ranked.c.turn, ranked.c.next_fetch, ranked.c.id)
        .limit(limit)
    )
    refs = [DuePage(*row) for row in query.tuples().iterator()]
    count = fn.COUNT(Page.id)
    # grouped by "+host", not by the host column: SQLite would walk the host index to
    # save a sort, reading every page of the project (3 s on a million) instead of the
    # due ones the next_fetch index finds (PostgreSQL's planner needs no such hint)
    host = Page.host if is_server_store() else NodeList((SQL("+"), Page.host), glue="")
    over = Page.select(Page.host, count).where(due_now).group_by(host).having(count > per_host_cap)
    return refs, {host: n - per_host_cap for host, n in over.tuples().iterator()}


def _due(now: datetime) -> Expression:
    # A filtered page's next fetch is NEVER; its status keeps it out even so (DESIGN §10).
    # Embeds are fetched with the pages that embed them, never by themselves (§14).
    return (
        (Page.kind == PageKind.PAGE)
        & (Page.next_fetch <= now)
        & (Page.status != PageStatus.FILTERED)
    )


def pages_by_id(ids: Sequence[int]) -> dict[int, Page]:
    """The pages of ``ids`` (those that still exist), whole."""
    found: dict[int, Page] = {}
    for chunk in chunks(ids):
        found.update((page.id, page) for page in Page.select().where(Page.id.in_(chunk)))
    return found


def count_due(now: datetime) -> int:
    return Page.select().where(_due(now)).count()


def list_pages(
    status: str | None = None,
    new_since: datetime | None = None,
    kinds: Sequence[str] = (PageKind.PAGE,),
) -> Iterator[dict[str, Any]]:
    """Pages as ``recrawl urls`` lists them (the columns of docs/design.md §8), oldest first;
    ``kinds``: pages, embeds or both (§14)."""
    query = Page.select(*(getattr(Page, name) for name in LISTING_COLUMNS))
    if tuple(kinds) != PageKind.ALL:
        query = query.where(Page.kind.in_(list(kinds)))
    if status:
        query = query.where(Page.status == status)
    if new_since:
        query = query.where(Page.first_seen >= new_since)
    return query.order_by(Page.first_seen, Page.id).dicts().iterator()


def history(page: Page) -> list[FetchEvent]:
    return list(
        FetchEvent.select()
        .where(FetchEvent.page == page)
        .order_by(FetchEvent.fetched_at, FetchEvent.id)
    )


def page_count() -> int:
    """How many pages the project has (not counting embeds)."""
    return Page.select().where(Page.kind == PageKind.PAGE).count()


def corpus_figures() -> tuple[list[float], list[float], list[float]]:
    """Every page's estimated change rate and rate of new links (where known) and score,
    for schedules."""
    pages = Page.kind == PageKind.PAGE
    known = Page.select(Page.change_rate).where(pages & Page.change_rate.is_null(False))
    rates = [rate for (rate,) in known.tuples().iterator()]
    scores = [score for (score,) in Page.select(Page.score).where(pages).tuples().iterator()]
    linking = Page.select(Page.link_rate).where(pages & Page.link_rate.is_null(False))
    link_rates = [rate for (rate,) in linking.tuples().iterator()]
    return rates, scores, link_rates


def set_fixed_interval(url: str, seconds: float | None, now: datetime) -> None:
    """Pin a page's interval (``metadata.fixed_interval``), or hand it back to the schedule.

    A pinned page's next fetch moves at once: one interval after its last fetch, never
    in the past.
    """
    with DB.atomic():
        page = Page.get_or_none(Page.url == url)
        if page is None:
            raise NotFound(f"no page {url} in this project")
        metadata = dict(page.metadata or {})
        values: dict[Field[Any], Any] = {}
        if seconds is None:
            metadata.pop("fixed_interval", None)
        else:
            metadata["fixed_interval"] = float(seconds)
            values[Page.fetch_interval] = float(seconds)
            if page.last_fetched is not None and page.status != PageStatus.FILTERED:
                due = page.last_fetched + timedelta(seconds=seconds)
                values[Page.next_fetch] = max(due, now)
        values[Page.metadata] = metadata
        Page.update(values).where(Page.id == page.id).execute()
