"""Running ``recrawl`` in a child process that reports its own peak resident memory."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

#: Runs ``recrawl`` and writes its peak resident memory (VmHWM, kB) to a file at exit.
#: Not wait4's ru_maxrss: Linux carries the forking parent's peak over exec into it, so a
#: child of a big test process would report that process's memory.
MEASURE = """
import re, runpy, sys
report = sys.argv.pop(1)
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


def peak_bytes(report: Path) -> int:
    """What :data:`MEASURE` wrote (0 if the child was killed before its end)."""
    text = report.read_text() if report.exists() else ""
    return int(text or 0) * 1024
