"""Crawl workers and their host leases (docs/design.md §12).

A worker registers under a name unique among live workers, then, once a round, leases
hosts: in one transaction the hosts with due pages (or due sources) get a lease row,
the free, expired or already-its-own rows are locked (``FOR UPDATE SKIP LOCKED``: rows
another worker is taking are passed over, never waited for) and marked its own until
the database's ``now()`` plus the lease. Its heartbeat renews the leases it still holds
and its own row; a batch commits only while the worker holds every host of its pages
(:func:`check_leases`, inside the batch's transaction). The round's end releases them.

All times come from the database's clock (PostgreSQL's ``now()``), so machines whose
clocks disagree agree on who holds what. A SQLite store has one worker at a time (the
project lock) and this machine's clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from peewee import SQL, Expression, IntegrityError, Node, Select, SelectBase, fn
from recrawl.core.clock import utcnow
from recrawl.core.errors import LeaseLost, WorkerNameTaken
from recrawl.core.store.models import (
    DB,
    HostLease,
    Page,
    PageKind,
    PageStatus,
    Segment,
    Source,
    Worker,
)
from recrawl.core.store.sql import chunks, is_server_store

#: Ended or dead workers are listed this long after their last heartbeat.
LISTED_AFTER_END = timedelta(hours=24)

_PG_NOW = "(now() AT TIME ZONE 'UTC')"


def _now() -> Node | datetime:
    """The database's current time as a value for a query (naive UTC)."""
    return SQL(_PG_NOW) if is_server_store() else utcnow()


def _later(seconds: float) -> Node | datetime:
    """The database's current time plus ``seconds``."""
    if is_server_store():
        return SQL(f"({_PG_NOW} + make_interval(secs => %s))", [float(seconds)])
    return utcnow() + timedelta(seconds=seconds)


def database_now() -> datetime:
    """The database's clock (naive UTC)."""
    if not is_server_store():
        return utcnow()
    (value,) = DB.execute_sql(f"SELECT {_PG_NOW}").fetchone()
    found: datetime = value
    return found


def _live() -> Expression:
    return Worker.ended_at.is_null() & (Worker.alive_until > _now())


# -- a worker's life ------------------------------------------------------------------


def register_worker(name: str, pid: int, machine: str, lease_seconds: float) -> None:
    """Start worker ``name``: a new row, or the row of an ended or dead one of that name.

    Raises :class:`WorkerNameTaken` when a live worker has the name.
    """
    values = {
        "pid": pid,
        "machine": machine,
        "started_at": _now(),
        "heartbeat_at": _now(),
        "alive_until": _later(lease_seconds),
        "ended_at": None,
        "fetched": 0,
        "pages_per_s": 0.0,
    }
    try:
        with DB.atomic():
            query = Worker.select().where(Worker.name == name)
            if is_server_store():
                query = query.for_update()
            row = query.first()
            if row is None:
                Worker.insert(name=name, **values).execute()
            elif Worker.select().where((Worker.name == name) & _live()).exists():
                raise WorkerNameTaken(_taken(row))
            else:
                Worker.update(**values).where(Worker.name == name).execute()
    except IntegrityError:  # another process registered that name meanwhile
        raise WorkerNameTaken(f"a crawl worker named {name!r} is running already") from None


def _taken(row: Worker) -> str:
    return (
        f"a crawl worker named {row.name!r} is running already (pid {row.pid} on "
        f"{row.machine}): give this one another --name"
    )


def heartbeat(name: str, lease_seconds: float, fetched: int, pages_per_s: float) -> int:
    """Renew worker ``name``'s row and the leases it still holds; returns how many.

    A lease that ran out is not renewed: another worker may hold the host already.
    """
    with DB.atomic():
        Worker.update(
            heartbeat_at=_now(),
            alive_until=_later(lease_seconds),
            fetched=fetched,
            pages_per_s=pages_per_s,
        ).where((Worker.name == name) & Worker.ended_at.is_null()).execute()
        renewed: int = (
            HostLease.update(expires_at=_later(lease_seconds))
            .where((HostLease.worker == name) & (HostLease.expires_at > _now()))
            .execute()
        )
    return renewed


def end_worker(name: str, fetched: int) -> None:
    """Worker ``name`` stops: its leases are released and its row says when it ended."""
    with DB.atomic():
        release_leases(name)
        Worker.update(ended_at=_now(), heartbeat_at=_now(), fetched=fetched, pages_per_s=0.0).where(
            Worker.name == name
        ).execute()


# -- leases -----------------------------------------------------------------------------


def _due_hosts(due_at: datetime, sources: bool) -> SelectBase:
    """The hosts with pages (or, with ``sources``, sitemaps and feeds) due at ``due_at``."""
    pages = Page.select(Page.host).where(
        (Page.kind == PageKind.PAGE)
        & (Page.next_fetch <= due_at)
        & (Page.status != PageStatus.FILTERED)
    )
    if not sources:
        return pages.distinct()
    return pages | Source.select(Source.host).where(Source.next_fetch <= due_at)  # UNION


def lease_hosts(
    name: str, lease_seconds: float, due_at: datetime, *, sources: bool
) -> tuple[int, int]:
    """Lease hosts with work due at ``due_at`` (the crawl's clock) for worker ``name``:
    its fair share, ceil(due hosts / live workers), of those free, expired or its own.

    Returns how many hosts it holds now, and how many have work due. One transaction:
    a host is leased by one worker.
    """
    with DB.atomic():
        due = _due_hosts(due_at, sources)
        HostLease.insert_from(due, [HostLease.host]).on_conflict_ignore().execute()
        sql, params = due.sql()
        (due_count,) = DB.execute_sql(f"SELECT COUNT(*) FROM ({sql}) AS due", params).fetchone()
        live = Worker.select().where(_live()).count()
        share = max(1, math.ceil(due_count / max(live, 1)))
        free = (
            HostLease.worker.is_null()
            | (HostLease.expires_at <= _now())
            | (HostLease.worker == name)
        )
        mine_first = fn.COALESCE(HostLease.worker == name, False).desc()
        pick = (
            HostLease.select(HostLease.host)
            .where(free & HostLease.host.in_(_due_hosts(due_at, sources)))
            .order_by(mine_first, HostLease.host)
            .limit(share)
        )
        if is_server_store():
            pick = pick.for_update(skip_locked=True)
        hosts: list[str] = [host for (host,) in pick.tuples().iterator()]
        for chunk in chunks(hosts):
            HostLease.update(worker=name, expires_at=_later(lease_seconds)).where(
                HostLease.host.in_(list(chunk))
            ).execute()
    return len(hosts), int(due_count)


def leased_hosts(name: str) -> Select:
    """The hosts worker ``name`` holds, as a subquery (``Page.host.in_(...)``)."""
    return HostLease.select(HostLease.host).where(HostLease.worker == name)


def release_leases(name: str) -> None:
    HostLease.update(worker=None, expires_at=None).where(HostLease.worker == name).execute()


def check_leases(name: str, page_ids: Sequence[int]) -> None:
    """Inside a batch's transaction: raise :class:`LeaseLost` unless worker ``name``
    holds, unexpired, the host of every page of ``page_ids``.

    On PostgreSQL the held rows are locked (``FOR UPDATE``) until the batch commits, so
    no worker takes one of those hosts between this check and the commit (a lease
    transaction passes locked rows over).
    """
    if not page_ids:
        return
    held = HostLease.select(HostLease.host).where(
        (HostLease.worker == name) & (HostLease.expires_at > _now())
    )
    if is_server_store():
        held = held.for_update()
    held_hosts: set[str] = {host for (host,) in held.tuples().iterator()}
    for chunk in chunks(list(page_ids)):
        # an embed is fetched by the worker whose page embeds it, wherever it is hosted
        hosts = (
            Page.select(Page.host)
            .where(Page.id.in_(list(chunk)) & (Page.kind == PageKind.PAGE))
            .distinct()
        )
        lost = {str(host) for (host,) in hosts.tuples().iterator()} - held_hosts
        if lost:
            raise LeaseLost(f"worker {name} no longer holds {min(lost)}: its batch is not recorded")


def others_lease_wait(name: str) -> float | None:
    """Seconds until the first lease another worker holds runs out; None: no other
    worker holds one (a dead worker's run out: its hosts are free to take)."""
    now = database_now()
    earliest = (
        HostLease.select(fn.MIN(HostLease.expires_at))
        .where(
            HostLease.worker.is_null(False)
            & (HostLease.worker != name)
            & (HostLease.expires_at > now)
        )
        .scalar()
    )
    if earliest is None:
        return None
    wait: float = (earliest - now).total_seconds()
    return max(wait, 0.0)


# -- segments of dead workers -------------------------------------------------------------


def recoverable_segment(me: str | None = None) -> Expression:
    """Open segments another process may recover: a crawl's that is no worker, worker
    ``me``'s own (from before it started), or a dead or ended worker's (docs/design.md §12)."""
    alive = Worker.select(Worker.name).where(_live())
    return Segment.worker.is_null() | (Segment.worker == (me or "")) | Segment.worker.not_in(alive)


def recoverable_segments(me: str | None = None) -> list[Segment]:
    """The open segments :func:`recoverable_segment` allows (on SQLite: every one, the
    project lock proves their writer gone)."""
    query = Segment.select().where(Segment.state == "open")
    if is_server_store():
        query = query.where(recoverable_segment(me))
    return list(query.order_by(Segment.name))


# -- listing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkerInfo:
    """One worker as ``recrawl workers`` and the app's Workers view show it."""

    name: str
    pid: int
    machine: str
    started_at: datetime
    heartbeat_at: datetime
    #: None while it runs (or when it died without ending).
    ended_at: datetime | None
    #: "live", "ended" (stopped cleanly) or "dead" (its heartbeat ran out: killed, or
    #: cut off from the database).
    state: str
    leased_hosts: int
    fetched: int
    pages_per_s: float
    #: Seconds since its last heartbeat, by the database's clock.
    heartbeat_age_s: float


def list_workers() -> list[WorkerInfo]:
    """Live workers, then those that ended or died in the last :data:`LISTED_AFTER_END`,
    each by name."""
    now = database_now()
    counts = (
        HostLease.select(HostLease.worker, fn.COUNT(HostLease.host))
        .where(HostLease.worker.is_null(False) & (HostLease.expires_at > now))
        .group_by(HostLease.worker)
    )
    leases: dict[str, int] = {worker: n for worker, n in counts.tuples().iterator()}
    rows = Worker.select().where(
        Worker.ended_at.is_null() | (Worker.heartbeat_at > now - LISTED_AFTER_END)
    )
    out = []
    for row in rows:
        if row.ended_at is not None:
            state = "ended"
        elif row.alive_until > now:
            state = "live"
        elif row.heartbeat_at > now - LISTED_AFTER_END:
            state = "dead"
        else:
            continue
        live = state == "live"
        out.append(
            WorkerInfo(
                name=row.name,
                pid=row.pid,
                machine=row.machine,
                started_at=row.started_at,
                heartbeat_at=row.heartbeat_at,
                ended_at=row.ended_at,
                state=state,
                leased_hosts=int(leases.get(row.name, 0)) if live else 0,
                fetched=row.fetched,
                pages_per_s=row.pages_per_s if live else 0.0,
                heartbeat_age_s=max((now - row.heartbeat_at).total_seconds(), 0.0),
            )
        )
    return sorted(out, key=lambda w: (w.state != "live", w.name))
