"""A crawl worker's identity, heartbeat and host leases (docs/design.md §12).

A :class:`WorkerSession` is one worker: ``recrawl worker``, or a crawl or watch on a
shared (PostgreSQL) store, which leases like a worker. It registers its name, then a
thread of its own renews its leases and its row every third of the lease. Each round
leases the worker's share of the hosts with due work (:meth:`lease`) and releases them
at its end (:meth:`release`); the store refuses a batch naming a host the worker no
longer holds.

Never two workers on one host: a worker whose renewals fail starts no fetch once two
thirds of the lease have passed since the last renewal that succeeded (timed from
before it was sent, on this machine's monotonic clock; the lease runs on the
database's). A batch the store refused (:class:`~recrawl.core.errors.LeaseLost`) ends
the round's fetching too; its WARC records lie past the segment's committed end and
are cut off when the round closes it, as a killed crawl's tail is: never pointed at,
and fetched again by whoever holds the host next.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import re
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial

from recrawl.core import store
from recrawl.core.config import WorkerSettings
from recrawl.core.errors import InvalidArgument

#: A worker's name, at most.
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_name() -> str:
    """``machine-pid``: unique among the workers of one project."""
    return f"{socket.gethostname()}-{os.getpid()}"


def check_name(name: str) -> str:
    """``name`` if it may name a worker (one clear line otherwise)."""
    if not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise InvalidArgument(f"not a worker name: {name!r} (1 to {MAX_NAME} printable characters)")
    return name


def segment_tag(name: str) -> str:
    """What a worker's segment names carry after their time (``20261201024500-TAG``):
    safe in a file name, and distinct for distinct names (a name that had to change gets
    a short hash of itself)."""
    safe = _UNSAFE.sub("_", name).strip("._-")[:40]
    if safe == name:
        return safe
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:6]
    return f"{safe}-{digest}" if safe else digest


class WorkerSession:
    """One worker: its row, its heartbeat thread, the hosts it holds."""

    def __init__(self, name: str | None, settings: WorkerSettings) -> None:
        self.name = check_name(name) if name is not None else default_name()
        self.tag = segment_tag(self.name)
        self.lease_seconds = settings.lease_seconds
        #: Why the round's fetching stopped early (a refused batch, leases run out).
        self.lost_reason: str | None = None
        self._valid_until = 0.0  # monotonic: no fetch of the held hosts starts after it
        self._held = 0
        self._guard = threading.Lock()  # a lease and a renewal never cross
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        #: Pages fetched by the crawls that ended, and the one running (its counter).
        self._done = 0
        self._current: Callable[[], int] | None = None
        self._rate = (time.monotonic(), 0)

    # -- life --------------------------------------------------------------------------

    def start(self) -> None:
        """Register (WorkerNameTaken when a live worker has the name) and start beating."""
        store.register_worker(self.name, os.getpid(), socket.gethostname(), self.lease_seconds)
        self._thread = threading.Thread(  # beats on the store of the project open here
            target=contextvars.copy_context().run,
            args=(self._beat,),
            name=f"recrawl-heartbeat-{self.tag}",
            daemon=True,
        )
        self._thread.start()

    def end(self) -> None:
        """Stop beating, release every lease, mark the row ended."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        store.end_worker(self.name, self.fetched)

    @property
    def fetched(self) -> int:
        current = self._current
        return self._done + (current() if current is not None else 0)

    def crawling(self, fetched: Callable[[], int] | None) -> None:
        """A crawl starts (``fetched``: its page counter) or ends (None)."""
        if fetched is None and self._current is not None:
            self._done += self._current()
        self._current = fetched

    # -- leases ------------------------------------------------------------------------

    def lease(self, due_at: datetime, *, sources: bool) -> tuple[int, int]:
        """Lease this worker's share of the hosts with work due at ``due_at``; returns
        (hosts held, hosts with work due)."""
        with self._guard:
            sent = time.monotonic()
            # a lost database server: the lease runs again, never twice (store.retried)
            take = partial(store.lease_hosts, sources=sources)
            held, due = store.retried(take, self.name, self.lease_seconds, due_at)
            self._held = held
            self._valid_until = sent + self.lease_seconds * 2 / 3
            self.lost_reason = None
        return held, due

    def release(self) -> str | None:
        """Release every lease; returns why the round lost them early, if it did."""
        with self._guard:
            store.retried(store.release_leases, self.name)
            self._held = 0
            lost, self.lost_reason = self.lost_reason, None
        return lost

    def fetching(self) -> bool:
        """Whether the round may start a fetch of a host it leased (per page: cheap)."""
        return self.lost_reason is None and time.monotonic() < self._valid_until

    @property
    def lost(self) -> bool:
        return self.lost_reason is not None

    def lose(self, reason: str) -> None:
        """The round holds its hosts no longer (the store refused a batch)."""
        self.lost_reason = reason

    # -- heartbeat ---------------------------------------------------------------------

    def _beat(self) -> None:
        period = self.lease_seconds / 3
        try:
            while not self._stopping.wait(period):
                self._renew()
        finally:
            with contextlib.suppress(Exception):
                store.close_database()  # this thread's own connection

    def _renew(self) -> None:
        now, fetched = time.monotonic(), self.fetched
        then, before = self._rate
        rate = (fetched - before) / (now - then) if now > then else 0.0
        self._rate = (now, fetched)
        with self._guard:
            try:
                renewed = store.heartbeat(self.name, self.lease_seconds, fetched, rate)
            except Exception:
                return
            if renewed < self._held:
                self.lost_reason = (
                    f"{self._held - renewed} of this worker's host leases ran out before "
                    "they were renewed"
                )
            else:
                self._valid_until = now + self.lease_seconds * 2 / 3
