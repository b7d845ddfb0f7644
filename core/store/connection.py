"""Opening and closing the store, and transactions around several calls.

The store is opened from a database URL (docs/design.md §1): SQLite (``sqlite:///PATH``, the
default) or PostgreSQL (``postgresql://USER@HOST[:PORT]/DB``, docs/design.md §12). Only the
pragmas and the look at a file before it is opened (below) are SQLite's own; PostgreSQL's
own is in :mod:`recrawl.core.store.postgres`, loaded only for such a URL.

A database becomes a store only when asked (``create``: ``recrawl init``). Any other
opening needs a Recrawl store already there: an empty file, another program's file or
database are refused with one line, before a byte is written to them (SQLite would
otherwise write its header and WAL mode into an empty file, and migrations would add
our tables to anything).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from peewee import Database, OperationalError, PostgresqlDatabase, SqliteDatabase
from recrawl.core.disk import disk_full, is_full, no_room
from recrawl.core.errors import DiskFull, ProjectError, StoreError
from recrawl.core.store.active import _ACTIVE, active_database, current
from recrawl.core.store.migrations import SCHEMA_VERSION, current_version, migrate
from recrawl.core.store.models import DB, Setting
from recrawl.core.store.sql import is_server_store

T = TypeVar("T")

_SQLITE_FILE = "sqlite:///"
SQLITE_PRAGMAS: dict[str, int | str] = {
    "journal_mode": "wal",  # readers never block the crawl; a kill loses nothing committed
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    "synchronous": 1,  # NORMAL: durable across process kills in WAL mode
    # KiB of pages each connection caches (the OS caches the file too): a crawl has one
    # connection per thread, and 32 MB each took a fifth of its 300 MiB budget
    "cache_size": -8_000,
}


_SQLITE_MAGIC = b"SQLite format 3\x00"


class _ReadingConnection(sqlite3.Connection):
    """A connection opened on a full disk, for reading only (:class:`StoreSqlite`)."""


def _no_room(exc: BaseException, path: Path) -> bool:
    """Whether opening the store at ``path`` failed for want of space."""
    if is_full(exc):
        return True
    # SQLite could not make its WAL index (the -shm file) for a reader
    name = getattr(exc, "sqlite_errorname", "")
    return name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")) and no_room(path)


def _connect_without_room(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection to the store at ``path`` that needs no new byte on the disk.

    A store whose WAL is empty (closed cleanly) is all in its file: it is read as
    immutable, without the WAL index, beside any other such reader. One whose WAL holds
    commits (a killed writer) is read with the index in memory, which takes the file
    for this connection alone (no other process can have it open: it would have made
    the index)."""
    wal = path.with_name(path.name + "-wal")
    uri = path.resolve().as_uri()
    if not wal.exists() or wal.stat().st_size == 0:
        return sqlite3.connect(
            f"{uri}?mode=ro&immutable=1",
            uri=True,
            timeout=timeout,
            isolation_level=None,
            factory=_ReadingConnection,
        )
    conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    return conn


class StoreSqlite(SqliteDatabase):
    """A project's SQLite store, which opens on a full disk too (docs/design.md §18).

    A reader's connection needs SQLite's WAL index (``-shm``), which a clean close
    deleted and a full disk has no room to make again: that connection then opens
    without it (:func:`_connect_without_room`), and a write on it raises
    :class:`~recrawl.core.errors.DiskFull`. Each connection tries the normal way
    first, so a thread connecting once space is freed writes again."""

    # peewee's own hooks, which its type stubs leave out
    _peewee: Any = SqliteDatabase

    def _connect(self) -> sqlite3.Connection:
        try:
            conn: sqlite3.Connection = self._peewee._connect(self)
        except sqlite3.Error as exc:
            path = Path(self.database)
            if not _no_room(exc, path):
                raise
            own: Any = self
            conn = _connect_without_room(path, own._timeout)
            try:
                own._add_conn_hooks(conn)
            except Exception:
                conn.close()
                raise
        return conn

    def _set_pragmas(self, conn: sqlite3.Connection) -> None:
        if not isinstance(conn, _ReadingConnection):
            self._peewee._set_pragmas(self, conn)
            return
        own: Any = self
        for key, value in own._pragmas:  # not the ones that write: journal_mode
            if key in ("foreign_keys", "busy_timeout", "cache_size"):
                conn.execute(f"PRAGMA {key} = {value}")

    def execute_sql(self, sql: str, params: Any = None) -> Any:
        try:
            return super().execute_sql(sql, params)
        except OperationalError as exc:
            if self.reading_only() and "readonly" in str(exc):
                raise disk_full(Path(self.database)) from exc
            raise

    def reading_only(self) -> bool:
        """Whether this thread's connection opened for reading only (a full disk)."""
        own: Any = self
        return isinstance(own._state.conn, _ReadingConnection)


#: Where a store is: a SQLite file (a project's own ``recrawl.sqlite``), or a database URL
#: (``postgresql://…``; ``sqlite:///PATH`` for a file named by URL).
StoreLocation = Path | str


def open_database(
    where: StoreLocation,
    *,
    create: bool = False,
    password: str | None = None,
    upgrading: Callable[[int], contextlib.AbstractContextManager[object]] | None = None,
) -> Database:
    """Connect to the store at ``where``, upgrade it, and make it this context's active
    store (:mod:`.active`); it is opened once, upgraded or not.

    ``create``: an empty database may become a new store (else it is refused).
    ``upgrading(version)``: held while a store of that older schema version is upgraded
    (the project takes its lock: a crawl of an older Recrawl never sees it change).
    ``password``: for a database server, one the user typed (never stored).
    """
    if isinstance(where, str) and where.startswith(_SQLITE_FILE) and "?" not in where:
        where = Path(where[len(_SQLITE_FILE) :])
    if isinstance(where, Path):
        _check_sqlite_file(where, create)
    try:
        db = _connect(where, password)
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"cannot open the store ({exc})") from None
    before = _ACTIVE.set(db)  # migrations query through the models
    try:
        db.connect(reuse_if_open=True)
        _check_is_store(db, create)
        found = current_version(db)
        if found != SCHEMA_VERSION:  # migrate() refuses a newer one
            held = (
                upgrading(found)
                if upgrading is not None and 0 < found < SCHEMA_VERSION
                else contextlib.nullcontext()
            )
            with held, exclusive(MIGRATION, "upgrading the store", wait=True):
                migrate(db)  # reads the version again: another process may have migrated
    except Exception as exc:
        # the store that was active stays the one this context's queries go to
        with contextlib.suppress(Exception):
            db.close()
        _ACTIVE.reset(before)
        if isinstance(exc, StoreError | ProjectError | DiskFull):
            raise
        raise _describe(db, exc) from None
    return db


def _describe(db: Database, exc: Exception) -> StoreError:
    if isinstance(db, PostgresqlDatabase):
        from recrawl.core.store.postgres import describe

        described = describe(exc)
        if described is not None:
            return described
    return StoreError(f"cannot open the store ({exc})")


def postgres_client() -> str:
    """The PostgreSQL client library the store would use (the bundle's self-test checks
    that it loads); raises when it cannot."""
    from recrawl.core.store import postgres

    return postgres.client_version()


MIGRATION = 1
COMPACTION = 2
#: Recovering dead workers' open segments (docs/design.md §12): one recoverer at a time.
RECOVERY = 3


@contextlib.contextmanager
def exclusive(what: int, purpose: str, *, wait: bool = False) -> Iterator[None]:
    """On PostgreSQL, hold advisory lock ``what`` (:data:`MIGRATION`, :data:`COMPACTION`,
    :data:`RECOVERY`)
    meanwhile, so no two processes do it at once (docs/design.md §12): ``wait`` for it, or
    raise :class:`recrawl.core.errors.StoreBusy`. A SQLite store has the project lock."""
    if not is_server_store():
        yield
        return
    from recrawl.core.store.postgres import advisory_lock

    with advisory_lock(active_database(), what, wait=wait, purpose=purpose):
        yield


def _check_sqlite_file(path: Path, create: bool) -> None:
    """Refuse a file that is not a Recrawl store before SQLite writes a byte to it."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except FileNotFoundError:
        if create:
            return
        raise StoreError(f"no store at {path}") from None
    except OSError as exc:
        raise StoreError(f"cannot read the store {path}: {exc.strerror}") from None
    if not head:
        raise StoreError(
            f"cannot open the store {path}: it is empty (0 bytes), not a Recrawl store"
        )
    if head != _SQLITE_MAGIC:
        raise StoreError(f"cannot open the store {path}: it is not a Recrawl store (nor SQLite)")
    # another program's SQLite database: look without writing (connecting would turn
    # on WAL mode in it)
    try:
        try:
            version = _schema_version(
                sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            )
        except sqlite3.Error as exc:
            if not _no_room(exc, path):
                raise
            version = _schema_version(_connect_without_room(path, 5.0))
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the store {path} ({exc})") from None
    if version is None:
        raise StoreError(
            f"cannot open the store {path}: it is an SQLite database, but not a Recrawl store"
        )


def _schema_version(connection: sqlite3.Connection) -> tuple[str] | None:
    """The schema version a SQLite database's settings table holds (None: it has none)."""
    table = Setting._meta.table_name
    with contextlib.closing(connection) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if table not in tables:
            return None
        query = f"SELECT value FROM {table} WHERE key = 'schema_version'"
        found: tuple[str] | None = conn.execute(query).fetchone()
        return found


def _check_is_store(db: Database, create: bool) -> None:
    """The open database is a store, or empty and about to become one (``create``)."""
    tables = db.get_tables()
    if Setting._meta.table_name in tables and current_version(db) > 0:
        return
    if create and not tables:
        return
    if tables:
        raise StoreError("the database holds something else: not a Recrawl store")
    raise StoreError("the database is empty: not a Recrawl store")


def _connect(url: StoreLocation, password: str | None) -> Database:
    # A project's own store (a file) opens directly: playhouse.db_url imports the
    # driver of every database it knows, a tenth of a quick command's start-up.
    if isinstance(url, Path):
        return StoreSqlite(str(url), pragmas=SQLITE_PRAGMAS)
    if url.split(":", 1)[0].lower() in ("postgresql", "postgres"):
        from recrawl.core.store import postgres

        return postgres.connect(url, password)
    from playhouse.db_url import connect

    kwargs: dict[str, Any] = {"pragmas": SQLITE_PRAGMAS} if url.startswith("sqlite") else {}
    db: Database = connect(url, **kwargs)
    return db


def reading_only() -> bool:
    """Whether this thread's connection to the active store opened for reading only, as
    a full disk left no room to open it otherwise (:class:`StoreSqlite`)."""
    db = active_database()
    if not isinstance(db, StoreSqlite):
        return False
    db.connection()  # the way it opens tells
    return db.reading_only()


def close_database() -> None:
    """Close this thread's connection to the active store (if any is active and open)."""
    db = current()
    if db is not None and not db.is_closed():
        db.close()


def transaction() -> contextlib.AbstractContextManager[object]:
    """One transaction around several store calls (nested calls join it)."""
    return DB.atomic()


def retried(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` as one transaction that a lost database server does not break:
    on PostgreSQL it runs again whole on a new connection when the server was lost before
    its commit, and not again when the commit went through (docs/design.md §12,
    :mod:`recrawl.core.store.reconnect`). On SQLite (no server to lose): just the call."""
    if not is_server_store():
        return function(*args)
    from recrawl.core.store.reconnect import Reconnecting

    db = active_database()
    assert isinstance(db, Reconnecting)
    return db.run_transaction(lambda: function(*args))


@contextlib.contextmanager
def reconnecting(give_up_after: float, report: Callable[[str], None]) -> Iterator[None]:
    """Meanwhile a lost database server is tried again for ``give_up_after`` seconds
    (``database.give_up_after``), and each loss and recovery is ``report``-ed (one line);
    no-op on SQLite."""
    if not is_server_store():
        yield
        return
    from recrawl.core.store.reconnect import Reconnecting

    db = active_database()
    assert isinstance(db, Reconnecting)
    before = db.give_up_after, db.report
    db.give_up_after, db.report = give_up_after, report
    try:
        yield
    finally:
        db.give_up_after, db.report = before
