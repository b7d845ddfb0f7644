"""One compaction from start to end (:func:`compact`): the package's steps, in order."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from recrawl.core import store
from recrawl.core.archive.capture_table import check_captures
from recrawl.core.archive.compaction.copying import copy_plan
from recrawl.core.archive.compaction.journal import (
    commit,
    complete,
    describe,
    recover_compactions,
    roll_back,
)
from recrawl.core.archive.compaction.plan import (
    DROP,
    HISTORY,
    KEEP,
    Plan,
    choose_segments,
    make_plan,
)
from recrawl.core.archive.compaction.progress import CompactionProgress, Progress, quiet
from recrawl.core.archive.index_keys import rekey_indexes
from recrawl.core.archive.segment_writer import recover_open_segments
from recrawl.core.archive.segments import allocate_name, history_relpath
from recrawl.core.clock import utcnow
from recrawl.core.disk import full_disk, raising_disk_full
from recrawl.core.errors import ProjectError, RecrawlError, StoreBusy


class CompactionStopped(RecrawlError):
    """Asked to stop before its commit, the compaction was rolled back: nothing changed."""

    def __init__(self) -> None:
        super().__init__("the compaction stopped before its commit and was rolled back")


#: What a full disk leaves of a compaction (the end of its one line).
ROLLED_BACK = "the compaction was rolled back: nothing was changed"


def _never() -> bool:
    return False


@dataclass(frozen=True)
class CompactionSummary:
    compacted: list[str]
    new_segment: str | None
    history_file: str | None
    records_kept: int
    records_moved_to_history: int
    records_dropped: int
    bytes_before: int
    bytes_after: int
    history_bytes: int
    elapsed_s: float
    #: Seconds spent planning, copying (fsyncs included), committing, and renaming and
    #: deleting: where a slow compaction spends its time.
    phases: dict[str, float] = field(default_factory=dict)
    #: Pointers that did not follow their copied records: on a shared store a worker
    #: re-captured those pages between the plan and the commit (their copies are dead).
    recaptured_meanwhile: int = 0

    def to_json(self) -> dict[str, Any]:
        data = {"segments_compacted": len(self.compacted), **asdict(self)}
        data["elapsed_s"] = round(self.elapsed_s, 3)
        data["phases"] = {k: round(v, 3) for k, v in self.phases.items()}
        return data


class ProjectFolder(Protocol):
    """What compaction needs of a project: its folder and its writer lock."""

    @property
    def path(self) -> Path: ...

    def locked(self, purpose: str) -> contextlib.AbstractContextManager[None]: ...


def compact(
    project: ProjectFolder,
    *,
    below: float | None = None,
    names: Sequence[str] | None = None,
    drop_superseded: bool = False,
    progress: Progress | None = None,
    stop: Callable[[], bool] = _never,
    name_at: datetime | None = None,
) -> CompactionSummary:
    """Compact the chosen segments (docs/design.md §7); holds the project lock throughout,
    and on PostgreSQL the store's compaction lock (docs/design.md §12: processes on other
    machines share the store; :class:`recrawl.core.errors.StoreBusy` when one compacts).

    ``stop`` is asked as the copy goes on: when it says yes before the commit, the
    compaction rolls back and raises :class:`CompactionStopped`; from the commit on, a
    compaction is short and always finishes.

    ``name_at``: the instant the new segment is named from (default: now); compaction by
    policy names a day's fold from that day (:mod:`.policy`).
    """
    started = time.perf_counter()
    with (
        raising_disk_full(project.path, "the compaction did not start: nothing was changed"),
        project.locked("compaction"),
        store.exclusive(store.COMPACTION, "compacting"),
    ):
        now = utcnow()
        # what a killed writer left goes first (recovery.recover, which imports this)
        recover_compactions(project.path, now)
        # on a shared store a starting worker may be recovering a dead one's segment:
        # one recoverer at a time (recovery.recover), and a busy one does it
        with contextlib.suppress(StoreBusy), store.exclusive(store.RECOVERY, "recovering"):
            recover_open_segments(project.path, now)
        # the segments' lines keep their keys as they move: standard ones (index_keys)
        rekey_indexes(project.path)
        # the rows it moves must be all there is: a table found off is built again first
        check_captures(project.path)
        sources = choose_segments(below=below, names=names)
        if not sources:
            return CompactionSummary([], None, None, 0, 0, 0, 0, 0, 0, 0.0)
        plan = make_plan(project.path, sources, drop_superseded)
        if stop():
            raise CompactionStopped  # before the journal: there is nothing to roll back
        phases = {"plan": time.perf_counter() - started}
        named = name_at or now
        return _run(
            project.path, plan, drop_superseded, now, named, progress or quiet, stop, phases
        )


def _run(
    project_dir: Path,
    plan: Plan,
    drop: bool,
    now: datetime,
    named: datetime,
    progress: Progress,
    stop: Callable[[], bool],
    phases: dict[str, float],
) -> CompactionSummary:
    clock = time.perf_counter()

    def copying(report: CompactionProgress) -> None:
        # the copy reports about a hundred times: each is a point to stop at
        if stop():
            raise CompactionStopped
        progress(report)

    def lap(phase: str) -> None:
        nonlocal clock
        phases[phase], clock = time.perf_counter() - clock, time.perf_counter()

    name = allocate_name(project_dir, named)
    store.begin_compaction(name, plan.names, drop, now)  # step 1: journal "copying"
    try:
        segment, history = copy_plan(project_dir, plan, name, now, copying)
        if stop():
            raise CompactionStopped
    except BaseException as exc:
        roll_back(project_dir, name, now)  # its files go first: room for the journal's line
        full = full_disk(exc, project_dir, ROLLED_BACK)
        if full is not None:
            raise full from exc
        if isinstance(exc, OSError):  # a file where a folder should be...
            raise ProjectError(
                f"cannot write the compacted segment ({describe(exc)}); nothing was changed"
            ) from None
        raise
    lap("copy")
    summary = CompactionSummary(
        compacted=plan.names,
        new_segment=name if segment else None,
        history_file=history_relpath(name) if history else None,
        records_kept=plan.count(KEEP),
        records_moved_to_history=plan.count(HISTORY),
        records_dropped=plan.count(DROP),
        bytes_before=plan.bytes_before,
        bytes_after=segment.size if segment else 0,
        history_bytes=history.size if history else 0,
        elapsed_s=0.0,
    )
    progress(CompactionProgress("commit", 0, 1))
    try:
        stayed = commit(name, plan, segment, summary.to_json(), now, stop, history)  # step 2
    except BaseException as exc:
        full = full_disk(exc, project_dir, ROLLED_BACK)  # the store's file: its transaction
        if full is None:  # was rolled back, and so is the copy
            raise
        roll_back(project_dir, name, now)
        raise full from exc
    if stayed is None:
        roll_back(project_dir, name, now)
        raise CompactionStopped
    lap("commit")
    complete(project_dir, name, plan.names, now, progress)  # step 3
    lap("finish")
    return CompactionSummary(
        **{
            **asdict(summary),
            "elapsed_s": sum(phases.values()),
            "phases": phases,
            "recaptured_meanwhile": stayed,
        }
    )
