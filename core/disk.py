"""A full disk (docs/design.md §18): which errors mean one, and the one line said of it.

A year of captures fills a disk. Where it fills is anyone's guess: a WARC record, a
CDXJ index, the store's own file or its WAL, a screenshot, a temporary file. Each of
those raises its own error (``OSError`` with ``ENOSPC`` or ``EDQUOT``; SQLite's
"database or disk is full", as ``sqlite3.OperationalError`` or peewee's wrapper of it),
often while handling another. :func:`full_disk` finds one anywhere in an error's chain
and makes it a :class:`~recrawl.core.errors.DiskFull`, which names the free space and the
mount point, so a crawl, a watch or a compaction stops with one line and the watcher
knows to wait for space rather than give up.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from recrawl.core.errors import DiskFull
from recrawl.core.words import human_size

#: The OSError numbers of a full disk: no space left, or the user's quota spent.
FULL_ERRNOS = frozenset(
    code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None)) if code is not None
)
#: SQLite's result code for a full disk (SQLITE_FULL), and its message.
_SQLITE_FULL = 13
_SQLITE_FULL_TEXT = "database or disk is full"

#: What a crawl's full disk leaves: its last commit stands, and recovery takes it from there.
NOTHING_LOST = "nothing committed is lost"


def is_full(exc: BaseException) -> bool:
    """Whether ``exc``, or an error it was raised from or while handling, is a full disk."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if _means_full(cause):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _means_full(exc: BaseException) -> bool:
    if isinstance(exc, DiskFull):
        return True
    if isinstance(exc, OSError):
        return exc.errno in FULL_ERRNOS
    if isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL:
        return True
    # peewee's OperationalError (raised from sqlite3's, which it keeps as its first
    # argument) and anything else that only carries SQLite's words
    return type(exc).__name__ == "OperationalError" and _SQLITE_FULL_TEXT in str(exc)


def mount_point(path: Path) -> Path:
    """The mount point of the filesystem holding ``path`` (what ``df`` names)."""
    here = Path(os.path.abspath(path))
    while not here.exists() and here != here.parent:
        here = here.parent
    while not os.path.ismount(here) and here != here.parent:
        here = here.parent
    return here


def free_bytes(path: Path) -> int | None:
    """Bytes free to this user on the filesystem of ``path`` (None: it cannot be asked)."""
    try:
        return shutil.disk_usage(mount_point(path)).free
    except OSError:
        return None


#: Below this much free space, a disk counts as full (SQLite's WAL index alone needs 32 KiB).
NO_ROOM = 1 << 20


def no_room(path: Path) -> bool:
    """Whether the filesystem of ``path`` has less than :data:`NO_ROOM` free."""
    free = free_bytes(path)
    return free is not None and free < NO_ROOM


def disk_full(path: Path, then: str = NOTHING_LOST) -> DiskFull:
    """The error for a full disk under ``path``: ``disk full: 12 KiB free on /mnt; {then}``."""
    free = free_bytes(path)
    where = mount_point(path)
    said = f"on {where}" if free is None else f"{human_size(free)} free on {where}"
    return DiskFull(f"disk full: {said}; {then}", free=free, where=where)


def full_disk(exc: BaseException, path: Path, then: str = NOTHING_LOST) -> DiskFull | None:
    """``exc`` as a :class:`DiskFull` when it is one (:func:`is_full`), else None.

    A DiskFull raised already keeps its own words (where it was said first)."""
    if isinstance(exc, DiskFull):
        return exc
    if not is_full(exc):
        return None
    return disk_full(path, then)


@contextlib.contextmanager
def raising_disk_full(path: Path, then: str = NOTHING_LOST) -> Iterator[None]:
    """Meanwhile, a full disk (anywhere in an error's chain) raises :class:`DiskFull`
    instead: one line for the user, the original kept as its cause (``--debug``)."""
    try:
        yield
    except DiskFull:
        raise
    except BaseException as exc:
        full = full_disk(exc, path, then)
        if full is None:
            raise
        raise full from exc
