"""Opening and closing the store, and transactions around several calls.

The store is opened from a database URL (DESIGN.md §1); only the pragmas below are
SQLite's own.
"""

from __future__ import annotations

import contextlib
from typing import Any

from peewee import Database, SqliteDatabase
from recrawl.core.errors import StoreError
from recrawl.core.store.migrations import migrate
from recrawl.core.store.models import DB

_SQLITE_FILE = "sqlite:///"
SQLITE_PRAGMAS: dict[str, int | str] = {
    "journal_mode": "wal",  # readers never block the crawl; a kill loses nothing committed
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    "synchronous": 1,  # NORMAL: durable across process kills in WAL mode
    "cache_size": -32_000,
}


def open_database(url: str) -> Database:
    """Connect, migrate, and bind every model to the database ``url`` names."""
    try:
        db = _connect(url)
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


def _connect(url: str) -> Database:
    # A project's own store (sqlite:///PATH) opens directly: playhouse.db_url imports the
    # driver of every database it knows, a tenth of a quick command's start-up.
    if url.startswith(_SQLITE_FILE) and "?" not in url:
        return SqliteDatabase(url[len(_SQLITE_FILE) :], pragmas=SQLITE_PRAGMAS)
    from playhouse.db_url import connect

    kwargs: dict[str, Any] = {"pragmas": SQLITE_PRAGMAS} if url.startswith("sqlite") else {}
    db: Database = connect(url, **kwargs)
    return db


def close_database() -> None:
    if DB.obj is not None and not DB.is_closed():
        DB.close()


def transaction() -> contextlib.AbstractContextManager[object]:
    """One transaction around several store calls (nested calls join it)."""
    return DB.atomic()
