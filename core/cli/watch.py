"""``recrawl watch``: crawl rounds as pages come due, sleeping in between (docs/design.md §10)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from recrawl.core.cli.arguments import duration
from recrawl.core.cli.crawl import crawl_options, crawl_settings
from recrawl.core.cli.crawl_report import baseline_done_line, gone_reason
from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import Clock, human_duration, to_iso
from recrawl.core.engine.events import (
    Compacted,
    Event,
    LogMessage,
    PageFetched,
    WatchRound,
    WatchSleeping,
)
from recrawl.core.interrupts import run_interruptible
from recrawl.core.project import Project
from recrawl.core.store.models import NewsKind
from recrawl.core.words import plural

if TYPE_CHECKING:  # the engine: imported when the watch runs, not to parse its options
    from recrawl.core.watch.watcher import WatchSummary


def _watch_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Watch a project: crawl whenever pages are due, sleep until the next one is "
        "(woken at once by inject, schedule, signature, settings and filter changes). "
        "Survives network loss and suspend; Ctrl-C or SIGTERM stops it after the fetches "
        "in flight. The crawl options are `recrawl crawl`'s; --rounds and --max-pages "
        "bound the whole watch."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--for",
        dest="for_seconds",
        type=duration,
        metavar="DUR",
        help="stop watching after DUR (30s, 12h, 7d)",
    )
    crawl_options(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="one line per round: started_at, fetched, new_pages, changed_pages, gone_pages, "
        "back_pages, baseline_pages, errors, next_due_at, embeds_fetched",
    )


class WatchReport:
    """The observer of a watch: a line per round and per sleep (JSON: per round only)."""

    def __init__(self, as_json: bool, clock: Clock) -> None:
        self.as_json = as_json
        self.clock = clock
        self._lock = threading.Lock()

    def __call__(self, events: Sequence[Event]) -> None:
        for event in events:
            if isinstance(event, WatchRound):
                self._print(json.dumps(event.to_json()) if self.as_json else _round(event))
                if not self.as_json:
                    for done in event.baselines_done:
                        self._print(baseline_done_line(done))
            elif isinstance(event, PageFetched) and event.news == NewsKind.GONE:
                # the log names what went (JSON: the round's gone_pages count it)
                print(f"gone: {event.url} ({gone_reason(event)})", file=sys.stderr, flush=True)
            elif isinstance(event, WatchSleeping) and not self.as_json:
                self._print(self._sleeping(event))
            elif isinstance(event, LogMessage) and event.level != "info":
                print(f"{event.level}: {event.text}", file=sys.stderr, flush=True)
            elif isinstance(event, Compacted):  # between rounds, by policy (§18)
                print(event.line, file=sys.stderr, flush=True)

    def _print(self, line: str) -> None:
        with self._lock:
            print(line, flush=True)

    def _sleeping(self, event: WatchSleeping) -> str:
        if event.until is None:
            return "sleeping: no page is due ever (inject seeds to wake me)"
        left = max((event.until - self.clock.now()).total_seconds(), 0.0)
        return f"sleeping until {to_iso(event.until.replace(microsecond=0))} (in {human_duration(left)})"


def _round(event: WatchRound) -> str:
    line = (
        f"round {to_iso(event.started_at.replace(microsecond=0))}: {event.fetched} fetched, "
        f"{event.new_pages} new, {event.changed_pages} changed, {event.gone_pages} gone, "
        f"{event.back_pages} back, {plural(event.errors, 'error')}"
    )
    if event.baseline_pages:
        line += f"; first crawl: {plural(event.baseline_pages, 'page')} archived"
    return line


@project_command
def run_watch(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.watch.watcher import Watcher  # the engine: not for quick commands

    _settings, clock = crawl_settings(args)
    report = WatchReport(args.json, clock)
    watcher = Watcher(
        project,
        lambda: crawl_settings(args)[0],  # read again each round: `recrawl settings` holds
        observer=report,
        clock=clock,
        for_seconds=args.for_seconds,
    )
    summary = run_interruptible(watcher, "stopping after the fetches in flight")
    if not args.json:
        print(f"watched {human_duration(summary.elapsed_s)}: {watch_counts(summary)}")
    return 0


COMMANDS = {"watch": Command(_watch_arguments, run_watch)}


def watch_counts(summary: WatchSummary) -> str:
    """What a watch (or a worker) did, as its last line says it."""
    return (
        f"{plural(summary.rounds, 'round')}, {summary.fetched} fetched, "
        f"{summary.new_pages} new, {summary.changed_pages} changed, {summary.gone_pages} gone, "
        f"{summary.back_pages} back, {plural(summary.errors, 'error')}"
    )
