"""A project: one folder with the store (``recrawl.sqlite``) and ``segments/`` (its layout:
:mod:`recrawl.core.layout`).

Or the store in PostgreSQL (docs/design.md §12): then the folder has no ``recrawl.sqlite`` but
a project file, ``recrawl.toml``, naming the database by its URL (never a password).

A project owns its store (docs/design.md §2): :attr:`Project.database`, opened once. Opening
a project makes it the active one where it is opened (the calling thread's context);
another thread enters it with ``with project.active():`` before it queries
(:mod:`recrawl.core.store.active`), so two projects open in one process never see each
other's pages.
Only :meth:`Project.init` makes a store; opening never does, and refuses a store file
that is empty or another program's (the store module looks before writing a byte).
Writers (a crawl, a compaction) take the project lock first.

A store an older Recrawl wrote is upgraded on opening, by whichever command opens it
first, reading ones included, and the notes say so. A user who installed a newer
Recrawl and asks for ``recrawl urls`` wants the pages, not a message sending them to
run some writing command first; the upgrade is what any command or the app would do
before anything else, and it runs migration by migration, each in one transaction. It
takes the project lock, so it never changes a store under a crawl of the older version.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.disk import disk_full, full_disk, raising_disk_full
from recrawl.core.errors import (
    DiskFull,
    ProjectError,
    ProjectLocked,
    RecrawlError,
    StoreError,
)
from recrawl.core.layout import PROJECT_FILE, STORE_FILE, Layout
from recrawl.core.store.active import closed, current, is_closed
from recrawl.core.store.migrations import SCHEMA_VERSION

if TYPE_CHECKING:  # peewee after recrawl.core.store: it loads psycopg otherwise (quiet_peewee)
    from peewee import Database


def default_project_dir() -> Path:
    import platformdirs  # only the app's default project needs it: commands start quicker

    return Path(platformdirs.user_data_dir("Recrawl", appauthor=False)) / "default"


def read_project_file(folder: Path) -> str | None:
    """The database URL the folder's project file names (None: no project file)."""
    try:
        text = Layout(folder).project_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProjectError(f"cannot read {Layout(folder).project_file}: {exc}") from None
    try:
        url = tomllib.loads(text).get("store")
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"{Layout(folder).project_file} is not a project file: {exc}") from None
    if not isinstance(url, str) or not url:
        raise ProjectError(f'{Layout(folder).project_file} names no store (store = "URL")')
    return url


def _write_project_file(folder: Path, url: str) -> None:
    text = (
        "# A Recrawl project: its captures are in segments/ beside this file, its store\n"
        "# in the database below. No password here: libpq reads ~/.pgpass or PGPASSWORD.\n"
        f"store = {json.dumps(url)}\n"  # a JSON string is a TOML basic string
    )
    partial = folder / f"{PROJECT_FILE}.partial"
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, Layout(folder).project_file)


class Project:
    def __init__(self, path: Path, db_url: str | None = None, password: str | None = None) -> None:
        self.path = path
        #: Where everything is in the folder.
        self.layout = Layout(path)
        #: The database server's URL (PostgreSQL), or None: the folder's own SQLite file.
        self.db_url = db_url
        #: The store, once opened (by :meth:`open` or :meth:`init`).
        self._database: Database | None = None
        #: The store that was active where this project was opened: active again there
        #: when this one closes (a command run inside the app's process, a test).
        self._before: Database | None = None
        #: A password the user typed for the database server: this session's only.
        self.password = password
        self._lock_handle: int | None = None
        self._lock_purpose = ""
        #: What opening the project had to say (an upgraded store, recovered work, a
        #: recovery that failed).
        self.notes: list[str] = []
        #: Whether :meth:`init` made this project (False: it was there already).
        self.created = False
        self._guard = threading.Lock()  # one project object may serve several threads

    @property
    def segments_dir(self) -> Path:
        return self.layout.segments

    @property
    def store_location(self) -> Path | str:
        """Where the store is: the folder's SQLite file, or the database server's URL."""
        return self.db_url if self.db_url is not None else self.layout.store_file

    @property
    def database(self) -> Database:
        if self._database is None:
            raise ProjectError(f"the project {self.path} is not open")
        return self._database

    def active(self) -> contextlib.AbstractContextManager[Database]:
        """Meanwhile, store queries in this context go to this project's store: what a
        thread does before it queries (opening a project makes it active where it opens)."""
        return store.using(self.database)

    def enter(self) -> None:
        """Make this project's store the active one of this context from now on (a
        thread's first act; :meth:`active` for a block)."""
        store.activate(self.database)

    @classmethod
    def init(
        cls,
        path: str | os.PathLike[str],
        db_url: str | None = None,
        password: str | None = None,
    ) -> Project:
        """Create a project folder, or open the project already there (see ``created``).

        ``db_url``: the store in that database (PostgreSQL) instead of ``recrawl.sqlite``.
        """
        folder = Path(path).expanduser()
        if folder.exists() and not folder.is_dir():
            raise ProjectError(f"{folder} is a file: a project needs a folder of its own")
        named = read_project_file(folder) if folder.is_dir() else None
        has_file = Layout(folder).store_file.exists()
        if db_url is not None and (has_file or (named is not None and named != db_url)):
            where = Layout(folder).store_file if has_file else named
            raise ProjectError(f"{folder} is a project already, with its store in {where}")
        if has_file or named is not None:
            return cls.open(folder, password=password)  # refuses a store that is not ours
        if db_url is not None:
            from recrawl.core.store.postgres import check_url, is_postgres_url

            if not is_postgres_url(db_url):
                raise ProjectError(
                    f"not a PostgreSQL URL: {db_url} (postgresql://USER@HOST[:PORT]/DB; "
                    "without --db the store is recrawl.sqlite in the folder)"
                )
            check_url(db_url)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            Layout(folder).segments.mkdir(exist_ok=True)
        except OSError as exc:
            raise ProjectError(f"cannot create project folder {folder}: {exc.strerror}") from None
        project = cls(folder, db_url, password)
        project._open_store(create=True)
        if db_url is not None:
            try:
                _write_project_file(folder, db_url)
            except OSError as exc:
                project.close()
                raise ProjectError(f"cannot write {Layout(folder).project_file}: {exc}") from None
        project.created = True
        # the policy stack (numpy): only a new project needs its defaults written
        from recrawl.core.policy.choices import ensure_defaults

        ensure_defaults()
        project.recover_if_idle()
        return project

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        db_url: str | None = None,
        password: str | None = None,
    ) -> Project:
        """Open an existing project; a folder without a store is an error.

        ``password``: for a store on a database server, one the user typed.
        """
        folder = Path(path).expanduser()
        if not folder.exists():
            raise ProjectError(f"no project at {folder} (run `recrawl init {folder}` first)")
        if not folder.is_dir():
            raise ProjectError(f"{folder} is a file, not a project folder")
        db_url = db_url or read_project_file(folder)
        if db_url is None and not Layout(folder).store_file.exists():
            raise ProjectError(f"{folder} is not a Recrawl project (no {STORE_FILE})")
        project = cls(folder, db_url, password)
        project._open_store()
        project.recover_if_idle()
        return project

    @classmethod
    def open_or_init_default(cls) -> Project:
        return cls.init(default_project_dir())

    def _open_store(self, create: bool = False) -> None:
        self._before = current()
        try:
            self._database = store.open_database(
                self.store_location,
                create=create,
                password=self.password,
                upgrading=self._upgrading,
            )
        except (StoreError, ProjectLocked):
            raise
        except Exception as exc:  # sqlite3.DatabaseError and friends: a corrupt file
            full = full_disk(exc, self.path)  # an upgrade on a full disk, rolled back
            if full is not None:
                raise full from exc
            raise StoreError(f"cannot open the store of {self.path}: {exc}") from None

    @contextlib.contextmanager
    def _upgrading(self, version: int) -> Iterator[None]:
        # not while a writer (of the older Recrawl) works on it: module docstring
        with self.locked("upgrading the store"):
            yield
        self.notes.append(
            f"upgraded the store of {self.path} from schema {version} to "
            f"{SCHEMA_VERSION}; older versions of Recrawl can no longer open it"
        )

    def close(self) -> None:
        """Close this thread's connection to the store and release the lock; where it was
        the active project, the one active before it opened is again (unless closed)."""
        if self._database is not None:
            with contextlib.suppress(Exception):
                self._database.close()
            closed(self._database)
            if current() is self._database:
                before = self._before
                store.activate(None if before is None or is_closed(before) else before)
        self.release_lock()

    def recover_if_idle(self) -> list[str]:
        """Finish or undo what a killed crawl or compaction left, unless one is running."""
        if store.reading_only():  # a full disk: nothing could be recorded
            full = disk_full(self.path, "the project is open for reading only")
            self.notes.append(str(full))
            return []
        if not store.needs_recovery():
            return []  # readers never take the lock: a writer starting now won't meet them
        # the WARC and compaction code (warcio): only a project left mid-write needs it
        from recrawl.core.archive.recovery import recover

        try:
            self.acquire_lock("recovery")
        except ProjectLocked:
            return []  # its writer is alive and will finish its own work
        except DiskFull as exc:  # no room for the lock file: a reader reads all the same
            notes = [f"could not recover this project: {exc}"]
            self.notes.extend(notes)
            return notes
        try:
            with raising_disk_full(self.path):
                notes = recover(self.path, utcnow())
        except RecrawlError as exc:
            # readers can still read (pages point at readable files at every step); the
            # next writer retries the recovery and reports the problem
            notes = [f"could not finish recovering this project: {exc}"]
        finally:
            self.release_lock()
        self.notes.extend(notes)
        return notes

    # -- the writer lock ---------------------------------------------------------------
    # An OS file lock: it dies with the process, so a killed crawl never leaves a stale lock.
    # Not re-entrant: a crawl and a compaction started from one process exclude each other.

    def acquire_lock(self, purpose: str) -> None:
        with self._guard:
            self._acquire_lock(purpose)

    def _acquire_lock(self, purpose: str) -> None:
        if self._lock_handle is not None:
            raise ProjectLocked(
                f"the project {self.path} is busy ({self._lock_purpose}); wait for it to finish"
            )
        with raising_disk_full(self.path):
            fd = os.open(self.layout.lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock_fd(fd)
        except OSError:
            holder = os.read(fd, 200).decode("utf-8", "replace").strip()
            os.close(fd)
            watched = re.fullmatch(r"watch, pid (\d+)", holder)
            if watched:  # a watcher runs until stopped: waiting is no advice
                raise ProjectLocked(
                    f"the project {self.path} is watched by pid {watched[1]} "
                    "(`recrawl watch` or the app): it crawls what is due; stop it first"
                ) from None
            raise ProjectLocked(
                f"the project {self.path} is busy ({holder or 'another process'}); "
                "wait for it to finish"
            ) from None
        # the lock is the OS's; its text only names the holder to whoever is refused, so
        # a full disk (no block for these few bytes) does not stop a reader's recovery
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, f"{purpose}, pid {os.getpid()}".encode())
        self._lock_handle = fd
        self._lock_purpose = purpose

    def release_lock(self) -> None:
        with self._guard:
            if self._lock_handle is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._lock_handle, 0)
                os.close(self._lock_handle)
                self._lock_handle = None

    @contextlib.contextmanager
    def locked(self, purpose: str) -> Iterator[None]:
        self.acquire_lock(purpose)
        try:
            yield
        finally:
            self.release_lock()


def _lock_fd(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


# -- a folder chosen for a new project (issue 25: New Project made a folder of someone's
# files a project without asking; the app asks first, and `recrawl gui DIR` offers to
# create a missing one) ------------------------------------------------------------------


class FolderKind(StrEnum):
    MISSING = "missing"
    EMPTY = "empty"
    #: A Recrawl project (its store, or a project file naming one).
    PROJECT = "project"
    #: Files or folders that are not a project's.
    OTHER = "other"
    #: A file, not a folder.
    FILE = "file"


@dataclass(frozen=True, slots=True)
class FolderUse:
    """What a folder chosen for a new project holds."""

    folder: Path
    kind: FolderKind
    #: How many files and folders it holds (counted up to :data:`COUNT_UP_TO`).
    entries: int = 0

    def describe(self) -> str:
        """One line for the New Project dialog: what is at that place."""
        where = str(self.folder)
        if self.kind == FolderKind.MISSING:
            return f"A new folder is made: {where}"
        if self.kind == FolderKind.EMPTY:
            return f"An empty folder: {where}"
        if self.kind == FolderKind.PROJECT:
            return f"A Recrawl project already (it is opened): {where}"
        if self.kind == FolderKind.FILE:
            return f"A file, not a folder: {where}"
        return f"A folder of {count_text(self.entries)} that is not a project: {where}"


#: Counting stops here: a home folder's entries need not all be read to say "many".
COUNT_UP_TO = 1000


def count_text(entries: int) -> str:
    if entries >= COUNT_UP_TO:
        return f"{COUNT_UP_TO:,} or more files and folders"
    return f"{entries:,} file{'s' if entries != 1 else ''} or folder{'s' if entries != 1 else ''}"


def folder_use(path: str | os.PathLike[str]) -> FolderUse:
    folder = Path(path).expanduser()
    if not folder.exists():
        return FolderUse(folder, FolderKind.MISSING)
    if not folder.is_dir():
        return FolderUse(folder, FolderKind.FILE)
    if Layout(folder).is_project():
        return FolderUse(folder, FolderKind.PROJECT)
    entries = 0
    try:
        with os.scandir(folder) as scan:
            for _ in scan:
                entries += 1
                if entries >= COUNT_UP_TO:
                    break
    except OSError:
        entries = COUNT_UP_TO  # unreadable: as if full, so the user is asked
    return FolderUse(folder, FolderKind.OTHER if entries else FolderKind.EMPTY, entries)
