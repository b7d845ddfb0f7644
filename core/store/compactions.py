"""The compaction journal (docs/design.md §7): one row per compaction, so that a killed one
is finished or undone (:mod:`recrawl.core.archive.compaction` runs the protocol).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from recrawl.core.store.captures import CaptureRow, add_captures, captures_ready, drop_file_captures
from recrawl.core.store.models import DB, Compaction, Page, Segment
from recrawl.core.store.settings import INDEX_KEYS, STANDARD_KEYS, get_setting
from recrawl.core.store.sql import executemany, is_server_store
from recrawl.core.store.workers import recoverable_segment

UNFINISHED = ("copying", "committed")


def compaction_names() -> set[str]:
    return {name for (name,) in Compaction.select(Compaction.name).tuples().iterator()}


def begin_compaction(name: str, sources: Sequence[str], drop: bool, now: datetime) -> None:
    Compaction.create(
        name=name, state="copying", started_at=now, sources=list(sources), drop_superseded=drop
    )


def unfinished_compactions() -> list[Compaction]:
    return list(Compaction.select().where(Compaction.state.in_(UNFINISHED)).order_by(Compaction.id))


@dataclass(frozen=True)
class Move:
    """A record a page points at, copied: from ``offset`` of ``segment`` to
    ``new_offset`` of the compaction's new segment."""

    page_id: int
    segment: str
    offset: int
    new_offset: int


def commit_compaction(
    name: str,
    sources: Sequence[str],
    captures: Sequence[Move],
    payloads: Sequence[Move],
    new_segment: tuple[str, int, int] | None,
    summary: dict[str, Any],
    now: datetime,
    stop: Callable[[], bool] = lambda: False,
    capture_rows: Sequence[CaptureRow] = (),
) -> int | None:
    """The one transaction of a compaction: pages move, old segments go, the new one comes.

    ``captures`` and ``payloads`` are the pages' latest captures and payloads the plan
    found in ``sources`` and the copy moved; ``new_segment`` is (WARC path, records,
    bytes), or None when nothing was live. A page follows a move only while it still
    points where the plan saw it: on a shared store a worker may have re-captured it
    since (docs/design.md §12), and its new pointer must stay. Returns how many pointers
    stayed so (their copies are dead records of the new segment).

    ``stop`` is asked last, with the write lock held: a stop asked for while the commit
    waited for the lock is still a stop before the commit (None: rolled back, nothing
    changed).

    ``capture_rows``: the capture table's rows of the new segment and history file; the
    rows of ``sources`` go (their WARCs' captures are those rows, or dropped), in this
    transaction, so the table matches the files whichever side of it a kill falls.
    """
    relpath = new_segment[0] if new_segment is not None else None
    with DB.atomic() as transaction:
        files = Segment.select(Segment.warc_file).where(Segment.name.in_(list(sources)))
        drop_file_captures([segment.warc_file for segment in files])
        add_captures(capture_rows)
        stayed = _repoint(
            captures, name, relpath, Page.segment, Page.capture_file, Page.capture_offset
        ) + _repoint(
            payloads, name, relpath, Page.payload_segment, Page.payload_file, Page.payload_offset
        )
        Segment.delete().where(Segment.name.in_(list(sources))).execute()
        if new_segment is not None:
            relpath, records, size = new_segment
            Segment.create(
                name=name,
                created_at=now,
                closed_at=now,
                state="closed",
                warc_file=relpath,
                committed_bytes=size,
                records=records,
                bytes=size,
            )
        Compaction.update(state="committed", summary=summary).where(
            Compaction.name == name
        ).execute()
        if stop():
            transaction.rollback()
            return None
    return stayed


def _repoint(
    moves: Sequence[Move], name: str, relpath: str | None, segment: Any, file: Any, offset: Any
) -> int:
    """Point pages at the moved copies of their records, where they still point at the
    originals (compare-and-set in the WHERE); returns how many no longer did."""
    if not moves:
        return 0
    assert relpath is not None  # records moved: there is a new segment
    first = moves[0]
    query = Page.update({segment: name, file: relpath, offset: first.new_offset}).where(
        (Page.id == first.page_id) & (segment == first.segment) & (offset == first.offset)
    )
    params = [[name, relpath, m.new_offset, m.page_id, m.segment, m.offset] for m in moves]
    return len(moves) - executemany(query, params)


def end_compaction(name: str, state: str, now: datetime) -> None:
    """Close a journal entry: ``done`` or ``rolled_back``."""
    Compaction.update(state=state, finished_at=now).where(Compaction.name == name).execute()


def needs_recovery() -> bool:
    """Whether a writer left work behind: an unfinished compaction or an open segment
    (on a shared store, one whose worker is dead: a live worker's is being written), or
    indexes still to re-key (migration 11), or a capture table to build (migration 16)."""
    if get_setting(INDEX_KEYS, STANDARD_KEYS) != STANDARD_KEYS or not captures_ready():
        return True
    unfinished = Compaction.select().where(Compaction.state.in_(UNFINISHED))
    left = Segment.select().where(Segment.state == "open")
    if is_server_store():
        left = left.where(recoverable_segment())
    return unfinished.exists() or left.exists()
