"""Segments (docs/design.md §7): one WARC + CDXJ per crawl round, found and read.

Layout: ``segments/<name>/<name>.warc.gz`` and ``segments/<name>/<name>.cdxj``; while a
round writes, the WARC is ``<name>.warc.gz.open`` (:mod:`.segment_writer` writes, closes
and recovers them). Superseded captures that compaction keeps live in ``history/``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.warc import StoredRecord, read_record
from recrawl.core.clock import segment_name
from recrawl.core.layout import HISTORY_DIR, Layout, segment_relpath

OPEN_SUFFIX = ".open"


def warc_relpath(name: str) -> str:
    return segment_relpath(name, f"{name}.warc.gz")


def index_path(warc: Path) -> Path:
    """``<name>.cdxj`` beside ``<name>.warc.gz``."""
    return warc.with_suffix("").with_suffix(".cdxj")


def index_files(project_dir: Path) -> list[Path]:
    """Every finished CDXJ index: the segments' and history's."""
    layout = Layout(project_dir)
    return sorted(layout.segments.glob("*/*.cdxj")) + sorted(layout.history.glob("*.cdxj"))


def resolve(project_dir: Path, relpath: str) -> Path:
    """The file a stored pointer names: the final WARC, or its ``.open`` while written."""
    final = project_dir / relpath
    if final.exists():
        return final
    pending = final.with_name(final.name + OPEN_SUFFIX)
    return pending if pending.exists() else final


def history_relpath(name: str) -> str:
    """``history/<name>-history.warc.gz``: named apart from the compaction's own segment.

    A replay collection or a WACZ keeps every WARC of an archive in one folder and finds
    each by the file name its index gives, so no two WARCs of a project share a name
    (compactions before this named both ``<name>.warc.gz``: :func:`legacy_history_relpath`).
    """
    return f"{HISTORY_DIR}/{name}-history.warc.gz"


def legacy_history_relpath(name: str) -> str:
    """Where compactions of earlier versions put the history file of compaction ``name``."""
    return f"{HISTORY_DIR}/{name}.warc.gz"


def allocate_name(project_dir: Path, start: datetime, tag: str | None = None) -> str:
    """``yyyymmddHHMMSS`` of a round's (or compaction's) start, moved on a second if taken;
    a worker's round adds its ``tag`` (``yyyymmddHHMMSS-TAG``, docs/design.md §12), so workers
    sharing the folder never pick one name.

    Taken means known to the store as a segment or a compaction, or present on disk as
    a segment folder or a history file: a new name never meets anything left behind.
    """
    taken = store.segment_names() | store.compaction_names()
    instant = start.replace(microsecond=0)
    while (
        (name := segment_name(instant) + (f"-{tag}" if tag else "")) in taken
        or Layout(project_dir).segment(name).exists()
        or (project_dir / history_relpath(name)).exists()
        or (project_dir / legacy_history_relpath(name)).exists()
    ):
        instant += timedelta(seconds=1)
    return name


def read_payload(project_dir: Path, relpath: str, offset: int) -> StoredRecord:
    """The stored record a page's payload pointer names (open or closed segment)."""
    return read_record(resolve(project_dir, relpath), offset)
