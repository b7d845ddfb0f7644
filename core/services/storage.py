"""Where a project's bytes are, how fast they grow, what a compaction would free, and
whether the disk has room (docs/design.md §18): ``recrawl storage`` and the Storage view.

Everything is read, nothing decided: the WARCs' figures come from
:mod:`recrawl.core.archive.storage_stats` (cached per file), liveness from the store's
page pointers, the rest from the folder's file sizes and the filesystem.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from recrawl.core import store
from recrawl.core.archive.storage_stats import FileFigures, measure_all
from recrawl.core.clock import to_iso, utcnow
from recrawl.core.config import SETTINGS
from recrawl.core.errors import InvalidArgument
from recrawl.core.layout import HISTORY_DIR, SEGMENTS_DIR, STORE_FILE, segment_relpath
from recrawl.core.words import human_size

#: The kinds of bytes, in the order they are shown; they add up to the folder's total.
KINDS = ("pages", "embeds", "history", "open", "indexes", "store", "other")
#: The setting that sets the free-space warning's threshold.
WARN_SETTING = "storage.warn_free"
#: Full months the projection averages, at most (the latest ones).
PROJECTION_MONTHS = 3
#: A file being written ends so (``archive.segments.OPEN_SUFFIX``, whose module loads
#: warcio: a quick command does without).
OPEN_SUFFIX = ".open"
#: Days in a mean month (365.25 / 12): a rate per day as a rate per month.
MONTH_DAYS = 30.4375


@dataclass(frozen=True, slots=True)
class Bucket:
    """The captures of one site or one month, and their bytes by kind."""

    key: str  # the host, or the month as yyyy-mm (UTC)
    captures: int
    pages: int
    embeds: int
    history: int

    @property
    def bytes(self) -> int:
        return self.pages + self.embeds + self.history


@dataclass(frozen=True, slots=True)
class SegmentFigures:
    """One segment: ``store.segment_summaries``' figures, with its superseded bytes."""

    name: str
    created_at: datetime
    state: str
    records: int
    live_records: int
    liveness: float
    bytes: int
    #: Bytes of its captures that are not live (None: still being written, unmeasured).
    superseded_bytes: int | None


@dataclass(frozen=True, slots=True)
class Growth:
    """Bytes archived a month, and what a year more of it makes."""

    #: ``full-months`` (the mean of the last full months), ``since-first`` (the bytes
    #: over the time since the first capture, too young for a full month), or None.
    method: str | None
    months: tuple[str, ...]  # the full months averaged (``full-months`` only)
    bytes_per_month: int | None
    next_year_bytes: int | None
    #: Months until the free space is gone at that rate (None: no growth, or no data).
    months_until_full: float | None


@dataclass(frozen=True, slots=True)
class Compaction:
    """What compaction and dropping superseded captures would fold and free."""

    #: Closed segments with a superseded capture: what ``compact --below 1`` folds.
    segments: tuple[str, ...]
    segments_bytes: int
    #: Their superseded captures: a compaction moves them to history/, or with
    #: ``--drop-superseded`` frees them (less a response a revisit elsewhere needs).
    superseded_records: int
    superseded_bytes: int
    #: Superseded captures kept in history/: its WARCs (``by_kind["history"]``) and their
    #: indexes. No command deletes them; deleting the folder would.
    history_files: int
    history_bytes: int
    history_index_bytes: int

    @property
    def drop_superseded_bytes(self) -> int:
        """What the project would free keeping no superseded capture at all: those in
        the segments, and history/ whole."""
        return self.superseded_bytes + self.history_bytes + self.history_index_bytes


@dataclass(frozen=True, slots=True)
class FreeSpace:
    path: str  # the project folder's filesystem (its mount point)
    free_bytes: int
    total_bytes: int
    warn_below: int  # the setting; 0: never warn
    warning: str | None


@dataclass(frozen=True)
class StorageReport:
    folder: Path
    measured_at: datetime
    total_bytes: int
    by_kind: dict[str, int]
    by_site: list[Bucket]
    by_month: list[Bucket]
    segments: list[SegmentFigures]
    growth: Growth
    compaction: Compaction
    free: FreeSpace
    #: WARCs measured now (not found in the cache); WARCs whose index is unreadable.
    measured_files: int = 0
    unreadable: list[str] = field(default_factory=list)

    @property
    def warc_bytes(self) -> int:
        return self.by_kind["pages"] + self.by_kind["embeds"] + self.by_kind["history"]

    def to_json(self) -> dict[str, Any]:
        """The keys of ``recrawl storage --json`` (docs/design.md §18)."""
        closed = [s for s in self.segments if s.state == "closed"]
        records = sum(s.records for s in self.segments)
        live = sum(s.live_records for s in self.segments)
        return {
            "project": str(self.folder),
            "measured_at": to_iso(self.measured_at),
            "total_bytes": self.total_bytes,
            "by_kind": dict(self.by_kind),
            "by_site": [_bucket_json("host", b) for b in self.by_site],
            "by_month": [_bucket_json("month", b) for b in self.by_month],
            "segments": {
                "count": len(self.segments),
                "open": len(self.segments) - len(closed),
                "records": records,
                "live_records": live,
                "liveness": round(live / records, 4) if records else 0.0,
                "bytes": sum(s.bytes for s in self.segments),
                "superseded_bytes": sum(s.superseded_bytes or 0 for s in self.segments),
                "list": [
                    {
                        "name": s.name,
                        "created_at": to_iso(s.created_at),
                        "state": s.state,
                        "records": s.records,
                        "live_records": s.live_records,
                        "liveness": round(s.liveness, 4),
                        "bytes": s.bytes,
                        "superseded_bytes": s.superseded_bytes,
                    }
                    for s in self.segments
                ],
            },
            "growth": {
                "method": self.growth.method,
                "months": list(self.growth.months),
                "bytes_per_month": self.growth.bytes_per_month,
                "next_year_bytes": self.growth.next_year_bytes,
                "months_until_full": (
                    None
                    if self.growth.months_until_full is None
                    else round(self.growth.months_until_full, 1)
                ),
            },
            "compaction": {
                "segments": list(self.compaction.segments),
                "segments_bytes": self.compaction.segments_bytes,
                "superseded_records": self.compaction.superseded_records,
                "superseded_bytes": self.compaction.superseded_bytes,
                "history_files": self.compaction.history_files,
                "history_bytes": self.compaction.history_bytes,
                "history_index_bytes": self.compaction.history_index_bytes,
                "drop_superseded_bytes": self.compaction.drop_superseded_bytes,
            },
            "free": {
                "path": self.free.path,
                "free_bytes": self.free.free_bytes,
                "total_bytes": self.free.total_bytes,
                "warn_below": self.free.warn_below,
                "warning": self.free.warning,
            },
            "measured_files": self.measured_files,
            "unreadable": list(self.unreadable),
        }


def _bucket_json(name: str, bucket: Bucket) -> dict[str, Any]:
    return {
        name: bucket.key,
        "captures": bucket.captures,
        "bytes": bucket.bytes,
        "pages": bucket.pages,
        "embeds": bucket.embeds,
        "history": bucket.history,
    }


def storage_report(folder: Path, now: datetime | None = None) -> StorageReport:
    """The project in ``folder``, whose store is the active one, measured now."""
    measured = measure_all(folder)
    figures = {f.relpath: f for f in measured.files}
    by_kind = _bytes_by_kind(folder, figures, set(measured.unreadable))
    summaries = store.segment_summaries()
    segments = _segments(summaries, figures)
    by_month = _buckets(measured.files, by_month=True)
    free = free_space(folder, warn_threshold())
    return StorageReport(
        folder=folder,
        measured_at=now or utcnow(),
        total_bytes=sum(by_kind.values()),
        by_kind=by_kind,
        by_site=sorted(_buckets(measured.files, by_month=False), key=lambda b: (-b.bytes, b.key)),
        by_month=by_month,
        segments=segments,
        growth=growth(by_month, _stamps(measured.files), free.free_bytes),
        compaction=_compaction(folder, segments, figures),
        free=free,
        measured_files=measured.measured,
        unreadable=measured.unreadable,
    )


# -- bytes by kind: every file of the folder ---------------------------------------------


def _bytes_by_kind(
    folder: Path, figures: dict[str, FileFigures], unreadable: set[str]
) -> dict[str, int]:
    kinds = dict.fromkeys(KINDS, 0)
    for relpath, size in _files(folder):
        measured = figures.get(relpath)
        if measured is not None and relpath not in unreadable:
            if measured.history:
                kinds["history"] += measured.size
            else:
                for tally in measured.tallies:
                    kinds["embeds" if tally.embed else "pages"] += tally.bytes
            # the file grew or shrank since it was measured (it should not): the rest
            kinds["other"] += size - measured.size
        else:
            kinds[_kind(relpath)] += size
    return kinds


def _kind(relpath: str) -> str:
    name = relpath.rsplit("/", 1)[-1]
    top = relpath.split("/", 1)[0]
    if name.endswith(OPEN_SUFFIX):
        return "open"  # a round's WARC, or a compaction's new files, being written
    if top in (SEGMENTS_DIR, HISTORY_DIR) and (name.endswith(".cdxj") or ".cdxj." in name):
        return "indexes"
    if "/" not in relpath and name.startswith(STORE_FILE):
        return "store"  # the SQLite file, its -wal and -shm
    return "other"


def _files(folder: Path) -> Iterable[tuple[str, int]]:
    """Every regular file under ``folder`` (relative path, size), links not followed but
    for ``segments/`` and ``history/`` themselves: the rest of Recrawl reads through
    those (a history moved to a bigger disk), and so are their WARCs measured."""
    stack = [("", folder)]
    while stack:
        prefix, path = stack.pop()
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    try:
                        linked = not prefix and entry.name in (SEGMENTS_DIR, HISTORY_DIR)
                        if entry.is_dir(follow_symlinks=linked):
                            stack.append((f"{prefix}{entry.name}/", Path(entry.path)))
                        elif entry.is_file(follow_symlinks=False):
                            yield f"{prefix}{entry.name}", entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue  # gone meanwhile (a compaction deleting)
        except OSError:
            continue


# -- sites and months ---------------------------------------------------------------------


def _buckets(files: list[FileFigures], *, by_month: bool) -> list[Bucket]:
    sums: dict[str, list[int]] = {}
    for figures in files:
        for tally in figures.tallies:
            row = sums.setdefault(tally.month if by_month else tally.host, [0, 0, 0, 0])
            row[0] += tally.captures
            row[3 if figures.history else 2 if tally.embed else 1] += tally.bytes
    return [Bucket(key, *row) for key, row in sorted(sums.items())]


def _stamps(files: list[FileFigures]) -> tuple[str, str] | None:
    stamps = [(f.earliest, f.latest) for f in files if f.earliest]
    if not stamps:
        return None
    return min(s for s, _ in stamps), max(s for _, s in stamps)


def growth(by_month: list[Bucket], stamps: tuple[str, str] | None, free: int) -> Growth:
    """Bytes a month: the mean of the last :data:`PROJECTION_MONTHS` full months (those
    after the first capture's month and before the latest capture's, a month without
    captures counting as none); with no full month, the bytes over the days since the
    first capture (at least one), as a month's. ``stamps``: the first and latest
    capture's 14-digit times."""
    if stamps is None:
        return Growth(None, (), None, None, None)
    sizes = {b.key: b.bytes for b in by_month}
    full = _months_between(stamps[0][:6], stamps[1][:6])[-PROJECTION_MONTHS:]
    if full:
        method = "full-months"
        per_month = round(sum(sizes.get(m, 0) for m in full) / len(full))
    else:
        first, last = (datetime.strptime(s, "%Y%m%d%H%M%S") for s in stamps)
        days = (last - first).total_seconds() / 86400
        if days < 1:
            return Growth(None, (), None, None, None)
        method, per_month = "since-first", round(sum(sizes.values()) / days * MONTH_DAYS)
    until_full = free / per_month if per_month else None
    return Growth(method, tuple(full), per_month, 12 * per_month, until_full)


def _months_between(first: str, last: str) -> list[str]:
    """The months after ``first`` and before ``last`` (``yyyymm``), as ``yyyy-mm``."""
    year, month = int(first[:4]), int(first[4:])
    out: list[str] = []
    while True:
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        if f"{year:04d}{month:02d}" >= last:
            return out
        out.append(f"{year:04d}-{month:02d}")


# -- segments and compaction ---------------------------------------------------------------


def _segments(
    summaries: list[store.SegmentSummary], figures: dict[str, FileFigures]
) -> list[SegmentFigures]:
    live = store.live_offsets()
    out = []
    for s in summaries:
        measured = figures.get(segment_relpath(s["name"], f"{s['name']}.warc.gz"))
        superseded = None
        if s["state"] == "closed" and measured is not None:
            wanted = live.get(s["name"], set())
            kept = sum(
                span
                for offset, span in zip(measured.offsets, measured.spans, strict=True)
                if offset in wanted
            )
            superseded = measured.size - kept
        out.append(
            SegmentFigures(
                s["name"],
                s["created_at"],
                s["state"],
                s["records"],
                s["live_records"],
                s["liveness"],
                s["bytes"],
                superseded,
            )
        )
    return out


def _compaction(
    folder: Path, segments: list[SegmentFigures], figures: dict[str, FileFigures]
) -> Compaction:
    folding = [s for s in segments if s.state == "closed" and s.live_records < s.records]
    history = [f for f in figures.values() if f.history]
    index_bytes = 0
    for f in history:
        try:
            index_bytes += (folder / f.relpath).with_suffix("").with_suffix(".cdxj").stat().st_size
        except OSError:
            continue
    return Compaction(
        segments=tuple(s.name for s in folding),
        segments_bytes=sum(s.bytes for s in folding),
        superseded_records=sum(s.records - s.live_records for s in folding),
        superseded_bytes=sum(s.superseded_bytes or 0 for s in folding),
        history_files=len(history),
        history_bytes=sum(f.size for f in history),
        history_index_bytes=index_bytes,
    )


# -- free space ----------------------------------------------------------------------------


def warn_threshold() -> int:
    """``storage.warn_free`` as the project keeps it (its default if unset or refused)."""
    from recrawl.core.policy import crawl_settings

    spec = SETTINGS[WARN_SETTING]
    value = crawl_settings.stored().get(WARN_SETTING, spec.default)
    try:
        checked = spec.check(value)
    except InvalidArgument:
        checked = spec.default
    return checked if isinstance(checked, int) else 0


def free_space(folder: Path, warn_below: int) -> FreeSpace:
    """The free space of ``folder``'s filesystem, and a warning when below ``warn_below``."""
    usage = shutil.disk_usage(folder)
    mount = _mount_point(folder)
    warning = None
    if warn_below and usage.free < warn_below:
        warning = (
            f"only {human_size(usage.free)} free on {mount} (below {WARN_SETTING}, "
            f"{human_size(warn_below)}): compact with --drop-superseded, or move the project"
        )
    return FreeSpace(str(mount), usage.free, usage.total, warn_below, warning)


def _mount_point(folder: Path) -> Path:
    path = folder.resolve()
    while not os.path.ismount(path) and path.parent != path:
        path = path.parent
    return path
