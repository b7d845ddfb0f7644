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
:func:`recrawl.core.archive.segments.resolve` finds under its temporary name until recovery renames it
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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from recrawl.core import store
from recrawl.core.archive.cdxj import (
    Index,
    IndexEntry,
    parse_index,
    parse_line,
    relocated_lines,
    write_index,
)
from recrawl.core.archive.segments import (
    HISTORY_DIR,
    OPEN_SUFFIX,
    allocate_name,
    history_relpath,
    index_files,
    index_path,
    recover_open_segments,
    warc_relpath,
)
from recrawl.core.archive.warc import RecordWriter, fsync_dir
from recrawl.core.clock import utcnow
from recrawl.core.errors import InvalidArgument, NotFound, ProjectError, WarcError

_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class CompactionProgress:
    phase: str  # "copy", "commit", "rename", "delete", "done"
    done: int  # bytes copied, or steps done
    total: int


Progress = Callable[[CompactionProgress], None]


KEEP, HISTORY, DROP = 0, 1, 2


@dataclass
class Source:
    """One segment being compacted: its captures in file order and where each one goes.

    A capture's bytes run from its record to the next capture (its request record lies
    between) or the end of the file; they are copied as they are.
    """

    name: str
    size: int
    index: Index
    ends: list[int]
    dest: list[int]  # KEEP, HISTORY or DROP per capture

    def count(self, dest: int) -> int:
        return self.dest.count(dest)

    def bytes_to(self, dest: int) -> int:
        starts, ends = self.index.offsets, self.ends
        return sum(ends[i] - starts[i] for i, d in enumerate(self.dest) if d == dest)


@dataclass
class Plan:
    sources: list[Source]
    pointers: list[store.Pointer]

    @property
    def names(self) -> list[str]:
        return [source.name for source in self.sources]

    @property
    def bytes_before(self) -> int:
        return sum(source.size for source in self.sources)

    def count(self, dest: int) -> int:
        return sum(source.count(dest) for source in self.sources)


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

    def to_json(self) -> dict[str, Any]:
        data = {"segments_compacted": len(self.compacted), **asdict(self)}
        data["elapsed_s"] = round(self.elapsed_s, 3)
        data["phases"] = {k: round(v, 3) for k, v in self.phases.items()}
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


def make_plan(project_dir: Path, names: Sequence[str], drop: bool) -> Plan:
    """Sort each capture of the named segments into kept (live), history, or dropped.

    Refuses, before anything is written, when a page points at a record the indexes do
    not list or an index does not fit its WARC: copying such a segment could lose data.
    """
    pointers = store.pointers_into(names)
    live: dict[str, set[int]] = {name: set() for name in names}
    for p in pointers:
        if p.segment in live and p.offset is not None:
            live[p.segment].add(p.offset)
        if p.payload_segment in live and p.payload_offset is not None:
            live[p.payload_segment].add(p.payload_offset)
    texts = [_read_segment(project_dir, name) for name in names]
    sources = []
    for name, (size, text) in zip(names, texts, strict=True):
        source = _source(name, size, text)
        wanted = live[name]
        source.dest = [KEEP if offset in wanted else HISTORY for offset in source.index.offsets]
        unlisted = wanted.difference(source.index.offsets)
        if unlisted:
            raise WarcError(
                f"{len(unlisted)} page(s) point at records the index of segment {name} does "
                f"not list (first: offset {min(unlisted)}); nothing was changed"
            )
        sources.append(source)
    if drop:
        needed = _referred_from_elsewhere(project_dir, sources)
        for source in sources:
            offsets = source.index.offsets
            source.dest = [
                DROP if d == HISTORY and (source.name, offsets[i]) not in needed else d
                for i, d in enumerate(source.dest)
            ]
    return Plan(sources, pointers)


def _read_segment(project_dir: Path, name: str) -> tuple[int, str]:
    """A segment's WARC size and index text; its WARC is read ahead for the copy."""
    warc = project_dir / warc_relpath(name)
    try:
        _read_ahead(warc)
        return warc.stat().st_size, index_path(warc).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise WarcError(
            f"segment {name} is missing {Path(exc.filename).name}; nothing was changed"
        ) from None
    except UnicodeDecodeError as exc:
        raise WarcError(
            f"the index of segment {name} is corrupt ({exc}); nothing was changed"
        ) from None


def _source(name: str, size: int, text: str) -> Source:
    try:
        index = parse_index(text)
    except (ValueError, KeyError, IndexError) as exc:
        raise WarcError(
            f"the index of segment {name} is corrupt ({exc}); nothing was changed"
        ) from None
    ends = [*index.offsets[1:], size]
    for offset, length, end in zip(index.offsets, index.lengths, ends, strict=True):
        if offset + length > end:
            raise WarcError(
                f"the index of segment {name} does not fit its WARC (record at offset "
                f"{offset}); nothing was changed"
            )
    return Source(name, size, index, ends, [])


def _referred_from_elsewhere(project_dir: Path, sources: list[Source]) -> set[tuple[str, int]]:
    """Superseded responses that a revisit outside ``sources`` may still refer to.

    A revisit carries its target's URL and payload digest; matching on those (a superset
    of the exact WARC-Refers-To link, whatever the clocks said) keeps every target that
    matters.
    """
    candidates: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for source in sources:
        for i, dest in enumerate(source.dest):
            if dest != HISTORY:
                continue
            entry = IndexEntry(source.index.lines[i], source.index.offsets[i], 0)
            try:
                fields = entry.fields()
                key = (fields["url"], str(fields.get("digest", "")))
            except (ValueError, KeyError, TypeError):
                raise WarcError(
                    f"the index of segment {source.name} is corrupt near offset "
                    f"{entry.offset}; nothing was changed"
                ) from None
            if fields.get("mime") != "warc/revisit":
                candidates.setdefault(key, []).append((source.name, entry.offset))
    needed: set[tuple[str, int]] = set()
    if not candidates:
        return needed
    compacted = {source.name for source in sources}
    for index in index_files(project_dir):
        if index.parent.name in compacted and index.parent.parent.name == "segments":
            continue
        with open(index, encoding="utf-8", newline="\n") as fh:
            for number, line in enumerate(fh, 1):
                if '"warc/revisit"' not in line:
                    continue
                try:
                    fields = parse_line(line).fields()
                    key = (fields["url"], str(fields.get("digest", "")))
                except (ValueError, KeyError, TypeError):
                    raise WarcError(
                        f"{index} is corrupt at line {number}; nothing was changed"
                    ) from None
                needed.update(candidates.get(key, ()))
    return needed


# -- running -------------------------------------------------------------------------------


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
) -> CompactionSummary:
    """Compact the chosen segments (DESIGN.md §7); holds the project lock throughout."""
    started = time.perf_counter()
    with project.locked("compaction"):
        now = utcnow()
        # what a killed writer left goes first (recovery.recover, which imports this)
        recover_compactions(project.path, now)
        recover_open_segments(project.path, now)
        sources = choose_segments(below=below, names=names)
        if not sources:
            return CompactionSummary([], None, None, 0, 0, 0, 0, 0, 0, 0.0)
        plan = make_plan(project.path, sources, drop_superseded)
        phases = {"plan": time.perf_counter() - started}
        return _run(project.path, plan, drop_superseded, now, progress or _quiet, phases)


def _quiet(_: CompactionProgress) -> None:
    pass


def _run(
    project_dir: Path,
    plan: Plan,
    drop: bool,
    now: datetime,
    progress: Progress,
    phases: dict[str, float],
) -> CompactionSummary:
    clock = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal clock
        phases[phase], clock = time.perf_counter() - clock, time.perf_counter()

    name = allocate_name(project_dir, now)
    store.begin_compaction(name, plan.names, drop, now)
    try:
        segment, history = _copy(project_dir, plan, name, now, progress)
    except OSError as exc:  # a full disk, a file where a folder should be...
        _roll_back(project_dir, name, now)
        raise ProjectError(
            f"cannot write the compacted segment ({_describe(exc)}); nothing was changed"
        ) from None
    except BaseException:
        _roll_back(project_dir, name, now)
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
    store.commit_compaction(
        name,
        plan.names,
        _repoints(plan, name, segment.moved if segment else {}),
        (warc_relpath(name), summary.records_kept, segment.size) if segment else None,
        summary.to_json(),
        now,
    )
    lap("commit")
    _complete(project_dir, name, plan.names, now, progress)
    lap("finish")
    return CompactionSummary(
        **{**asdict(summary), "elapsed_s": sum(phases.values()), "phases": phases}
    )


def _copy(
    project_dir: Path, plan: Plan, name: str, now: datetime, progress: Progress
) -> tuple[_Output | None, _Output | None]:
    """Write the new segment and the history file under temporary names, durably."""
    described = f"compaction {name} of {len(plan.names)} segment(s): {', '.join(plan.names)}"
    outputs: dict[int, _Output] = {}
    total = sum(source.bytes_to(KEEP) + source.bytes_to(HISTORY) for source in plan.sources)
    counter = _Counter(total, progress)
    try:
        if plan.count(KEEP):
            outputs[KEEP] = _Output(
                project_dir / warc_relpath(name),
                now,
                {"isPartOf": f"recrawl-segment-{name}", "description": described},
                pointed_at=True,
            )
        if plan.count(HISTORY):
            outputs[HISTORY] = _Output(
                project_dir / history_relpath(name),
                now,
                {"isPartOf": "recrawl-history", "description": f"superseded captures; {described}"},
                pointed_at=False,
            )
        for source in plan.sources:
            _copy_source(project_dir / warc_relpath(source.name), source, outputs, counter)
        for output in outputs.values():
            output.seal()
    finally:
        for output in outputs.values():
            output.close()
    fsync_dir(project_dir / "segments")
    if HISTORY in outputs:
        fsync_dir(project_dir / HISTORY_DIR)
    return outputs.get(KEEP), outputs.get(HISTORY)


def _read_ahead(path: Path) -> None:
    """Ask the OS to start reading a segment now: the disk works while we plan."""
    if hasattr(os, "posix_fadvise"):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        finally:
            os.close(fd)


def _copy_source(
    path: Path, source: Source, outputs: dict[int, _Output], counter: _Counter
) -> None:
    """Copy one segment's captures to where they go, each stretch of neighbours in one write.

    The file is mapped rather than read: slices of the map go to the outputs without
    another copy, and nothing holds a whole segment in memory.
    """
    if not any(dest in outputs for dest in source.dest):
        return
    starts, ends, dests = source.index.offsets, source.ends, source.dest
    # a run ends where the destination changes or the next capture does not follow on
    cuts = [
        i for i in range(1, len(starts)) if dests[i] != dests[i - 1] or starts[i] != ends[i - 1]
    ]
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        view = memoryview(mapped)
        try:
            for i, j in zip([0, *cuts], [*cuts, len(starts)], strict=True):
                output = outputs.get(dests[i])
                if output is None:
                    continue  # dropped
                bad = next((s for s in starts[i:j] if mapped[s : s + 2] != _GZIP_MAGIC), None)
                if bad is not None:
                    raise WarcError(
                        f"{path.name} has no record at offset {bad}, where its index says "
                        "one starts; nothing was changed"
                    )
                counter.add(output.write(view, source, i, j))
        finally:
            view.release()


def _repoints(
    plan: Plan, name: str, moved: dict[str, dict[int, int]]
) -> list[tuple[int, dict[str, Any]]]:
    relpath = warc_relpath(name)
    repoints = []
    for p in plan.pointers:
        fields: dict[str, Any] = {}
        capture = moved.get(p.segment, {}).get(p.offset)  # type: ignore[arg-type]
        if capture is not None:
            fields.update(segment=name, capture_file=relpath, capture_offset=capture)
        payload = moved.get(p.payload_segment, {}).get(p.payload_offset)  # type: ignore[arg-type]
        if payload is not None:
            fields.update(payload_segment=name, payload_file=relpath, payload_offset=payload)
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
        #: Per source segment, old offset -> new offset, for the pages to follow (none
        #: point into history).
        self.moved: dict[str, dict[int, int]] | None = {} if pointed_at else None

    def write(self, view: memoryview, source: Source, i: int, j: int) -> int:
        """Append captures ``i`` to ``j - 1`` of ``source`` (neighbours); returns bytes."""
        starts = source.index.offsets[i:j]
        start, end = starts[0], source.ends[j - 1]
        self._fh.write(view[start:end])
        shift = self.size - start
        offsets = [offset + shift for offset in starts]
        self.lines += relocated_lines(
            source.index.lines[i:j], offsets, self.warc.name, source.index.ours
        )
        if self.moved is not None:
            self.moved.setdefault(source.name, {}).update(zip(starts, offsets, strict=True))
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


def _describe(exc: OSError) -> str:
    return f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)


def _complete(
    project_dir: Path,
    name: str,
    sources: Sequence[str],
    now: datetime,
    progress: Progress = _quiet,
) -> None:
    """After the commit: rename the new files into place, then delete the old segments.

    Failing here loses nothing: pages already point at the new segment (readable under
    its temporary name), and the journal keeps the job for the next start to finish.
    """
    try:
        _put_in_place(project_dir, name, sources, progress)
    except OSError as exc:
        raise ProjectError(
            f"compaction {name} is committed but its files could not be put in place "
            f"({_describe(exc)}); nothing is lost, and the next start finishes it"
        ) from None
    store.end_compaction(name, "done", now)
    progress(CompactionProgress("done", 1, 1))


def _put_in_place(project_dir: Path, name: str, sources: Sequence[str], progress: Progress) -> None:
    progress(CompactionProgress("rename", 0, 1))
    for final in _outputs(project_dir, name):
        temp = _temp(final)
        if temp.exists():
            os.replace(temp, final)
            fsync_dir(final.parent)
    live = store.segment_names()
    gone = [project_dir / "segments" / source for source in sources if source not in live]
    # Freeing a file's blocks is the file system's slow part, and it runs outside the
    # GIL: a few folders at a time finish sooner than one after another.
    with ThreadPoolExecutor(4) as pool:
        for done, _ in enumerate(pool.map(_remove_folder, gone), 1):
            progress(CompactionProgress("delete", done, len(gone)))
    fsync_dir(project_dir / "segments")


def _remove_folder(folder: Path) -> None:
    if folder.exists():  # a recovery may be finishing what an earlier run began
        shutil.rmtree(folder)


def _roll_back(project_dir: Path, name: str, now: datetime) -> None:
    """Before the commit: delete the temporary files; the old segments were never touched."""
    for final in _outputs(project_dir, name):
        # a temporary file that cannot go is only clutter: no page ever pointed at it
        with contextlib.suppress(OSError):
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
