"""Compaction by policy after a crawl and between a watcher's rounds (docs/design.md §18),
said in the crawl's log: one :class:`~.events.Compacted` a fold (a failed one a warning:
the crawl goes on, and the next one tries again)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from recrawl.core.archive.compaction.auto import DONE, FAILED, FoldResult, fold, fold_due
from recrawl.core.archive.compaction.policy import Fold
from recrawl.core.config import CompactionSettings
from recrawl.core.engine.events import Compacted, Event


def compact_due(
    project_dir: Path,
    settings: CompactionSettings,
    clock: Callable[[], datetime],
    stop: Callable[[], bool],
    emit: Callable[[Event], None],
) -> list[FoldResult]:
    """The folds due by ``clock``, one at a time, under the lock the caller holds;
    ``stop`` rolls back a fold not yet committed and starts no other."""
    results = []
    for result in fold_due(project_dir, settings, clock, stop):
        results.append(result)
        tell(result, emit)
    return results


def compact_one(
    project_dir: Path, due: Fold, stop: Callable[[], bool], emit: Callable[[Event], None]
) -> FoldResult:
    """One fold (a watcher's, between rounds), said in the log."""
    result = fold(project_dir, due, stop)
    tell(result, emit)
    return result


def tell(result: FoldResult, emit: Callable[[Event], None]) -> None:
    if result.outcome == DONE and result.summary is not None:
        emit(Compacted(result.fold.names, result.summary.new_segment, result.describe()))
    elif result.outcome == FAILED:
        emit(Compacted(result.fold.names, None, result.describe(), failed=True))
