"""A lost database server found again (docs/design.md §12): PostgreSQL restarted, the network
to it cut for a while. Loaded only for a PostgreSQL store (it imports psycopg).

What is retried, and why it is safe:

- a read outside a transaction (``SELECT``), on a fresh connection: it may run twice;
- a write outside a transaction: it runs as a transaction of its own (below);
- ``BEGIN``: nothing of the transaction has run yet;
- a whole transaction run by :meth:`Reconnecting.run_transaction` (a crawl's batch): lost
  before its ``COMMIT`` it was rolled back, so it runs again; lost during its ``COMMIT``,
  the server is asked whether that transaction committed (``txid_status``) and it runs
  again only if it did not — a batch is never lost, nor committed twice;
- nothing else: a transaction another caller runs (its caller gets one line, a
  StoreError; the thread's next statement reconnects), and nothing while the thread
  holds an advisory lock (it went with the connection; another process may hold it now).

Retries back off (doubling to ``database.max_backoff``) and give up :attr:`give_up_after`
seconds after the server was lost, with one line (:class:`StoreLost`). Each loss and
recovery is reported once per outage, to the crawl's log when one listens, else to the
``recrawl.store`` logger.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

import psycopg
from peewee import PostgresqlDatabase
from recrawl.core.clock import human_duration
from recrawl.core.config import DatabaseSettings
from recrawl.core.errors import RecrawlError, StoreError, StoreLost

T = TypeVar("T")

#: What a server that answers says when it will never take the connection: no use trying
#: again (libpq's words; its connection errors carry no sqlstate).
_REFUSALS = ("password", "does not exist", "no pg_hba.conf entry", "authentication")
_log = logging.getLogger("recrawl.store")


def _psycopg_error(exc: BaseException) -> psycopg.Error | None:
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, psycopg.Error):
        cause = cause.__cause__ or cause.__context__
    return cause


def _why(exc: BaseException) -> str:
    error = _psycopg_error(exc) or exc
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return (lines[0] if lines else type(error).__name__).removeprefix("connection failed: ")


class _Lost(StoreError):
    """The server was lost during a transaction (one line for whoever ran it;
    :meth:`Reconnecting.run_transaction` runs its own again)."""


def _refused(exc: Exception) -> Exception:
    """A new connection refused for good (a password, a database gone): in one line."""
    from recrawl.core.store.postgres import describe  # it imports this module

    return describe(exc) or exc


class _Outage:
    """The server as every thread sees it: reported lost once, and found again once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None

    def lost(self, why: str, give_up_after: float) -> str | None:
        with self._lock:
            if self.since is not None:
                return None
            self.since = time.monotonic()
        return f"lost the database: {why}; retrying for up to {human_duration(give_up_after)}"

    def found(self) -> str | None:
        with self._lock:
            since, self.since = self.since, None
        if since is None:
            return None
        return f"the database is back after {human_duration(time.monotonic() - since)}; carrying on"


class _PeeweeState(Protocol):
    """What this module uses of peewee's per-thread connection state (not in its stubs)."""

    conn: psycopg.Connection[Any] | None
    closed: bool

    def reset(self) -> None: ...


class _ThreadState(threading.local):
    def __init__(self) -> None:
        #: When this thread lost the server (monotonic), None while it has it.
        self.lost_at: float | None = None
        self.backoff = DatabaseSettings.first_backoff
        #: Advisory locks this thread's connection holds (they end with it).
        self.locks = 0


class Reconnecting(PostgresqlDatabase):
    """peewee's PostgreSQL database that finds a lost server again (module docstring)."""

    #: Seconds to keep trying to reach a lost server before giving up.
    give_up_after: float = DatabaseSettings.give_up_after
    #: Told of each loss and recovery (one line); None: the ``recrawl.store`` logger.
    report: Callable[[str], None] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._outage = _Outage()
        self._thread = _ThreadState()

    @property
    def _peewee(self) -> _PeeweeState:
        return cast(_PeeweeState, self.__dict__["_state"])

    # -- what peewee calls -------------------------------------------------------------

    def execute_sql(self, sql: str, params: Any = None) -> Any:
        if self.in_transaction():  # the transaction's owner decides (module docstring)
            try:
                return super().execute_sql(sql, params)
            except Exception as exc:
                if self._lost(exc):
                    raise _Lost(
                        f"lost the database during a transaction, not committed: {_why(exc)}"
                    ) from exc
                raise

        def run() -> Any:
            return super(Reconnecting, self).execute_sql(sql, params)

        if sql.lstrip()[:6].upper() == "SELECT":
            return self._again(run)
        # a write on its own: in a transaction of its own, so that its fate is known
        return self.run_transaction(run)

    def begin(self, *args: Any, **kwargs: Any) -> None:
        self._again(lambda: super(Reconnecting, self).begin(*args, **kwargs))

    def commit(self) -> None:
        try:
            super().commit()
        except Exception as exc:
            if self._lost(exc):
                raise _Lost(
                    f"lost the database while committing (whether it did is unknown): {_why(exc)}"
                ) from exc
            raise

    def rollback(self) -> None:
        # a lost connection's transaction ended with it on the server; sending ROLLBACK
        # would only replace the error that says why with "the connection is closed"
        if not self._connection_lost():
            super().rollback()

    # -- advisory locks (recrawl.core.store.postgres.advisory_lock) ----------------------

    def lock_taken(self) -> None:
        self._thread.locks += 1

    def lock_released(self) -> None:
        self._thread.locks -= 1

    # -- transactions run again ----------------------------------------------------------

    def run_transaction(self, work: Callable[[], T]) -> T:
        """``work()`` in one transaction, run again whole if the server is lost meanwhile
        (module docstring); its result. Inside another transaction: just run it."""
        if self.in_transaction():
            with self.atomic():
                return work()
        while True:
            xid: int | None = None
            reached_commit = False
            try:
                with self.atomic():
                    (xid,) = self.execute_sql("SELECT txid_current()").fetchone()
                    result = work()
                    reached_commit = True
            except Exception as exc:
                if not self._lost(exc):
                    raise
                self._wait(_why(exc))
                if reached_commit and xid is not None and self._committed(xid):
                    self._found()
                    return result
                continue
            self._found()
            return result

    def _committed(self, xid: int) -> bool:
        """Whether transaction ``xid``, whose COMMIT got no answer, committed; waits while
        the server still has it in progress (its client's death not noticed yet)."""
        while True:
            # a read: retried on a fresh connection until the server answers
            (status,) = self.execute_sql("SELECT txid_status(%s)", (xid,)).fetchone()
            if status != "in progress":
                return bool(status == "committed")
            self._wait(f"its transaction {xid} is still in progress on the server")

    # -- the retry loop ------------------------------------------------------------------

    def _again(self, action: Callable[[], T]) -> T:
        """``action()`` (one that may run twice), on a fresh connection while the server
        is lost."""
        while True:
            if self._connection_lost():  # found broken: nothing is sent on it
                self._refuse_if_locked("the connection was lost")
                self._drop_connection()
            try:
                result = action()
            except Exception as exc:
                if not self._lost(exc):
                    if self._peewee.closed:
                        raise _refused(exc) from None
                    raise
                self._wait(_why(exc))
                continue
            self._found()
            return result

    def _connection_lost(self) -> bool:
        conn = self._peewee.conn
        if conn is None:
            return False
        if conn.broken or conn.closed:
            return True
        # A server that goes away in the middle of executemany (a pipeline) leaves the
        # connection neither broken nor closed, stuck in pipeline mode: every statement,
        # ROLLBACK too, then fails with "cannot exit pipeline mode while busy". A
        # statement the server refused ends the pipeline; only a lost server leaves it.
        pgconn = conn.pgconn
        return (
            pgconn.status == psycopg.pq.ConnStatus.BAD
            or pgconn.pipeline_status != psycopg.pq.PipelineStatus.OFF
        )

    def _lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the server is lost (the connection broke, or none could be
        made), not that it refused a statement."""
        if isinstance(exc, _Lost):
            return True
        if isinstance(exc, RecrawlError):  # said already (StoreLost: given up)
            return False
        error = _psycopg_error(exc)
        if not isinstance(error, psycopg.OperationalError):
            return False
        if self._peewee.closed:  # no connection made: the server answered "no" or nothing
            return not any(refusal in str(error) for refusal in _REFUSALS)
        return self._connection_lost()

    def _drop_connection(self) -> None:
        conn = self._peewee.conn
        self._peewee.reset()  # peewee's: no connection, no transaction on this thread
        if conn is not None:
            with contextlib.suppress(psycopg.Error):  # it is lost already
                conn.close()

    def _wait(self, why: str) -> None:
        """Sleep before the next try, or raise StoreLost once it is too late."""
        thread = self._thread
        self._refuse_if_locked(why)
        self._drop_connection()
        now = time.monotonic()
        if thread.lost_at is None:
            thread.lost_at, thread.backoff = now, DatabaseSettings.first_backoff
            message = self._outage.lost(why, self.give_up_after)
            if message:
                self._tell(message)
        left = thread.lost_at + self.give_up_after - now
        if left <= 0:
            thread.lost_at = None
            self._outage.found()  # the next loss is reported again
            raise StoreLost(
                f"lost the database and could not reach it again in "
                f"{human_duration(self.give_up_after)}: {why} "
                "(database.give_up_after)"
            )
        time.sleep(min(thread.backoff, left))
        thread.backoff = min(thread.backoff * 2, DatabaseSettings.max_backoff)

    def _refuse_if_locked(self, why: str) -> None:
        if self._thread.locks:
            raise StoreLost(
                "lost the database while holding one of its locks (another process may "
                f"hold it now): {why}"
            )

    def _found(self) -> None:
        if self._thread.lost_at is None:
            return
        self._thread.lost_at = None
        message = self._outage.found()
        if message:
            self._tell(message)

    def _tell(self, message: str) -> None:
        report = self.report
        if report is None:
            _log.warning(message)
        else:
            report(message)
