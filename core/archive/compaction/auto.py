"""Compaction by policy, applied (docs/design.md §18): the due folds of :mod:`.policy`, each
one :func:`~.run.compact` of its segments, so each has a compaction's crash safety.

The caller holds what a crawl holds: the project lock (a crawl, a watch, on SQLite), or
none (a crawl worker on PostgreSQL, where the store's compaction lock keeps two
compactions apart; one held elsewhere means another process compacts, and this one
skips quietly). Superseded captures go to history, never away.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.compaction.policy import Fold, SegmentState, due_folds
from recrawl.core.archive.compaction.run import CompactionStopped, CompactionSummary, compact
from recrawl.core.clock import human_duration
from recrawl.core.config import CompactionSettings
from recrawl.core.errors import DiskFull, InvalidArgument, NotFound, RecrawlError, StoreBusy
from recrawl.core.words import plural

#: What became of a fold: done; stopped before its commit (rolled back: nothing
#: changed); busy (another process compacts); failed (said in ``error``).
DONE, STOPPED, BUSY, FAILED = "done", "stopped", "busy", "failed"


@dataclass(frozen=True)
class HeldLock:
    """A project whose lock the caller already holds (or, a worker on PostgreSQL, takes
    none): :func:`compact`'s own taking of it would refuse (the lock is not re-entrant)."""

    path: Path

    def locked(self, purpose: str) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


@dataclass(frozen=True)
class FoldResult:
    fold: Fold
    outcome: str
    summary: CompactionSummary | None = None
    error: str | None = None
    #: Failed for want of space: worth trying again once some is freed.
    disk_full: bool = False

    def describe(self) -> str:
        """The log's line: ``compacted 4 segments of 2027-03-01 into 20270301000000 (…)``."""
        fold, summary = self.fold, self.summary
        what = f"{plural(len(fold.names), 'segment')} of {fold.period}"
        if self.outcome == FAILED:
            return f"could not compact the {what}: {self.error}"
        if self.outcome != DONE or summary is None:
            return f"compaction of the {what}: {self.outcome}"
        moved = f"{summary.records_moved_to_history:,} superseded moved to history/"
        took = human_duration(summary.elapsed_s)
        if summary.new_segment is None:  # every capture in them was superseded
            return f"compacted {what}: nothing in them was live; {moved} ({took})"
        return (
            f"compacted {what} into {summary.new_segment} "
            f"({plural(summary.records_kept, 'capture')} kept, {moved}; {took})"
        )


def due(settings: CompactionSettings, now: datetime) -> list[Fold]:
    """The folds due at ``now`` (none when ``compaction.auto`` is off)."""
    if not settings.auto:
        return []
    states = [SegmentState(name, closed) for name, closed in store.segment_states()]
    return due_folds(states, now, settings.fold)


def fold(project_dir: Path, fold: Fold, stop: Callable[[], bool]) -> FoldResult:
    """One fold, under the lock the caller holds; what became of it."""
    try:
        summary = compact(HeldLock(project_dir), names=fold.names, stop=stop, name_at=fold.start)
    except CompactionStopped:
        return FoldResult(fold, STOPPED)
    except StoreBusy:
        return FoldResult(fold, BUSY)
    except (NotFound, InvalidArgument):
        # another process folded (or a worker reopened) these since the policy read them:
        # the next look sees the segments as they are
        return FoldResult(fold, BUSY)
    except DiskFull as exc:  # said, the crawl goes on
        return FoldResult(fold, FAILED, error=str(exc), disk_full=True)
    except RecrawlError as exc:  # a damaged segment: said, the crawl goes on
        return FoldResult(fold, FAILED, error=str(exc))
    except (ValueError, OSError) as exc:
        # an index line the copy cannot read (compaction rolled back before raising it):
        # a crawl or a watch never dies of a fold
        return FoldResult(fold, FAILED, error=f"a damaged segment ({exc}); nothing was changed")
    return FoldResult(fold, DONE, summary)


def fold_due(
    project_dir: Path,
    settings: CompactionSettings,
    clock: Callable[[], datetime],
    stop: Callable[[], bool],
) -> Iterator[FoldResult]:
    """Each fold due now, one at a time, oldest first, until one is stopped or busy or
    ``stop`` says so (asked between folds and as each one copies); a fold that failed
    is said and the next one tried."""
    for each in due(settings, clock()):
        if stop():
            return
        result = fold(project_dir, each, stop)
        yield result
        if result.outcome in (STOPPED, BUSY):
            return
