"""``recrawl storage``: where the project's bytes are, their growth, what compaction would
free, and the free space (docs/design.md §18)."""

from __future__ import annotations

import argparse
import json

from recrawl.core.cli.output import DIR_HELP, human_size
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.project import Project
from recrawl.core.services.storage import KINDS, Bucket, StorageReport, storage_report
from recrawl.core.words import percent, plural

#: Sites the text lists (the JSON lists all).
TEXT_SITES = 20


def _arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Where the project's bytes are: by site, by month and by kind; segments and their "
        "liveness; growth a month and a year's projection; what compaction or dropping "
        "superseded captures would free; the free space, with a warning below "
        "storage.warn_free. Reads only (a cache of each WARC's figures is kept in the "
        "store when it can be written)."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: project, measured_at, total_bytes, by_kind, by_site, "
        "by_month, segments, growth, compaction, free, measured_files, unreadable",
    )


@project_command
def run_storage(project: Project, args: argparse.Namespace) -> int:
    report = storage_report(project.path)
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(report_text(report))
    return 0


def report_text(report: StorageReport) -> str:
    lines: list[str] = []
    if report.free.warning:
        lines.append(f"WARNING: {report.free.warning}")
    kinds = ", ".join(
        f"{kind} {human_size(report.by_kind[kind])}" for kind in KINDS if report.by_kind[kind]
    )
    lines.append(f"{human_size(report.total_bytes)} in {report.folder}: {kinds or 'nothing'}")
    free = report.free
    lines.append(
        f"free: {human_size(free.free_bytes)} of {human_size(free.total_bytes)} on {free.path}"
        + (f" (warns below {human_size(free.warn_below)})" if free.warn_below else "")
    )
    segments = report.segments
    records = sum(s.records for s in segments)
    live = sum(s.live_records for s in segments)
    still_open = sum(1 for s in segments if s.state != "closed")
    lines.append(
        f"segments: {len(segments):,}"
        + (f" ({still_open} open)" if still_open else "")
        + f", {plural(records, 'record')}, {percent(live, records)} live"
    )
    fold = report.compaction
    if fold.segments:
        lines.append(
            f"compaction: {plural(len(fold.segments), 'segment')} "
            f"({human_size(fold.segments_bytes)}) {'holds' if len(fold.segments) == 1 else 'hold'} {plural(fold.superseded_records, 'superseded capture')} "
            f"({human_size(fold.superseded_bytes)}): compacting them moves those to history/, "
            "--drop-superseded frees them"
        )
    else:
        lines.append("compaction: every segment is all live")
    if fold.history_files:
        lines.append(
            f"history: {human_size(fold.history_bytes + fold.history_index_bytes)} of "
            f"superseded captures in {plural(fold.history_files, 'WARC')}; keeping no superseded capture would "
            f"free {human_size(fold.drop_superseded_bytes)}"
        )
    growth = report.growth
    if growth.bytes_per_month is not None and growth.next_year_bytes is not None:
        how = (
            f"mean of {', '.join(growth.months)}"
            if growth.method == "full-months"
            else "since the first capture"
        )
        until = ""
        if growth.months_until_full is not None:
            months = growth.months_until_full
            lasts = f"{months:.1f} months" if months < 24 else f"{months / 12:,.0f} years"
            until = f"; the free space lasts {lasts} at that rate"
        lines.append(
            f"growth: {human_size(growth.bytes_per_month)} a month ({how}); "
            f"a year: +{human_size(growth.next_year_bytes)}{until}"
        )
    else:
        lines.append("growth: not known yet (less than a day of captures)")
    if report.by_site:
        lines.append("by site:")
        lines.extend(_bucket_line(b) for b in report.by_site[:TEXT_SITES])
        if len(report.by_site) > TEXT_SITES:
            lines.append(f"  and {plural(len(report.by_site) - TEXT_SITES, 'more site')}")
    if report.by_month:
        lines.append("by month (UTC, of the capture):")
        lines.extend(_bucket_line(b) for b in report.by_month)
    for relpath in report.unreadable:
        lines.append(f"unreadable index, not counted by site or month: {relpath}")
    return "\n".join(lines)


def _bucket_line(bucket: Bucket) -> str:
    parts = [
        f"{name} {human_size(value)}"
        for name, value in (
            ("pages", bucket.pages),
            ("embeds", bucket.embeds),
            ("history", bucket.history),
        )
        if value
    ]
    return (
        f"  {bucket.key:<30} {human_size(bucket.bytes):>10}  "
        f"{plural(bucket.captures, 'capture'):>16}  {', '.join(parts)}"
    )


COMMANDS = {"storage": Command(_arguments, run_storage)}
