"""A project folder's layout: every name in it, in one place (docs/design.md §7, §10, §12).

    recrawl.sqlite (-wal, -shm)     the store, unless the project file names a server
    recrawl.toml                    the project file: the store's database URL (§12)
    recrawl.lock                    the writer lock; "PURPOSE, pid N" while held
    recrawl.watch                   a running watcher's wake channel (§10)
    segments/NAME/NAME.warc.gz      the captures, a folder per segment, with NAME.cdxj
    history/NAME-history.warc.gz    what a compaction kept of the segments it folded

Code that needs a path in the folder asks :class:`Layout` (or takes the relative names
below), the app included: none spells a file name of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STORE_FILE = "recrawl.sqlite"
PROJECT_FILE = "recrawl.toml"
LOCK_FILE = "recrawl.lock"
WAKE_FILE = "recrawl.watch"
SEGMENTS_DIR = "segments"
HISTORY_DIR = "history"
#: SQLite's write-ahead log beside the store file: each commit changes it.
_WAL_SUFFIX = "-wal"


@dataclass(frozen=True, slots=True)
class Layout:
    """The paths of the project in ``folder``."""

    folder: Path

    @property
    def store_file(self) -> Path:
        return self.folder / STORE_FILE

    @property
    def project_file(self) -> Path:
        return self.folder / PROJECT_FILE

    @property
    def lock_file(self) -> Path:
        return self.folder / LOCK_FILE

    @property
    def wake_file(self) -> Path:
        return self.folder / WAKE_FILE

    @property
    def segments(self) -> Path:
        return self.folder / SEGMENTS_DIR

    @property
    def history(self) -> Path:
        return self.folder / HISTORY_DIR

    def segment(self, name: str) -> Path:
        """The folder of segment ``name``."""
        return self.segments / name

    def store_files(self) -> list[Path]:
        """The files a commit to a SQLite store changes (the store file and its WAL)."""
        return [self.store_file, self.folder / (STORE_FILE + _WAL_SUFFIX)]

    def is_project(self) -> bool:
        """Whether the folder holds a project: its store file, or a project file."""
        return self.store_file.exists() or self.project_file.exists()


def segment_relpath(name: str, filename: str) -> str:
    """``segments/NAME/FILENAME``: a file of a segment, as the store points at it."""
    return f"{SEGMENTS_DIR}/{name}/{filename}"
