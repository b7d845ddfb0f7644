"""Every query the engine runs, in one place (DESIGN.md §2).

Writes are batched: :func:`commit_batch` applies one batch of crawl results in a single
transaction. Callers get model instances only on the thread that asked for them; what
crosses threads is plain values.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from peewee import SQL, Database, NodeList, fn
from playhouse.db_url import connect
from recrawl.core.errors import NotFound, StoreError
from recrawl.core.store.migrations import migrate
from recrawl.core.store.models import (
    DB,
    BaseModel,
    Compaction,
    FetchEvent,
    Link,
    Page,
    PageStatus,
    RejectedLink,
    Robots,
    Segment,
    Setting,
)

SQLITE_PRAGMAS = {
    "journal_mode": "wal",  # readers never block the crawl; a kill loses nothing committed
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    "synchronous": 1,  # NORMAL: durable across process kills in WAL mode
    "cache_size": -32_000,
}
_CHUNK = 500  # stays well under SQLite's bound-variable limit


def open_database(url: str) -> Database:
    try:
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["pragmas"] = SQLITE_PRAGMAS
        db = connect(url, **kwargs)
    except Exception as exc:
        raise StoreError(f"cannot open the store ({exc})") from None
    previous = DB.obj
    try:
        DB.initialize(db)
        db.connect(reuse_if_open=True)
        migrate(db)
    except Exception as exc:
        # the store that was open stays the one every query goes to
        with contextlib.suppress(Exception):
            db.close()
        DB.initialize(previous)
        if isinstance(exc, StoreError):
            raise
        raise StoreError(f"cannot open the store ({exc})") from None
    return db


def close_database() -> None:
    if DB.obj is not None and not DB.is_closed():
        DB.close()


def transaction() -> Any:
    """One transaction around several store calls (nested calls join it)."""
    return DB.atomic()


def _chunks(items: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# -- settings --------------------------------------------------------------------------


def get_setting(key: str, default: Any = None) -> Any:
    row = Setting.get_or_none(Setting.key == key)
    return default if row is None else row.value


def set_setting(key: str, value: Any) -> None:
    Setting.replace(key=key, value=value).execute()


# -- pages -----------------------------------------------------------------------------


@dataclass(frozen=True)
class NewPage:
    url: str
    host: str
    next_fetch: datetime
    fetch_interval: float
    depth: int = 0
    discovered_from: str | None = None
    #: Discovered pages start with nothing; the scoring gives them their due.
    score: float = 0.0
    cash: float = 0.0


def add_pages(pages: Sequence[NewPage], now: datetime) -> int:
    """Insert pages that are not yet known; ``first_seen`` is set once, never overwritten."""
    if not pages:
        return 0
    with DB.atomic():
        return _insert_pages(pages, now)


def _insert_pages(pages: Sequence[NewPage], now: datetime) -> int:
    rows = [
        {
            "url": p.url,
            "host": p.host,
            "status": PageStatus.UNFETCHED,
            "first_seen": now,
            "next_fetch": p.next_fetch,
            "fetch_interval": p.fetch_interval,
            "depth": p.depth,
            "discovered_from": p.discovered_from,
            "score": p.score,
            "cash": p.cash,
            "metadata": {},
        }
        for p in pages
    ]
    added = 0
    for chunk in _chunks(rows, 100):
        added += Page.insert_many(chunk).on_conflict_ignore().as_rowcount().execute()
    return added


def make_due(urls: Sequence[str], now: datetime) -> None:
    for chunk in _chunks(urls):
        Page.update(next_fetch=now).where(Page.url.in_(chunk), Page.next_fetch > now).execute()


def page_ids(urls: Iterable[str]) -> dict[str, int]:
    wanted = list(dict.fromkeys(urls))
    found: dict[str, int] = {}
    for chunk in _chunks(wanted):
        found.update(Page.select(Page.url, Page.id).where(Page.url.in_(chunk)).tuples())
    return found


def page_by_url(url: str) -> Page | None:
    return Page.get_or_none(Page.url == url)


def due_pages(now: datetime, limit: int, per_host_cap: int | None = None) -> list[Page]:
    """The pages a round fetches: due now, best score first, oldest due first."""
    query = (
        Page.select()
        .where(Page.next_fetch <= now)
        .order_by(Page.score.desc(), Page.next_fetch, Page.id)
    )
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


def count_due(now: datetime) -> int:
    return Page.select().where(Page.next_fetch <= now).count()


def list_pages(
    status: str | None = None, new_since: datetime | None = None
) -> Iterator[dict[str, Any]]:
    query = Page.select(
        Page.url,
        Page.status,
        Page.first_seen,
        Page.last_fetched,
        Page.next_fetch,
        Page.fetch_interval,
        Page.content_changed_at,
        Page.segment,
        Page.score,
    )
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
    return Page.select().count()


def fetched_urls() -> set[str]:
    return {
        url for (url,) in Page.select(Page.url).where(Page.last_fetched.is_null(False)).tuples()
    }


# -- crawl results ---------------------------------------------------------------------


@dataclass
class CommitBatch:
    """What one slice of a round changes; applied atomically by :func:`commit_batch`."""

    segment: str
    committed_bytes: int = 0
    records: int = 0
    page_updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # keyed by page id
    new_pages: list[NewPage] = field(default_factory=list)
    links: list[tuple[int, str]] = field(default_factory=list)  # (source page id, target url)
    rejected: list[tuple[str, str, int | None]] = field(default_factory=list)
    #: Pages whose in-link count must be recounted (inlinks scoring; see rescore_inlinks).
    rescore: set[str] = field(default_factory=set)
    #: OPIC cash handed to pages: (url, amount), and paid out by fetched pages.
    cash: list[tuple[str, float]] = field(default_factory=list)
    payouts: list[tuple[str, float]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.page_updates)

    def snapshot(self) -> tuple[int, ...]:
        """Sizes to :meth:`restore` to, taking back entries added since."""
        return (
            self.records, len(self.page_updates), len(self.events), len(self.new_pages),
            len(self.links), len(self.rejected), len(self.cash), len(self.payouts),
        )  # fmt: skip

    def restore(self, sizes: tuple[int, ...]) -> None:
        records, updates, events, new_pages, links, rejected, cash, payouts = sizes
        self.records = records
        del self.page_updates[updates:], self.events[events:], self.new_pages[new_pages:]
        del self.links[links:], self.rejected[rejected:], self.cash[cash:]
        del self.payouts[payouts:]


def commit_batch(batch: CommitBatch, now: datetime) -> int:
    """Apply a batch in one transaction; returns how many new pages it added."""
    with DB.atomic():
        added = _insert_pages(batch.new_pages, now) if batch.new_pages else 0
        _update_pages(batch.page_updates)
        if batch.events:
            _insert_rows(
                FetchEvent, list(batch.events[0]), [list(e.values()) for e in batch.events]
            )
        if batch.links:
            ids = page_ids(target for _, target in batch.links)
            rows = [
                [source, ids[target], now]
                for source, target in dict.fromkeys(batch.links)
                if target in ids
            ]
            _insert_rows(Link, ["source", "target", "first_seen"], rows, ignore=True)
        _apply_scores(batch)
        record_rejected(batch.rejected, now)
        Segment.update(
            committed_bytes=batch.committed_bytes,
            bytes=batch.committed_bytes,
            records=Segment.records + batch.records,
        ).where(Segment.name == batch.segment).execute()
    return added


def give_cash(amount: float) -> None:
    """Every page holds ``amount`` of OPIC cash (switching a project to OPIC)."""
    Page.update(cash=amount).execute()


def rescore_inlinks(urls: set[str]) -> None:
    """Set each page's score to its number of known in-links."""
    inlinks = Link.select(fn.COUNT(Link.id)).where(Link.target == Page.id)
    with DB.atomic():
        for chunk in _chunks(sorted(urls)):
            Page.update(score=inlinks).where(Page.url.in_(chunk)).execute()


def _apply_scores(batch: CommitBatch) -> None:
    # In-link counts (batch.rescore) are recounted once per round by the engine: a
    # popular page is linked from every batch, and counting it each time is wasted.
    if batch.cash:
        gains: dict[str, float] = {}
        for url, amount in batch.cash:
            gains[url] = gains.get(url, 0.0) + amount
        sample_url, sample_gain = next(iter(gains.items()))
        query = Page.update(cash=Page.cash + sample_gain, score=Page.score + sample_gain).where(
            Page.url == sample_url
        )
        _executemany(query, [[gain, gain, url] for url, gain in gains.items()])
    if batch.payouts:
        sample_url, sample_paid = batch.payouts[0]
        query = Page.update(cash=Page.cash - sample_paid).where(Page.url == sample_url)
        _executemany(query, [[paid, url] for url, paid in batch.payouts])


def corpus_figures() -> tuple[list[float], list[float]]:
    """Every page's estimated change rate (where known) and score, for schedules."""
    rates = [
        r for (r,) in Page.select(Page.change_rate).where(Page.change_rate.is_null(False)).tuples()
    ]
    scores = [s for (s,) in Page.select(Page.score).tuples()]
    return rates, scores


# Building SQL in peewee costs more than running it; batches of same-shaped rows have
# peewee write the statement once and the driver run it for every row (executemany).


def _insert_rows(
    model: type[BaseModel], names: list[str], rows: list[list[Any]], ignore: bool = False
) -> None:
    if not rows:
        return
    fields = [model._meta.fields[name] for name in names]
    query = model.insert_many([rows[0]], fields=fields)
    if ignore:
        query = query.on_conflict_ignore()
    params = [[f.db_value(v) for f, v in zip(fields, row, strict=True)] for row in rows]
    _executemany(query, params)


def _update_pages(updates: Sequence[tuple[int, dict[str, Any]]]) -> None:
    groups: dict[frozenset[str], list[tuple[int, dict[str, Any]]]] = {}
    for page_id, values in updates:
        groups.setdefault(frozenset(values), []).append((page_id, values))
    for names, members in groups.items():
        # peewee writes SET columns in the model's field order; so do the parameters
        fields = [f for f in Page._meta.sorted_fields if f.name in names]
        sample_id, sample = members[0]
        query = Page.update({f: sample[f.name] for f in fields}).where(Page.id == sample_id)
        params = [
            [f.db_value(values[f.name]) for f in fields] + [page_id] for page_id, values in members
        ]
        _executemany(query, params)


def _executemany(query: Any, params: list[list[Any]]) -> None:
    sql, sample = query.sql()
    if list(sample) != params[0]:  # the statement's parameter order is not ours: go slowly
        raise StoreError(f"internal: parameter order mismatch in {sql}")
    DB.cursor().executemany(sql, params)


# -- segments --------------------------------------------------------------------------


def create_segment(name: str, created_at: datetime, warc_file: str) -> Segment:
    return Segment.create(name=name, created_at=created_at, warc_file=warc_file, state="open")


def segment_names() -> set[str]:
    return {name for (name,) in Segment.select(Segment.name).tuples()}


def open_segments() -> list[Segment]:
    return list(Segment.select().where(Segment.state == "open").order_by(Segment.name))


def close_segment(name: str, records: int, size: int, closed_at: datetime) -> None:
    Segment.update(
        state="closed", records=records, bytes=size, committed_bytes=size, closed_at=closed_at
    ).where(Segment.name == name).execute()


def delete_segment(name: str) -> None:
    Segment.delete().where(Segment.name == name).execute()


def segment_summaries() -> list[dict[str, Any]]:
    """Per segment: records, live records (DESIGN.md §7), liveness, bytes.

    A record is live when it is a page's latest capture or the response that a page's
    latest revisit refers to. Each capture belongs to one page, and a revisit refers to
    its own page's earlier response, so the two counts never overlap: counting them per
    segment over the indexed pointer columns needs no de-duplication. A segment has one
    WARC, so (segment, offset) names a record; one covering index answers the payload
    half without touching the table (a tenth of a second on a million pages).
    """
    live_sql = SQL(
        "SELECT seg, SUM(n) FROM ("
        " SELECT segment AS seg, COUNT(*) AS n FROM page WHERE segment IS NOT NULL"
        "  GROUP BY segment"
        " UNION ALL"
        " SELECT payload_segment, COUNT(*) FROM page WHERE payload_segment IS NOT NULL"
        "  AND NOT (payload_segment IS segment AND payload_offset IS capture_offset)"
        "  GROUP BY payload_segment"
        ") GROUP BY seg"
    )
    live = dict(DB.execute_sql(live_sql.sql).fetchall())
    out = []
    for seg in Segment.select().order_by(Segment.name):
        live_records = int(live.get(seg.name, 0))
        out.append(
            {
                "name": seg.name,
                "created_at": seg.created_at,
                "records": seg.records,
                "live_records": live_records,
                "liveness": (live_records / seg.records) if seg.records else 0.0,
                "bytes": seg.bytes,
                "state": seg.state,
            }
        )
    return out


# -- compaction (DESIGN.md §7) ----------------------------------------------------------


@dataclass(frozen=True)
class Pointer:
    """A page's pointers into segments: its latest capture and the payload it stands for."""

    page_id: int
    segment: str | None
    offset: int | None
    payload_segment: str | None
    payload_offset: int | None


def pointers_into(segments: Sequence[str]) -> list[Pointer]:
    """Every page whose capture or payload lies in one of ``segments``."""
    out: dict[int, Pointer] = {}
    for chunk in _chunks(list(segments)):
        query = Page.select(
            Page.id,
            Page.segment,
            Page.capture_offset,
            Page.payload_segment,
            Page.payload_offset,
        ).where(Page.segment.in_(chunk) | Page.payload_segment.in_(chunk))
        sql, params = query.sql()
        # thousands of rows of plain values: the driver's tuples, not peewee's iteration
        for row in DB.execute_sql(sql, params).fetchall():
            out[row[0]] = Pointer(*row)
    return list(out.values())


def compaction_names() -> set[str]:
    return {name for (name,) in Compaction.select(Compaction.name).tuples()}


def begin_compaction(name: str, sources: Sequence[str], drop: bool, now: datetime) -> None:
    Compaction.create(
        name=name, state="copying", started_at=now, sources=list(sources), drop_superseded=drop
    )


def unfinished_compactions() -> list[Compaction]:
    return list(
        Compaction.select()
        .where(Compaction.state.in_(("copying", "committed")))
        .order_by(Compaction.id)
    )


def commit_compaction(
    name: str,
    sources: Sequence[str],
    repoints: Sequence[tuple[int, dict[str, Any]]],
    new_segment: tuple[str, int, int] | None,
    summary: dict[str, Any],
    now: datetime,
) -> None:
    """The one transaction of a compaction: pages move, old segments go, the new one comes.

    ``new_segment`` is (WARC path, records, bytes), or None when nothing was live.
    """
    with DB.atomic():
        _update_pages(repoints)
        Segment.delete().where(Segment.name.in_(list(sources))).execute()
        if new_segment is not None:
            relpath, records, size = new_segment
            Segment.create(
                name=name,
                created_at=now,
                closed_at=now,
                state="closed",
                warc_file=relpath,
                committed_bytes=size,
                records=records,
                bytes=size,
            )
        Compaction.update(state="committed", summary=summary).where(
            Compaction.name == name
        ).execute()


def needs_recovery() -> bool:
    """Whether a writer left work behind: an unfinished compaction or an open segment."""
    unfinished = Compaction.select().where(Compaction.state.in_(("copying", "committed")))
    return unfinished.exists() or Segment.select().where(Segment.state == "open").exists()


def end_compaction(name: str, state: str, now: datetime) -> None:
    Compaction.update(state=state, finished_at=now).where(Compaction.name == name).execute()


# -- robots.txt cache ------------------------------------------------------------------


def robots_entry(origin: str) -> Robots | None:
    return Robots.get_or_none(Robots.origin == origin)


def save_robots(
    origin: str, fetched_at: datetime, status: int | None, body: str | None, error: str | None
) -> None:
    Robots.replace(
        origin=origin, fetched_at=fetched_at, http_status=status, body=body, error=error
    ).execute()


def record_rejected(rejected: Sequence[tuple[str, str, int | None]], now: datetime) -> None:
    """Remember URLs the chain turned away: (url, filter name, rule line); counts repeats."""
    rows = [
        {"url": url, "filter": name, "line": line, "first_seen": now, "count": 1}
        for url, name, line in rejected
    ]
    for chunk in _chunks(rows, 200):
        RejectedLink.insert_many(chunk).on_conflict(
            conflict_target=[RejectedLink.url],
            update={RejectedLink.count: RejectedLink.count + 1},
        ).execute()


def rejected_links() -> list[RejectedLink]:
    return list(RejectedLink.select().order_by(RejectedLink.first_seen))


def rejected_matching(text: str, limit: int) -> tuple[int, list[RejectedLink]]:
    """How many rejected links contain ``text`` (case-insensitive), and the newest ``limit``."""
    query = RejectedLink.select()
    if text:
        query = query.where(_url_contains(RejectedLink.url, text))
    total = query.count()
    rows = list(query.order_by(RejectedLink.first_seen.desc(), RejectedLink.id.desc()).limit(limit))
    return total, rows


def _url_contains(column: Any, text: str) -> Any:
    """``column LIKE %text%``, case-insensitive (SQLite's LIKE), with % and _ literal."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return NodeList((column, SQL("LIKE"), f"%{escaped}%", SQL("ESCAPE '\\'")))


def rejected_link(url: str) -> RejectedLink | None:
    return RejectedLink.get_or_none(RejectedLink.url == url)


# -- browsing pages (the GUI) ----------------------------------------------------------

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
)


@dataclass(frozen=True)
class PageQuery:
    """One filtered, sorted view of the pages; sorting and filtering happen in SQL."""

    search: str = ""  # a substring of the URL
    status: str | None = None
    first_seen_since: datetime | None = None
    order_by: str = "first_seen"
    descending: bool = False


def _listing(query: PageQuery, columns: Sequence[str]) -> Any:
    if query.order_by not in LISTING_COLUMNS:
        raise StoreError(f"internal: cannot sort pages by {query.order_by!r}")
    select = Page.select(*(getattr(Page, name) for name in columns))
    if query.search:
        like = _url_contains(Page.url, query.search)
        select = select.where(like)
    if query.status:
        select = select.where(Page.status == query.status)
    if query.first_seen_since is not None:
        select = select.where(Page.first_seen >= query.first_seen_since)
    return select


def count_listing(query: PageQuery) -> int:
    """How many pages match ``query``'s filters."""
    return _listing(query, ("url",)).count()


def _ordered(query: PageQuery, columns: Sequence[Any]) -> Any:
    column = getattr(Page, query.order_by)
    # the id breaks ties, so pages never repeat or go missing between blocks
    order = (column.desc(), Page.id.desc()) if query.descending else (column, Page.id)
    return _listing(query, columns).order_by(*order)


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
        select = select.where(_after(getattr(Page, query.order_by), query.descending, *after))
    return list(select.limit(limit).tuples())


def _after(column: Any, descending: bool, value: Any, page_id: int) -> Any:
    """Rows past (value, id) in ``ORDER BY column, id``; SQL sorts NULL first ascending."""
    if not descending:
        if value is None:
            return (column.is_null() & (Page.id > page_id)) | column.is_null(False)
        return (column > value) | ((column == value) & (Page.id > page_id))
    if value is None:
        return column.is_null() & (Page.id < page_id)
    return (column < value) | ((column == value) & (Page.id < page_id)) | column.is_null()


def iter_listing(query: PageQuery) -> Iterator[tuple[Any, ...]]:
    """Every matching page, streamed (for exports)."""
    return _ordered(query, LISTING_COLUMNS).tuples().iterator()


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
        values: dict[Any, Any] = {}
        if seconds is None:
            metadata.pop("fixed_interval", None)
        else:
            metadata["fixed_interval"] = float(seconds)
            values[Page.fetch_interval] = float(seconds)
            if page.last_fetched is not None:
                due = page.last_fetched + timedelta(seconds=seconds)
                values[Page.next_fetch] = max(due, now)
        values[Page.metadata] = metadata
        Page.update(values).where(Page.id == page.id).execute()
