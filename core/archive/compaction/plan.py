"""Choosing the segments to compact, and where each of their captures goes.

Nothing here writes: a plan that finds a page pointing at a record no index lists, or an
index that does not fit its WARC, refuses before the first byte is copied.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.cdxj import Index, IndexEntry, parse_index, parse_line
from recrawl.core.archive.segments import index_files, index_path, warc_relpath
from recrawl.core.errors import InvalidArgument, NotFound, WarcError
from recrawl.core.layout import SEGMENTS_DIR

#: Where a capture goes: the new segment, the history file, or nowhere.
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


def _read_ahead(path: Path) -> None:
    """Ask the OS to start reading a segment now: the disk works while we plan."""
    if hasattr(os, "posix_fadvise"):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        finally:
            os.close(fd)


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
        if index.parent.name in compacted and index.parent.parent.name == SEGMENTS_DIR:
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
