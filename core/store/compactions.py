"""The compaction journal (DESIGN.md §7): one row per compaction, so that a killed one
is finished or undone (:mod:`recrawl.core.archive.compaction` runs the protocol).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from recrawl.core.store.models import DB, Compaction, Segment
from recrawl.core.store.sql import is_server_store, update_pages
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


def commit_compaction(
    name: str,
    sources: Sequence[str],
    repoints: Sequence[tuple[int, Mapping[str, Any]]],
    new_segment: tuple[str, int, int] | None,
    summary: dict[str, Any],
    now: datetime,
    stop: Callable[[], bool] = lambda: False,
) -> bool:
    """The one transaction of a compaction: pages move, old segments go, the new one comes.

    ``repoints`` are (page id, new pointer columns); ``new_segment`` is (WARC path,
    records, bytes), or None when nothing was live. ``stop`` is asked last, with the
    write lock held: a stop asked for while the commit waited for the lock is still a
    stop before the commit (False: rolled back, nothing changed).
    """
    with DB.atomic() as transaction:
        update_pages(repoints)
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
            return False
    return True


def end_compaction(name: str, state: str, now: datetime) -> None:
    """Close a journal entry: ``done`` or ``rolled_back``."""
    Compaction.update(state=state, finished_at=now).where(Compaction.name == name).execute()


def needs_recovery() -> bool:
    """Whether a writer left work behind: an unfinished compaction or an open segment
    (on a shared store, one whose worker is dead: a live worker's is being written)."""
    unfinished = Compaction.select().where(Compaction.state.in_(UNFINISHED))
    left = Segment.select().where(Segment.state == "open")
    if is_server_store():
        left = left.where(recoverable_segment())
    return unfinished.exists() or left.exists()
