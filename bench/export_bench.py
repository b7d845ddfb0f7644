"""WACZ export benchmark: MB/s of `recrawl export` against copying the same WARC bytes.

    python bench/export_bench.py [--pages 5000] [--rounds 60] [--body-kb 48] [--seed 0]
                                 [--trials 3] [--keep]

1. Generates a project as bench/compact_bench.py does (its ``generate``): ``--pages``
   pages over ``--rounds`` segments written by the segment writer, with first captures,
   changed pages and identical-payload revisits, gzipped bodies of a typical HTML page.
2. ``--pages all``: every capture. Timed against ``shutil.copyfile`` of every source WARC
   (+ fsync), the same bytes: the export reads its indexes, copies the records as they
   are into a zip (sha256 and CRC of every byte, stored, not compressed), writes the
   index and pages list, fsyncs and renames.
3. ``--pages latest`` (the default): each page's latest capture, with the responses its
   revisits refer to. Timed against reading and writing the same byte ranges of the
   source WARCs (+ fsync): the records the export copies, in the same order.
4. The time from "Open capture in browser" to the page served, from
   bench/open_capture_bench.py's ``open_capture_lines()`` when that file is there.

Each figure is the median of ``--trials`` runs, dirty pages flushed before each (the page
cache is warm for both sides: the generator has just written the files). No target: the
export is a copy with an index, and the ratio says what the packaging costs.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from compact_bench import generate
from recrawl.core.archive.wacz import ALL, LATEST, ExportOptions, ExportSummary, export_wacz
from recrawl.core.archive.wacz.options import CHUNK
from recrawl.core.archive.wacz.package import plan_warcs, runs
from recrawl.core.archive.wacz.snapshot import take_snapshot

MB = 1e6
T = TypeVar("T")


def copy_files(sources: list[Path], scratch: Path) -> int:
    total = 0
    for source in sources:
        target = scratch / source.name
        shutil.copyfile(source, target)
        with open(target, "rb+") as fh:
            os.fsync(fh.fileno())
        total += source.stat().st_size
    return total


def copy_ranges(ranges: list[tuple[Path, list[tuple[int, int]]]], scratch: Path) -> int:
    total = 0
    for source, spans in ranges:
        with open(source, "rb") as src, open(scratch / source.name, "wb") as out:
            for start, end in spans:
                src.seek(start)
                for at in range(start, end, CHUNK):
                    out.write(src.read(min(CHUNK, end - at)))
                total += end - start
            out.flush()
            os.fsync(out.fileno())
    return total


def chosen_ranges(
    project_dir: Path, options: ExportOptions
) -> list[tuple[Path, list[tuple[int, int]]]]:
    """The byte ranges the export copies, per source WARC (its own planning, reused)."""
    snapshot = take_snapshot(project_dir, options)
    try:
        choice = snapshot.choice
        out = []
        for plan in plan_warcs(snapshot.sources, choice.copied):
            spans = [(0, plan.source.warcinfo)] if plan.source.warcinfo else []
            spans += [(run[0].offset, run[-1].end) for run in runs(plan.captures)]
            out.append((plan.source.path, spans))
        return out
    finally:
        snapshot.close()


def timed(step: Callable[[], T]) -> tuple[float, T]:
    """Seconds ``step`` takes, dirty pages flushed first, and what it returned."""
    os.sync()
    started = time.perf_counter()
    result = step()
    return time.perf_counter() - started, result


def compare(
    label: str, project_dir: Path, root: Path, options: ExportOptions, trials: int, baseline: str
) -> None:
    ranges = chosen_ranges(project_dir, options)
    sources = [path for path, _ in ranges]
    exports: list[tuple[float, ExportSummary]] = []
    copies: list[tuple[float, int]] = []
    for trial in range(trials):
        scratch = root / f"copy-{trial}"
        scratch.mkdir()
        if options.pages == ALL:
            copies.append(timed(functools.partial(copy_files, sources, scratch)))
        else:
            copies.append(timed(functools.partial(copy_ranges, ranges, scratch)))
        shutil.rmtree(scratch)
        out = root / f"export-{trial}.wacz"
        exports.append(timed(functools.partial(export_wacz, project_dir, out, options)))
        out.unlink()
    summary = exports[0][1]
    copied = copies[0][1]
    export_s = statistics.median(s for s, _ in exports)
    copy_s = statistics.median(s for s, _ in copies)
    print(
        f"{label}: {summary.captures:,} captures ({summary.revisit_targets:,} revisit targets), "
        f"{summary.pages:,} page entries, {summary.warcs} WARCs, "
        f"{summary.warc_bytes / MB:.0f} MB of records -> {summary.bytes / MB:.0f} MB WACZ"
    )
    print(
        f"  export {summary.warc_bytes / MB / export_s:6.0f} MB/s ({export_s:.2f} s)   "
        f"{baseline} {copied / MB / copy_s:6.0f} MB/s ({copy_s:.2f} s)   "
        f"export/copy {copy_s / export_s:.2f}x   (medians of {trials})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--body-kb", type=int, default=48)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated project")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="recrawl-export-bench-"))
    try:
        started = time.perf_counter()
        project_dir = root / "project"
        project = generate(project_dir, args.pages, args.rounds, args.body_kb, args.seed)
        warc_bytes = sum(p.stat().st_size for p in project_dir.glob("segments/*/*.warc.gz"))
        print(
            f"project: {args.pages:,} pages over {args.rounds} segments, {warc_bytes / MB:.0f} MB "
            f"of WARC (generated in {time.perf_counter() - started:.0f} s)"
        )
        compare(
            "export --pages all", project_dir, root, ExportOptions(pages=ALL), args.trials,
            "shutil.copyfile of the WARCs",
        )  # fmt: skip
        compare(
            "export --pages latest", project_dir, root, ExportOptions(pages=LATEST), args.trials,
            "copy of the same byte ranges",
        )  # fmt: skip

        # -- "Open capture in browser" -> page served -------------------------------------
        from open_capture_bench import open_capture_lines  # type: ignore[import-not-found]

        for line in open_capture_lines():
            print(line)
        project.close()
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
