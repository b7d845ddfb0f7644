"""``recrawl segments`` and ``compact``: segments with their liveness, and folding them."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import TYPE_CHECKING

from recrawl.core import store
from recrawl.core.cli.arguments import fraction
from recrawl.core.cli.output import DIR_HELP, human_size, print_rows
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import to_iso
from recrawl.core.interrupts import StopSignals
from recrawl.core.project import Project
from recrawl.core.words import percent, plural

if TYPE_CHECKING:
    from recrawl.core.archive.compaction import CompactionSummary


def _segments_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "List the segments: records, live records, liveness, size."
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array of {name, created_at, records, live_records, liveness, bytes}",
    )


@project_command
def run_segments(project: Project, args: argparse.Namespace) -> int:
    rows = [
        {
            "name": s["name"],
            "created_at": to_iso(s["created_at"]),
            "records": s["records"],
            "live_records": s["live_records"],
            "liveness": round(s["liveness"], 4),
            "bytes": s["bytes"],
        }
        for s in store.segment_summaries()
    ]
    print_rows(
        rows,
        args.json,
        lambda row: (
            f"{row['name']}  {row['records']:>7} records  {row['live_records']:>7} live  "
            f"{percent(row['live_records'], row['records']):>5}  {row['bytes']:>12} bytes"
        ),
    )
    return 0


def _compact_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Copy the live records of the chosen segments into one new segment; "
        "superseded captures move to history/ unless --drop-superseded."
    )
    p.add_argument("dir", help=DIR_HELP)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--below", type=fraction, metavar="F", help="segments with liveness below F (0.5 or 50%%)"
    )
    which.add_argument("--segments", metavar="A,B", help="these segments, by name")
    p.add_argument("--drop-superseded", action="store_true", help="drop, not keep, old captures")
    p.add_argument("--json", action="store_true", help="print the compaction's figures as JSON")


@project_command
def run_compact(project: Project, args: argparse.Namespace) -> int:
    # WARC writing: not for `segments`
    from recrawl.core.archive.compaction import CompactionStopped, compact

    names = args.segments.split(",") if args.segments is not None else None
    # Ctrl-C or SIGTERM: rolled back before the commit (exit 128 + the signal's number),
    # finished after it (exit 0); either way one line says which
    stop = threading.Event()
    signals = StopSignals(stop.set, "stopping the compaction")
    try:
        with signals:
            summary = compact(
                project,
                below=args.below,
                names=names,
                drop_superseded=args.drop_superseded,
                stop=stop.is_set,
            )
    except CompactionStopped:
        print("recrawl: compaction rolled back before its commit; nothing changed", file=sys.stderr)
        return signals.exit_status
    if signals.received is not None and summary.compacted:
        print("recrawl: compaction was past its commit when stopped: finished", file=sys.stderr)
    if args.json:
        print(json.dumps(summary.to_json()))
    elif not summary.compacted:
        print("nothing to compact")
    else:
        print(_compaction_text(summary))
    return 0


def _compaction_text(summary: CompactionSummary) -> str:
    """``compacted 2 segments into 20270101000000: 5 records kept, ...`` (sizes for people)."""
    text = f"compacted {plural(len(summary.compacted), 'segment')}"
    if summary.new_segment:
        text += f" into {summary.new_segment}: {plural(summary.records_kept, 'record')} kept"
    else:
        text += ": no live records to keep"
    if summary.records_moved_to_history:
        where = summary.history_file or "history/"
        text += f", {summary.records_moved_to_history} moved to {where}"
    if summary.records_dropped:
        text += f", {summary.records_dropped} dropped"
    text += f"; {human_size(summary.bytes_before)} -> {human_size(summary.bytes_after)}"
    if summary.history_bytes:
        text += f" (+{human_size(summary.history_bytes)} in history)"
    return text


COMMANDS = {
    "segments": Command(_segments_arguments, run_segments),
    "compact": Command(_compact_arguments, run_compact),
}
