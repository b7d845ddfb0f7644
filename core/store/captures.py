"""The capture table (docs/design.md §7): every indexed capture by URL, SURT key and file.

A lookup reads this table, not the CDXJ files (one per segment and compaction: their
count grows with the project's age). The files stay the record; the table is derived:
a crawl's commit adds the rows of the captures it commits, a compaction's commit moves
those of the segments it folds, and :func:`replace_captures` rebuilds it from the
indexes whenever it is found incomplete (the ``capture_table`` setting).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from peewee import fn
from recrawl.core.store.models import Capture, Segment
from recrawl.core.store.settings import get_setting, set_setting
from recrawl.core.store.sql import chunks, insert_rows

#: The setting that says whether the table holds every indexed capture: ``complete``,
#: or ``stale`` (made before it, or found disagreeing: rebuilt by the next recovery).
CAPTURE_TABLE = "capture_table"
COMPLETE = "complete"
STALE = "stale"

COLUMNS = ("url", "key", "stamp", "file", "offset", "length", "mime", "status", "digest")
#: Rows written per statement batch when the table is (re)built.
BATCH = 5000


class CaptureRow(NamedTuple):
    """A row of the table: what a CDXJ line says, and the WARC's path in the project."""

    url: str
    key: str
    stamp: str  # yyyymmddHHMMSS
    file: str  # segments/<n>/<n>.warc.gz or history/<...>.warc.gz
    offset: int
    length: int | None
    mime: str
    status: str
    digest: str


def captures_ready() -> bool:
    """Whether the table holds every indexed capture (lookups may trust it)."""
    return bool(get_setting(CAPTURE_TABLE, STALE) == COMPLETE)


def mark_captures(state: str) -> None:
    set_setting(CAPTURE_TABLE, state)


def add_captures(rows: Sequence[CaptureRow]) -> None:
    """Insert rows (inside the caller's transaction, if it has one)."""
    for chunk in chunks(rows, BATCH):
        insert_rows(Capture, COLUMNS, chunk)


def drop_file_captures(files: Iterable[str]) -> int:
    """Delete the rows of these WARCs; returns how many went."""
    gone = 0
    for chunk in chunks(sorted(set(files))):
        gone += Capture.delete().where(Capture.file.in_(chunk)).execute()
    return gone


def captures_by_url(urls: Sequence[str]) -> list[CaptureRow]:
    """Every row of these URLs, in no particular order."""
    out: list[CaptureRow] = []
    fields = [getattr(Capture, name) for name in COLUMNS]
    for chunk in chunks(sorted(set(urls))):
        query = Capture.select(*fields).where(Capture.url.in_(chunk)).tuples()
        out += [CaptureRow(*row) for row in query.iterator()]
    return out


def capture_count() -> int:
    return int(Capture.select(fn.COUNT(Capture.id)).scalar() or 0)


def capture_span() -> tuple[str, str] | None:
    """The stamps of the first and the latest capture (None: no capture yet)."""
    first, last = Capture.select(fn.MIN(Capture.stamp), fn.MAX(Capture.stamp)).scalar(as_tuple=True)
    return (str(first), str(last)) if first is not None and last is not None else None


def capture_files() -> dict[str, int]:
    """How many rows each WARC has."""
    query = Capture.select(Capture.file, fn.COUNT(Capture.id)).group_by(Capture.file).tuples()
    return {file: int(count) for file, count in query.iterator()}


def closed_segment_records() -> dict[str, int]:
    """Each closed segment's WARC and how many captures its index lists."""
    query = Segment.select(Segment.warc_file, Segment.records).where(Segment.state == "closed")
    return {file: int(records) for file, records in query.tuples().iterator()}


def open_segment_files() -> set[str]:
    query = Segment.select(Segment.warc_file).where(Segment.state == "open")
    return {file for (file,) in query.tuples().iterator()}
