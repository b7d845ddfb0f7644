"""Running ``recrawl`` in a child process that reports its own peak resident memory,
with its analysis processes' (recrawl.core.engine.pool) added."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

#: Runs ``recrawl`` and writes its peak resident memory (VmHWM, kB) to a file at exit;
#: its analysis processes write theirs into the folder ``<report>.workers``
#: (RECRAWL_PEAK_DIR). Not wait4's ru_maxrss: Linux carries the forking parent's peak
#: over exec into it, so a child of a big test process would report that process's memory.
MEASURE = """
import os, re, runpy, sys
report = sys.argv.pop(1)
os.makedirs(report + ".workers", exist_ok=True)
os.environ["RECRAWL_PEAK_DIR"] = report + ".workers"
sys.argv[0] = "recrawl"
try:
    runpy.run_module("recrawl", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status, open(report, "w") as out:
        out.write(re.search(r"VmHWM:\\s*(\\d+) kB", status.read()).group(1))
"""


def measured_command(report: Path, args: Sequence[str]) -> list[str]:
    """The command line of ``recrawl ARGS`` that writes its peak to ``report``."""
    return [sys.executable, "-c", MEASURE, str(report), *args]


def peaks(report: Path) -> tuple[int, list[int]]:
    """The peaks in bytes (0 if killed before its end) of the crawl's process and of
    each of its analysis processes."""
    text = report.read_text() if report.exists() else ""
    folder = report.with_name(report.name + ".workers")
    workers = [int(p.read_text()) * 1024 for p in sorted(folder.glob("*.peak"))]
    return int(text or 0) * 1024, workers


def peak_bytes(report: Path) -> int:
    """The crawl's own peak (its analysis processes: :func:`peaks`)."""
    return peaks(report)[0]


#: What one analysis process may hold at most: ~30 MiB of interpreter and libraries,
#: then one page at a time: its body and text, its parse within the parse bounds
#: (ParseSettings: 200,000 elements, ~60 MB of tree) and the main-text signature's
#: (trafilatura, up to its max_markup_chars). The hostile crawl measured 175 MiB. A
#: crawl's memory is its own peak plus this much a process (core/engine/pool.py: one a
#: core, four at most).
WORKER_LIMIT = 200 * (1 << 20)
