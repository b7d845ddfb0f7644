"""Step 1 of a compaction: the new segment and the history file, under temporary names.

Nothing points at these files until the journal's commit; a kill before it leaves only
clutter that recovery deletes.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from datetime import datetime
from pathlib import Path

from recrawl.core.archive.cdxj import relocated_lines, write_index
from recrawl.core.archive.compaction.plan import HISTORY, KEEP, Plan, Source
from recrawl.core.archive.compaction.progress import CompactionProgress, Progress
from recrawl.core.archive.segments import (
    OPEN_SUFFIX,
    history_relpath,
    index_path,
    warc_relpath,
)
from recrawl.core.archive.warc import fsync_dir
from recrawl.core.archive.warc_writer import RecordWriter
from recrawl.core.errors import WarcError
from recrawl.core.layout import Layout

_GZIP_MAGIC = b"\x1f\x8b"


def temp_path(path: Path) -> Path:
    """Where a compaction writes ``path`` until it is put in place."""
    return path.with_name(path.name + OPEN_SUFFIX)


class Output:
    """One WARC assembled from copied records, and its index, under temporary names."""

    def __init__(
        self, warc: Path, created: datetime, info: dict[str, str], *, pointed_at: bool
    ) -> None:
        self.warc = warc
        self.temp = temp_path(warc)
        self.index_temp = temp_path(index_path(warc))
        warc.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.temp, "wb", buffering=1 << 20)  # noqa: SIM115 - see close()
        RecordWriter(self._fh, warc.name).write_warcinfo(created, info)
        self.size = self._fh.tell()
        self.lines: list[str] = []
        self._pointed_at = pointed_at
        #: Per source segment, old offset -> new offset, for the pages to follow (none
        #: point into history: it stays empty there).
        self.moved: dict[str, dict[int, int]] = {}

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
        if self._pointed_at:
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
        # after a failure (a full disk: the buffer cannot be written) the file still goes,
        # and so do the other outputs' (copy_plan closes each)
        with contextlib.suppress(OSError):
            self._fh.close()


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


def copy_plan(
    project_dir: Path, plan: Plan, name: str, now: datetime, progress: Progress
) -> tuple[Output | None, Output | None]:
    """Write the new segment and the history file under temporary names, durably.

    Returns them (None where nothing goes): the new segment, then the history file.
    """
    described = f"compaction {name} of {len(plan.names)} segment(s): {', '.join(plan.names)}"
    outputs: dict[int, Output] = {}
    total = sum(source.bytes_to(KEEP) + source.bytes_to(HISTORY) for source in plan.sources)
    counter = _Counter(total, progress)
    try:
        if plan.count(KEEP):
            outputs[KEEP] = Output(
                project_dir / warc_relpath(name),
                now,
                {"isPartOf": f"recrawl-segment-{name}", "description": described},
                pointed_at=True,
            )
        if plan.count(HISTORY):
            outputs[HISTORY] = Output(
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
    fsync_dir(Layout(project_dir).segments)
    if HISTORY in outputs:
        fsync_dir(Layout(project_dir).history)
    return outputs.get(KEEP), outputs.get(HISTORY)


def _copy_source(path: Path, source: Source, outputs: dict[int, Output], counter: _Counter) -> None:
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
                try:
                    counter.add(output.write(view, source, i, j))
                except ValueError as exc:
                    # a line cut short (a disk that filled): its offset and length read
                    # at planning, its JSON only here; the caller rolls the copy back
                    raise WarcError(
                        f"the index of segment {source.name} is corrupt ({exc}); "
                        "nothing was changed"
                    ) from None
        finally:
            view.release()
