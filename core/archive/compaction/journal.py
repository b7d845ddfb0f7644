"""Steps 2 and 3 of a compaction, the rollback before 2, and recovery after a kill.

The journal row (:mod:`recrawl.core.store.compactions`) says which side of the commit a
compaction stopped on: ``copying`` is rolled back, ``committed`` is finished.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from recrawl.core import store
from recrawl.core.archive.capture_table import row_of_line
from recrawl.core.archive.compaction.copying import Output, temp_path
from recrawl.core.archive.compaction.plan import KEEP, Plan
from recrawl.core.archive.compaction.progress import CompactionProgress, Progress, quiet
from recrawl.core.archive.segments import (
    history_relpath,
    index_path,
    legacy_history_relpath,
    warc_relpath,
)
from recrawl.core.archive.warc import fsync_dir
from recrawl.core.errors import ProjectError
from recrawl.core.layout import Layout


def commit(
    name: str,
    plan: Plan,
    segment: Output | None,
    summary: dict[str, Any],
    now: datetime,
    stop: Callable[[], bool],
    history: Output | None = None,
) -> int | None:
    """Step 2, one transaction: pages follow their records, the new segment replaces the
    old, and the capture table's rows follow the captures (dropped ones go).

    Returns how many pointers did not follow, the page re-captured since the plan (None:
    ``stop`` said yes before the commit, which was rolled back)."""
    moved = segment.moved if segment else {}
    captures = _moves(moved, [(p.page_id, p.segment, p.offset) for p in plan.pointers])
    payloads = _moves(
        moved, [(p.page_id, p.payload_segment, p.payload_offset) for p in plan.pointers]
    )
    return store.commit_compaction(
        name,
        plan.names,
        captures,
        payloads,
        (warc_relpath(name), plan.count(KEEP), segment.size) if segment else None,
        summary,
        now,
        stop,
        [
            row_of_line(line, relpath)
            for output, relpath in ((segment, warc_relpath(name)), (history, history_relpath(name)))
            if output is not None
            for line in output.lines
        ],
    )


def _moves(
    moved: dict[str, dict[int, int]], pointers: list[tuple[int, str | None, int | None]]
) -> list[store.Move]:
    """The pointers whose records the copy moved, with where each went."""
    out = []
    for page_id, segment, offset in pointers:
        if segment is None or offset is None:
            continue
        new_offset = moved.get(segment, {}).get(offset)
        if new_offset is not None:
            out.append(store.Move(page_id, segment, offset, new_offset))
    return out


def complete(
    project_dir: Path,
    name: str,
    sources: Sequence[str],
    now: datetime,
    progress: Progress = quiet,
) -> None:
    """Step 3, after the commit: rename the new files into place, delete the old segments.

    Failing here loses nothing: pages already point at the new segment (readable under
    its temporary name), and the journal keeps the job for the next start to finish.
    """
    try:
        _put_in_place(project_dir, name, sources, progress)
    except OSError as exc:
        raise ProjectError(
            f"compaction {name} is committed but its files could not be put in place "
            f"({describe(exc)}); nothing is lost, and the next start finishes it"
        ) from None
    store.end_compaction(name, "done", now)
    progress(CompactionProgress("done", 1, 1))


def _put_in_place(project_dir: Path, name: str, sources: Sequence[str], progress: Progress) -> None:
    progress(CompactionProgress("rename", 0, 1))
    for final in _final_paths(project_dir, name):
        temp = temp_path(final)
        if temp.exists():
            os.replace(temp, final)
            fsync_dir(final.parent)
    live = store.segment_names()
    gone = [Layout(project_dir).segment(source) for source in sources if source not in live]
    # Freeing a file's blocks is the file system's slow part, and it runs outside the
    # GIL: a few folders at a time finish sooner than one after another.
    with ThreadPoolExecutor(4) as pool:
        for done, _ in enumerate(pool.map(_remove_folder, gone), 1):
            progress(CompactionProgress("delete", done, len(gone)))
    fsync_dir(Layout(project_dir).segments)


def _remove_folder(folder: Path) -> None:
    if folder.exists():  # a recovery may be finishing what an earlier run began
        shutil.rmtree(folder)


def roll_back(project_dir: Path, name: str, now: datetime) -> None:
    """Before the commit: delete the temporary files; the old segments were never touched."""
    for final in _final_paths(project_dir, name):
        # a temporary file that cannot go is only clutter: no page ever pointed at it
        with contextlib.suppress(OSError):
            temp_path(final).unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # not empty: something else lives there, leave it
        Layout(project_dir).segment(name).rmdir()
    store.end_compaction(name, "rolled_back", now)


def recover_compactions(project_dir: Path, now: datetime) -> list[str]:
    """Finish (after the commit) or undo (before it) compactions a kill interrupted."""
    messages = []
    for job in store.unfinished_compactions():
        if job.state == "committed":
            complete(project_dir, job.name, list(job.sources), now)
            messages.append(f"finished the interrupted compaction {job.name}")
        else:
            roll_back(project_dir, job.name, now)
            messages.append(f"rolled back the interrupted compaction {job.name}; nothing was lost")
    return messages


def _final_paths(project_dir: Path, name: str) -> list[Path]:
    """The final paths a compaction named ``name`` writes: indexes before their WARCs.

    The history file's name from before (a compaction an earlier version began) too.
    """
    segment = project_dir / warc_relpath(name)
    history = project_dir / history_relpath(name)
    legacy = project_dir / legacy_history_relpath(name)
    return [index_path(segment), segment, index_path(history), history, index_path(legacy), legacy]


def describe(exc: OSError) -> str:
    """An OS error as a message names it: what went wrong, and with which file."""
    return f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
