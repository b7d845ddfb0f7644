"""Compaction (DESIGN.md §7): fold low-liveness segments into one without losing a capture.

The live records of the chosen segments are copied byte for byte (gzip members as they
are) into one new segment; superseded captures go to ``history/<name>.warc.gz`` or, with
``drop``, away. A journal row in the store makes every step recoverable:

1. journal ``copying``; the new WARCs and indexes are written under temporary names
   (``.open``) and fsynced. No page points at them yet.
2. One transaction: pages repointed, the old segments' rows deleted, the new one's
   added, journal ``committed``.
3. Temporary names renamed; old segment folders deleted; journal ``done``.

A kill before 2 leaves the old segments untouched and still pointed at: recovery deletes
the temporary files. A kill after 2 leaves pages pointing at the new WARC, which
:func:`core.segments.resolve` finds under its temporary name until recovery renames it
and deletes what is left of the old folders. Either way every latest capture is readable.

A revisit never loses its target: a live revisit's target is live (DESIGN.md §7), so it
is copied too; and ``drop`` keeps (in history) a superseded response that a revisit
outside the compacted segments still refers to, rather than leave that revisit dangling.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from core import store
from core.cdxj import IndexEntry, parse_line, read_index, relocated_lines, write_index
from core.clock import utcnow
from core.errors import InvalidArgument, NotFound, WarcError
from core.project import Project
from core.segments import (
    HISTORY_DIR,
    OPEN_SUFFIX,
    allocate_name,
    history_relpath,
    index_files,
    index_path,
    warc_relpath,
)
from core.warc import RecordWriter, fsync_dir

_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class CompactionProgress:
    phase: str  # "copy", "commit", "rename", "delete", "done"
    done: int  # bytes copied, or steps done
    total: int


Progress = Callable[[CompactionProgress], None]


@dataclass(slots=True)
class Extent:
    """A capture's bytes in its segment: its record, then its request, up to the next."""

    segment: str
    entry: IndexEntry
    start: int
    end: int
    dest: str = ""  # "keep", "history" or "drop", once planned

    @property
    def key(self) -> tuple[str, int]:
        return (self.segment, self.start)


@dataclass
class Plan:
    sources: list[str]
    extents: dict[str, list[Extent]]  # each source's captures in file order
    keep: list[Extent]
    history: list[Extent]
    drop: list[Extent]
    pointers: list[store.Pointer]
    bytes_before: int


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

    def to_json(self) -> dict[str, Any]:
        data = {"segments_compacted": len(self.compacted), **asdict(self)}
        data["elapsed_s"] = round(self.elapsed_s, 3)
        return data


# -- choosing and planning ---------------------------------------------------------------


def choose_segments(*, below: float | None = None, names: Sequence[str] | None = None) -> list[str]:
    """The closed segments named, or those whose liveness is below ``below`` (0..1)."""
    summaries = {s["name"]: s for s in store.segment_summaries()}
    if names is not None:
        chosen = sorted(dict.fromkeys(n.strip() for n in names if n.strip()))
        if not chosen:
            raise InvalidArgument("--segments needs at least one segment name")
        for name in chosen:
            if name not in summaries:
                raise NotFound(f"no segment named {name} (see `recrawl segments`)")
            if summaries[name]["state"] != "closed":
                raise InvalidArgument(f"segment {name} is still being written by a crawl")
        return chosen
    if below is None:
        raise InvalidArgument("give --below F or --segments A,B")
    return sorted(
        name for name, s in summaries.items() if s["state"] == "closed" and s["liveness"] < below
    )


def make_plan(project_dir: Path, sources: Sequence[str], drop: bool) -> Plan:
    """Sort each capture of ``sources`` into kept (live), history, or dropped.

    Refuses, before anything is written, when a page points at a record the indexes do
    not list or an index does not fit its WARC: copying such a segment could lose data.
    """
    source_set = set(sources)
    pointers = store.pointers_into(sources)
    live: set[tuple[str, int]] = set()
    for p in pointers:
        if p.segment in source_set and p.offset is not None:
            live.add((p.segment, p.offset))
        if p.payload_segment in source_set and p.payload_offset is not None:
            live.add((p.payload_segment, p.payload_offset))
    keep: list[Extent] = []
    superseded: list[Extent] = []
    bytes_before = 0
    by_source = {}
    for name in sources:
        extents, size = _extents(project_dir, name)
        by_source[name] = extents
        bytes_before += size
        for extent in extents:
            (keep if extent.key in live else superseded).append(extent)
    unlisted = live - {x.key for x in keep}
    if unlisted:
        segment, offset = min(unlisted)
        raise WarcError(
            f"{len(unlisted)} page(s) point at records their segment's index does not list "
            f"(first: segment {segment}, offset {offset}); nothing was changed"
        )
    if drop:
        needed = _referred_from_elsewhere(project_dir, source_set, superseded)
        history = [x for x in superseded if x.key in needed]
        dropped = [x for x in superseded if x.key not in needed]
    else:
        history, dropped = superseded, []
    for extents, dest in ((keep, "keep"), (history, "history"), (dropped, "drop")):
        for extent in extents:
            extent.dest = dest
    return Plan(list(sources), by_source, keep, history, dropped, pointers, bytes_before)


def _extents(project_dir: Path, name: str) -> tuple[list[Extent], int]:
    warc = project_dir / warc_relpath(name)
    index = index_path(warc)
    try:
        size = warc.stat().st_size
        entries = sorted(read_index(index), key=lambda e: e.offset)
    except FileNotFoundError as exc:
        raise WarcError(
            f"segment {name} is missing {Path(exc.filename).name}; nothing was changed"
        ) from None
    except (ValueError, KeyError) as exc:
        raise WarcError(
            f"the index of segment {name} is corrupt ({exc}); nothing was changed"
        ) from None
    extents = []
    for i, entry in enumerate(entries):
        end = entries[i + 1].offset if i + 1 < len(entries) else size
        if entry.offset + entry.length > end:
            raise WarcError(
                f"the index of segment {name} does not fit its WARC (record at offset "
                f"{entry.offset}); nothing was changed"
            )
        extents.append(Extent(name, entry, entry.offset, end))
    return extents, size


def _referred_from_elsewhere(
    project_dir: Path, sources: set[str], superseded: list[Extent]
) -> set[tuple[str, int]]:
    """Superseded responses that a revisit outside ``sources`` may still refer to.

    A revisit carries its target's URL and payload digest and comes after it; matching on
    those (a superset of the exact WARC-Refers-To link) keeps every target that matters.
    """
    candidates: dict[tuple[str, str], list[Extent]] = {}
    for extent in superseded:
        fields = extent.entry.fields()
        if fields.get("mime") != "warc/revisit":
            key = (fields["url"], str(fields.get("digest", "")))
            candidates.setdefault(key, []).append(extent)
    needed: set[tuple[str, int]] = set()
    if not candidates:
        return needed
    for index in index_files(project_dir):
        if index.parent.name in sources and index.parent.parent.name == "segments":
            continue
        with open(index, encoding="utf-8") as fh:
            for line in fh:
                if '"warc/revisit"' not in line:
                    continue
                revisit = parse_line(line)
                fields = revisit.fields()
                for target in candidates.get((fields["url"], str(fields.get("digest", ""))), ()):
                    if target.entry.stamp <= revisit.stamp:
                        needed.add(target.key)
    return needed


# -- running -------------------------------------------------------------------------------


def compact(
    project: Project,
    *,
    below: float | None = None,
    names: Sequence[str] | None = None,
    drop_superseded: bool = False,
    progress: Progress | None = None,
) -> CompactionSummary:
    """Compact the chosen segments (DESIGN.md §7); holds the project lock throughout."""
    started = time.perf_counter()
    with project.locked("compaction"):
        now = utcnow()
        from core.recovery import recover  # recovery finishes compactions: no cycle at import

        recover(project.path, now)
        sources = choose_segments(below=below, names=names)
        if not sources:
            return CompactionSummary([], None, None, 0, 0, 0, 0, 0, 0, 0.0)
        plan = make_plan(project.path, sources, drop_superseded)
        return _run(project.path, plan, drop_superseded, now, progress or _quiet, started)


def _quiet(_: CompactionProgress) -> None:
    pass


def _run(
    project_dir: Path,
    plan: Plan,
    drop: bool,
    now: datetime,
    progress: Progress,
    started: float,
) -> CompactionSummary:
    name = allocate_name(project_dir, now)
    store.begin_compaction(name, plan.sources, drop, now)
    try:
        summary, segment = _copy(project_dir, plan, name, now, progress)
    except BaseException:
        _roll_back(project_dir, name, now)
        raise
    progress(CompactionProgress("commit", 0, 1))
    store.commit_compaction(
        name,
        plan.sources,
        _repoints(plan, name, segment.moved if segment else {}),
        (warc_relpath(name), len(plan.keep), segment.size) if segment else None,
        summary.to_json(),
        now,
    )
    _complete(project_dir, name, plan.sources, now, progress)
    return CompactionSummary(**{**asdict(summary), "elapsed_s": time.perf_counter() - started})


def _copy(
    project_dir: Path, plan: Plan, name: str, now: datetime, progress: Progress
) -> tuple[CompactionSummary, _Output | None]:
    """Write the new segment and the history file under temporary names, durably."""
    described = f"compaction {name} of {len(plan.sources)} segment(s): {', '.join(plan.sources)}"
    segment = history = None
    if plan.keep:
        segment = _Output(
            project_dir / warc_relpath(name),
            now,
            {"isPartOf": f"recrawl-segment-{name}", "description": described},
            pointed_at=True,
        )
    if plan.history:
        history = _Output(
            project_dir / history_relpath(name),
            now,
            {"isPartOf": "recrawl-history", "description": f"superseded captures; {described}"},
            pointed_at=False,
        )
    routes: dict[str, _Output] = {}
    if segment is not None:
        routes["keep"] = segment
    if history is not None:
        routes["history"] = history
    counter = _Counter(sum(x.end - x.start for x in (*plan.keep, *plan.history)), progress)
    outputs = list(routes.values())
    try:
        for source in plan.sources:
            path = project_dir / warc_relpath(source)
            _copy_source(path, plan.extents[source], routes, counter)
        for output in outputs:
            output.seal()
    finally:
        for output in outputs:
            output.close()
    fsync_dir(project_dir / "segments")
    if history is not None:
        fsync_dir(project_dir / HISTORY_DIR)

    summary = CompactionSummary(
        compacted=plan.sources,
        new_segment=name if segment else None,
        history_file=history_relpath(name) if history else None,
        records_kept=len(plan.keep),
        records_moved_to_history=len(plan.history),
        records_dropped=len(plan.drop),
        bytes_before=plan.bytes_before,
        bytes_after=segment.size if segment else 0,
        history_bytes=history.size if history else 0,
        elapsed_s=0.0,
    )
    return summary, segment


def _copy_source(
    path: Path, extents: list[Extent], routes: dict[str, _Output], counter: _Counter
) -> None:
    """Copy one segment's records to where they go, each stretch of neighbours in one write.

    The file is mapped rather than read: slices of the map go to the outputs without
    another copy, and nothing holds a whole segment in memory.
    """
    if not any(extent.dest in routes for extent in extents):
        return
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        view = memoryview(mapped)
        try:
            run: list[Extent] = []
            target: _Output | None = None
            for extent in extents:
                output = routes.get(extent.dest)
                if output is None:
                    continue  # dropped
                if mapped[extent.start : extent.start + 2] != _GZIP_MAGIC:
                    raise WarcError(
                        f"{path.name} has no record at offset {extent.start}, where its index "
                        "says one starts; nothing was changed"
                    )
                if run and (output is not target or extent.start != run[-1].end):
                    counter.add(target.write(view, run))  # type: ignore[union-attr]
                    run = []
                run.append(extent)
                target = output
            counter.add(target.write(view, run))  # type: ignore[union-attr]
        finally:
            view.release()


def _repoints(
    plan: Plan, name: str, moved: dict[tuple[str, int], int]
) -> list[tuple[int, dict[str, Any]]]:
    relpath = warc_relpath(name)
    repoints = []
    for p in plan.pointers:
        fields: dict[str, Any] = {}
        if (p.segment, p.offset) in moved:
            fields.update(
                segment=name, capture_file=relpath, capture_offset=moved[p.segment, p.offset]
            )  # type: ignore[index]
        if (p.payload_segment, p.payload_offset) in moved:
            fields.update(
                payload_segment=name,
                payload_file=relpath,
                payload_offset=moved[p.payload_segment, p.payload_offset],  # type: ignore[index]
            )
        if fields:
            repoints.append((p.page_id, fields))
    return repoints


class _Counter:
    """Reports copied bytes, about a hundred times over a whole compaction at most."""

    def __init__(self, total: int, progress: Progress) -> None:
        self.total, self.done, self._last = total, 0, 0
        self._progress = progress
        self._step = max(1, total // 100)

    def add(self, count: int) -> None:
        self.done += count
        if self.done - self._last >= self._step or self.done == self.total:
            self._last = self.done
            self._progress(CompactionProgress("copy", self.done, self.total))


class _Output:
    """One WARC assembled from copied records, and its index, under temporary names."""

    def __init__(
        self, warc: Path, created: datetime, info: dict[str, str], *, pointed_at: bool
    ) -> None:
        self.warc = warc
        self.temp = _temp(warc)
        self.index_temp = _temp(index_path(warc))
        warc.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.temp, "wb", buffering=1 << 20)  # noqa: SIM115 - see close()
        RecordWriter(self._fh, warc.name).write_warcinfo(created, info)
        self.size = self._fh.tell()
        self.lines: list[str] = []
        #: Where each record went, for the pages to follow (none point into history).
        self.moved: dict[tuple[str, int], int] | None = {} if pointed_at else None

    def write(self, source: memoryview, run: list[Extent]) -> int:
        """Append neighbouring records of one source; returns the bytes written."""
        start, end = run[0].start, run[-1].end
        self._fh.write(source[start:end])
        shift = self.size - start
        offsets = [extent.start + shift for extent in run]
        self.lines += relocated_lines([x.entry for x in run], offsets, self.warc.name)
        if self.moved is not None:
            self.moved.update(zip([x.key for x in run], offsets, strict=True))
        self.size += end - start
        return end - start

    def seal(self) -> None:
        """Make the WARC durable, then write its index beside it."""
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        write_index(self.index_temp, self.lines)

    def close(self) -> None:
        self._fh.close()


def _temp(path: Path) -> Path:
    return path.with_name(path.name + OPEN_SUFFIX)


# -- finishing and recovery ----------------------------------------------------------------


def _outputs(project_dir: Path, name: str) -> list[Path]:
    """The final paths a compaction named ``name`` writes: indexes before their WARCs."""
    segment = project_dir / warc_relpath(name)
    history = project_dir / history_relpath(name)
    return [index_path(segment), segment, index_path(history), history]


def _complete(
    project_dir: Path,
    name: str,
    sources: Sequence[str],
    now: datetime,
    progress: Progress = _quiet,
) -> None:
    """After the commit: rename the new files into place, then delete the old segments."""
    progress(CompactionProgress("rename", 0, 1))
    for final in _outputs(project_dir, name):
        temp = _temp(final)
        if temp.exists():
            os.replace(temp, final)
            fsync_dir(final.parent)
    live = store.segment_names()
    for done, source in enumerate(sources, 1):
        folder = project_dir / "segments" / source
        if source not in live and folder.exists():
            shutil.rmtree(folder)
        progress(CompactionProgress("delete", done, len(sources)))
    fsync_dir(project_dir / "segments")
    store.end_compaction(name, "done", now)
    progress(CompactionProgress("done", 1, 1))


def _roll_back(project_dir: Path, name: str, now: datetime) -> None:
    """Before the commit: delete the temporary files; the old segments were never touched."""
    for final in _outputs(project_dir, name):
        _temp(final).unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # not empty: something else lives there, leave it
        (project_dir / "segments" / name).rmdir()
    store.end_compaction(name, "rolled_back", now)


def recover_compactions(project_dir: Path, now: datetime) -> list[str]:
    """Finish (after the commit) or undo (before it) compactions a kill interrupted."""
    messages = []
    for job in store.unfinished_compactions():
        if job.state == "committed":
            _complete(project_dir, job.name, list(job.sources), now)
            messages.append(f"finished the interrupted compaction {job.name}")
        else:
            _roll_back(project_dir, job.name, now)
            messages.append(f"rolled back the interrupted compaction {job.name}; nothing was lost")
    return messages
