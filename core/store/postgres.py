"""PostgreSQL's own (docs/design.md §12): the URL a project may name, the database class
(psycopg 3 under peewee), libpq's errors in one line, and the advisory locks.

Loaded only for a PostgreSQL store: psycopg takes a third of a second to import, so
:mod:`recrawl.core.store` keeps peewee from importing it for SQLite (``quiet_peewee``),
and this module gives peewee the driver itself.

Passwords never come from the URL (it is written into the project file): libpq reads
``~/.pgpass`` or ``PGPASSWORD``, and the app may pass one it asked for, for its session.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import psycopg
from peewee import Database, Psycopg3Adapter
from psycopg.pq import TransactionStatus
from psycopg.types.json import Json, Jsonb
from recrawl.core.config import DatabaseSettings
from recrawl.core.errors import PasswordNeeded, StoreBusy, StoreError
from recrawl.core.store.reconnect import Reconnecting

SCHEMES = ("postgresql", "postgres")
#: libpq's TCP settings, unless the URL names its own (docs/design.md §12, docs/architecture.md):
#: a connection whose server went silent (a cut cable, a machine gone, a NAT
#: that forgot it) fails after ~30 s instead of never (an idle wait for an answer has no
#: timer but keepalives) or the kernel's ~15 min (unacknowledged bytes), so it is made
#: again. Not shorter: TCP rides out brief hiccups that a new connection would not need.
#: Not a statement timeout: a long statement is no fault, and a server that never got a
#: statement cannot time it out.
CLIENT_TCP: dict[str, int] = {
    "keepalives": 1,
    "keepalives_idle": 15,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,  # ms
}
#: The server's side of the same, per session (SET, not the ``options`` startup
#: parameter, which connection poolers refuse): a client that vanished mid-transaction
#: (its connection given up above, its batch about to run again on a new one) has its
#: transaction ended, and its row locks freed, within a minute, not hours.
SESSION_SETUP = (
    "SET idle_in_transaction_session_timeout = 60000; SET tcp_keepalives_idle = 15; "
    "SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3; SET tcp_user_timeout = 30000"
)
#: The advisory locks' first key ("RCRW"): the second names what is locked
#: (:data:`recrawl.core.store.MIGRATION`, ...). Advisory locks belong to one database, so
#: each project's store has its own.
LOCK_SPACE = 0x52435257


def client_version() -> str:
    """The libpq psycopg loaded and how (``libpq 17.5 (binary)``); raises without one."""
    version = psycopg.pq.version()
    return f"libpq {version // 10000}.{version % 10000} ({psycopg.pq.__impl__})"


def is_postgres_url(url: str) -> bool:
    return url.split(":", 1)[0].lower() in SCHEMES


def check_url(url: str) -> None:
    """Refuse a URL that holds a password or names no database, in one line."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises on a port that is no number
    except ValueError as exc:
        raise StoreError(f"not a database URL: {url} ({exc})") from None
    if parts.password is not None:
        raise StoreError(
            "the database URL holds a password: leave it out and put it in ~/.pgpass "
            "or PGPASSWORD (the URL is written into the project folder)"
        )
    if not parts.path.strip("/"):
        raise StoreError(f"the database URL names no database: {url} (postgresql://HOST/DB)")


class _Closer:
    """Closes a connection when the thread that opened it ends: peewee keeps one per
    thread (the app's job threads, a crawl's threads) and leaves those of ended threads to
    the garbage collector, which would close them with a ResourceWarning."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


_thread_connections = threading.local()


class _Adapter(Psycopg3Adapter):
    # peewee sets these when it imported psycopg itself; it did not (module docstring)
    txn_idle = TransactionStatus.IDLE
    txn_inerror = TransactionStatus.INERROR
    txn_unknown = TransactionStatus.UNKNOWN

    def __init__(self) -> None:
        super().__init__()
        self.json_type = Json
        self.jsonb_type = Jsonb

    def check_driver(self) -> None:
        pass

    def get_binary_type(self) -> Any:
        # plain bytes (psycopg sends them as bytea): values compare equal, as the bulk
        # writes' check of their parameters needs (recrawl.core.store.sql.executemany)
        return bytes

    def connect(self, db: Database, **params: Any) -> psycopg.Connection[Any]:
        conn = psycopg.connect(**params)
        _thread_connections.closers = [
            c for c in getattr(_thread_connections, "closers", []) if not c.conn.closed
        ] + [_Closer(conn)]
        return conn

    def server_side_cursor(self, conn: psycopg.Connection[Any]) -> psycopg.Cursor[Any]:
        in_txn = conn.pgconn.transaction_status == TransactionStatus.INTRANS
        return conn.cursor(name=str(uuid.uuid1()), withhold=not in_txn)


class PostgresStore(Reconnecting):
    """peewee's PostgreSQL database on psycopg 3; one connection per thread (peewee's),
    made again when the server is lost (:mod:`recrawl.core.store.reconnect`)."""

    psycopg2_adapter = _Adapter
    psycopg3_adapter = _Adapter

    def _initialize_connection(self, conn: psycopg.Connection[Any]) -> None:
        conn.execute(SESSION_SETUP)


def connect(url: str, password: str | None = None) -> Database:
    """The database ``url`` names (not connected yet); ``password``: one the user typed."""
    check_url(url)
    params: dict[str, Any] = {"conninfo": url, "application_name": "recrawl"}
    if "connect_timeout" not in url:
        params["connect_timeout"] = round(DatabaseSettings.connect_timeout)
    params.update((name, value) for name, value in CLIENT_TCP.items() if name not in url)
    if password is not None:
        params["password"] = password
    return PostgresStore(url, prefer_psycopg3=True, **params)


def describe(exc: BaseException) -> StoreError | None:
    """libpq's error as one line (None: not a connection problem of PostgreSQL's)."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, psycopg.Error):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
    text = lines[0] if lines else type(cause).__name__
    # libpq: "connection failed: connection to server at "h" (a), port p failed: why"
    text = text.removeprefix("connection failed: ")
    if "no password supplied" in text or "password authentication failed" in text:
        return PasswordNeeded(
            "the database server asks for a password"
            + (" and refused the one given" if "failed" in text else "")
            + ": put it in ~/.pgpass or PGPASSWORD"
        )
    if isinstance(cause, psycopg.OperationalError):
        return StoreError(f"cannot reach the database server: {text}")
    return StoreError(f"the database server refused: {text}")


@contextlib.contextmanager
def advisory_lock(db: Database, what: int, *, wait: bool, purpose: str) -> Iterator[None]:
    """Hold PostgreSQL's advisory lock ``what`` on this thread's connection meanwhile.

    ``wait=False``: another holder raises :class:`StoreBusy` at once. The lock is the
    session's: it ends with the connection, so a killed process never leaves it taken.
    """
    if wait:
        db.execute_sql("SELECT pg_advisory_lock(%s, %s)", (LOCK_SPACE, what))
    else:
        (got,) = db.execute_sql(
            "SELECT pg_try_advisory_lock(%s, %s)", (LOCK_SPACE, what)
        ).fetchone()
        if not got:
            raise StoreBusy(f"the store is busy: another process is {purpose}; wait for it")
    reconnecting = db if isinstance(db, Reconnecting) else None
    if reconnecting:
        reconnecting.lock_taken()  # a lost connection lost the lock too: not made again silently
    try:
        yield
    finally:
        if not db.is_closed():
            with contextlib.suppress(Exception):  # a lost connection took the lock with it
                db.execute_sql("SELECT pg_advisory_unlock(%s, %s)", (LOCK_SPACE, what))
        if reconnecting:
            reconnecting.lock_released()
