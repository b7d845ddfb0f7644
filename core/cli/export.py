"""``recrawl export``: captures as a WACZ package (docs/design.md §13), with a progress line.

Progress goes to stderr: on a terminal one line rewritten in place, elsewhere a line
now and then; the summary goes to stdout (``--json``: one object). Ctrl-C stops the
export: no partial file is left, and an existing OUT is untouched.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

from recrawl.core.cli.output import DIR_HELP, human_size
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import human_duration, parse_iso
from recrawl.core.interrupts import StopSignals
from recrawl.core.project import Project
from recrawl.core.words import plural

#: The keys of ``recrawl export --json``, as its help lists them.
JSON_KEYS = (
    "path",
    "bytes",
    "captures",
    "chosen",
    "revisit_targets",
    "unresolved_revisits",
    "pages",
    "warcs",
    "warc_bytes",
    "open_segments",
    "elapsed_s",
)
#: Seconds between progress lines when stderr is not a terminal.
LINE_EVERY_S = 5.0


def _arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Package captures as a WACZ 1.1.1 file (ReplayWeb.page, pywb and other web-archive "
        "tools open it): their WARC records copied byte for byte, with the responses their "
        "revisits refer to, a CDXJ index and a list of pages. A round still being written "
        "is left out until it ends."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("out", metavar="OUT.wacz", help="the file to write (replaced if it exists)")
    p.add_argument("--since", metavar="ISO", help="only captures at or after this ISO 8601 time")
    p.add_argument(
        "--site",
        metavar="HOST",
        help="only captures of this host's pages (as the Sites panel lists; HOST:PORT or a "
        "URL: only that port's)",
    )
    p.add_argument(
        "--pages",
        choices=("latest", "all"),
        default="latest",
        help="each page's latest capture (default), or all of its captures",
    )
    p.add_argument("--title", help="the package's title (default: the project folder's name)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON object: "
        + ", ".join(JSON_KEYS)
        + " (captures: those chosen plus the responses their revisits need; bytes: the "
        "file's size; open_segments: rounds left out)",
    )


class ProgressLine:
    """Export progress on ``out``: rewritten in place on a terminal, else every few seconds."""

    def __init__(self, out: TextIO, every_s: float = LINE_EVERY_S) -> None:
        self._out = out
        self._tty = out.isatty()
        self._every = every_s
        self._last = -every_s
        self._width = 0
        self._started = time.monotonic()

    def __call__(self, progress: object) -> None:
        from recrawl.core.archive.wacz import ExportProgress

        assert isinstance(progress, ExportProgress)
        now = time.monotonic()
        finished = progress.done >= progress.total
        if not self._tty and not finished and now - self._last < self._every:
            return
        self._last = now
        share = progress.done / progress.total if progress.total else 1.0
        text = (
            f"exporting: {share:.0%} ({human_size(progress.done)} of "
            f"{human_size(progress.total)}), {progress.captures_done:,} of "
            f"{plural(progress.captures_total, 'capture')}"
        )
        if self._tty:
            self._out.write("\r" + text.ljust(self._width))
            self._width = len(text)
            if finished:
                self._out.write("\n")
        else:
            self._out.write(text + "\n")
        self._out.flush()


@project_command
def run_export(project: Project, args: argparse.Namespace) -> int:
    # WARC reading and zip writing: only for this command
    from recrawl.core.archive.wacz import ExportOptions, ExportStopped, export_wacz

    options = ExportOptions(
        site=args.site,
        since=parse_iso(args.since) if args.since else None,
        pages=args.pages,
        title=args.title,
    )
    stop = threading.Event()
    signals = StopSignals(stop.set, "stopping the export")
    try:
        with signals:
            summary = export_wacz(
                project.path,
                Path(args.out),
                options,
                progress=ProgressLine(sys.stderr),
                stop=stop.is_set,
            )
    except ExportStopped as exc:
        print(f"recrawl: {exc}", file=sys.stderr)
        return signals.exit_status
    if summary.open_segments:
        print(
            f"recrawl: left out {plural(len(summary.open_segments), 'round')} still being "
            f"written ({', '.join(summary.open_segments)}): export again once it ends",
            file=sys.stderr,
        )
    if summary.unresolved_revisits:
        print(
            f"recrawl: warning: {plural(summary.unresolved_revisits, 'revisit')} refer to "
            "responses the project no longer has: they will not replay",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(summary.to_json()))
        return 0
    added = (
        f" (and {plural(summary.revisit_targets, 'response')} their revisits refer to)"
        if summary.revisit_targets
        else ""
    )
    print(
        f"exported {plural(summary.chosen, 'capture')}{added}, "
        f"{plural(summary.pages, 'page')}, from {plural(summary.warcs, 'WARC')}: "
        f"{human_size(summary.bytes)} in {summary.path} "
        f"({human_duration(summary.elapsed_s)})"
    )
    return 0


COMMANDS = {"export": Command(_arguments, run_export)}
