"""``export_wacz``: the package written beside its destination and renamed into place,
never over a file of the project (see :mod:`recrawl.core.archive.wacz`)."""

from __future__ import annotations

import glob
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from recrawl.core.archive.wacz.options import (
    PAGE_CHOICES,
    PART_SUFFIX,
    ExportOptions,
    ExportStopped,
    ExportSummary,
    Progress,
    never,
    quiet,
)
from recrawl.core.archive.wacz.package import write_package
from recrawl.core.archive.wacz.snapshot import Snapshot, take_snapshot
from recrawl.core.archive.warc import fsync_dir
from recrawl.core.errors import InvalidArgument, NotFound

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def export_wacz(
    project_dir: Path,
    out: Path,
    options: ExportOptions | None = None,
    *,
    progress: Progress | None = None,
    stop: Callable[[], bool] = never,
) -> ExportSummary:
    """Write the captures ``options`` choose to the WACZ file ``out``; see :mod:`recrawl.core.archive.wacz`.

    ``progress`` hears of the copy (bytes and captures, about a hundred times); ``stop``
    is asked as it goes: yes stops it (:class:`ExportStopped`) with no file written.
    Raises :class:`NotFound` when nothing matches, :class:`InvalidArgument` for an
    ``out`` that cannot be written.
    """
    options = options or ExportOptions()
    report = progress or quiet
    if options.pages not in PAGE_CHOICES:
        raise InvalidArgument(f"--pages must be one of {', '.join(PAGE_CHOICES)}")
    started = time.perf_counter()
    out = Path(out).absolute()
    _check_output(out, project_dir)
    snapshot = take_snapshot(project_dir, options, stop)
    try:
        choice = snapshot.choice
        if not choice.chosen:
            raise NotFound(_nothing(options, snapshot))
        if stop():
            raise ExportStopped
        part, fh = _new_part(out)
        try:
            _remove_dead_parts(out, part)
            with fh:
                summary = write_package(
                    fh, snapshot, choice, options, project_dir, report, stop, spool=out.parent
                )
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(part, out)
        except OSError as exc:  # the disk full, most likely: reads raise WarcError
            part.unlink(missing_ok=True)
            raise InvalidArgument(
                f"cannot write {out}: {exc.strerror or exc}; no file was written"
            ) from None
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        fsync_dir(out.parent)
    finally:
        snapshot.close()
    return ExportSummary(
        path=out,
        bytes=out.stat().st_size,
        captures=len(choice.copied),
        chosen=len(choice.chosen),
        revisit_targets=len(choice.copied) - len(choice.chosen),
        unresolved_revisits=sum(1 for t in choice.targets.values() if t is None),
        pages=summary.pages,
        warcs=summary.warcs,
        warc_bytes=summary.warc_bytes,
        open_segments=snapshot.open_segments,
        elapsed_s=time.perf_counter() - started,
    )


def _new_part(out: Path) -> tuple[Path, BinaryIO]:
    """A part file of this export's own beside ``out``, locked while it is written.

    A name of its own, created afresh: another export to the same OUT meanwhile (the
    app's and a command's) would otherwise write into this one's file. The lock tells a
    later export this one is alive (:func:`_remove_dead_parts`); a part removed by one
    between its creation and its lock is made again.
    """
    while True:
        part = out.with_name(f"{out.name}.{secrets.token_hex(4)}{PART_SUFFIX}")
        try:
            fh = open(part, "xb")  # noqa: SIM115 - closed by export_wacz, removed on failure
        except OSError as exc:
            raise InvalidArgument(f"cannot write {part}: {exc.strerror or exc}") from None
        if fcntl is None:
            return part, fh
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        if os.fstat(fh.fileno()).st_nlink:
            return part, fh
        fh.close()


def _remove_dead_parts(out: Path, ours: Path) -> None:
    """Remove what exports to ``out`` killed mid-copy (kill -9, a power cut) left: part
    files no live export holds locked. Without locks (Windows) they stay."""
    if fcntl is None:
        return
    for part in out.parent.glob(f"{glob.escape(out.name)}.*{PART_SUFFIX}"):
        if part == ours:
            continue
        try:
            with open(part, "rb") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                part.unlink()  # under its lock: its export, if any, is gone
        except OSError:  # held by a live export, or gone already
            continue


def _check_output(out: Path, project_dir: Path) -> None:
    if out.is_dir():
        raise InvalidArgument(f"{out} is a folder; give a file name such as {out / 'export.wacz'}")
    if not out.parent.is_dir():
        raise InvalidArgument(f"no folder {out.parent} to write {out.name} in")
    if not os.access(out.parent, os.W_OK):
        raise InvalidArgument(f"cannot write in {out.parent} (permission denied)")
    try:
        inside = out.resolve().relative_to(Path(project_dir).resolve())
    except ValueError:
        return
    # os.replace would put the package in place of a WARC, an index or the store (and a
    # compaction deletes what lies in a segment's folder): only a .wacz of its own
    # directly in the project folder is safe there
    if len(inside.parts) != 1 or inside.suffix.lower() != ".wacz":
        raise InvalidArgument(
            f"{out} is inside the project folder {project_dir}: write the package outside "
            "it (or as a .wacz file directly in it)"
        )


def _nothing(options: ExportOptions, snapshot: Snapshot) -> str:
    if not any(source.captures for source in snapshot.sources):
        text = "nothing to export: the project has no indexed captures yet"
    else:
        limits = []
        if options.site:
            limits.append(f"of site {options.site}")
        if options.since:
            limits.append(f"at or after {options.since.isoformat()}Z")
        text = "nothing to export: no captures " + " ".join(limits)
    if snapshot.open_segments:
        text += " (a round still writing is left out until it ends)"
    return text
