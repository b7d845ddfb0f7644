"""``recrawl init``, ``inject`` and ``crawl``: make a project, seed it, crawl what is due."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from recrawl.core.cli.arguments import positive_int, seconds
from recrawl.core.cli.interrupts import StopSignals, block_stop_signals
from recrawl.core.cli.output import url_lines
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import Clock, parse_iso, utcnow
from recrawl.core.config import CrawlSettings
from recrawl.core.engine import CrawlSummary, Event, LogMessage, RoundFinished
from recrawl.core.errors import InvalidArgument
from recrawl.core.project import Project
from recrawl.core.textfile import read_text

if TYPE_CHECKING:
    from recrawl.core.engine import Crawler


def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir")


def run_init(args: argparse.Namespace) -> int:
    project = Project.init(args.dir)
    print(f"initialised {project.path}")
    return 0


def _inject_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir")
    p.add_argument("urls", nargs="*", metavar="URL")
    p.add_argument("--file", type=Path, help="a file with one URL per line")


@project_command
def run_inject(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.engine import inject  # the engine (httpx, parsers): not for init

    urls = list(args.urls)
    if args.file:
        urls += url_lines(read_text(args.file, "URL list"))
    if not urls:
        raise InvalidArgument("no URLs given (pass URLs or --file)")
    result = inject(urls, utcnow())
    print(f"injected {result.added} new of {len(result.urls)} URLs")
    for url, verdict in result.rejected:
        print(
            f"recrawl: warning: {url} rejected by filter {verdict.filter} "
            f"({verdict.filter_name}), line {verdict.line or '-'}",
            file=sys.stderr,
        )
    return 0


def _crawl_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir")
    p.add_argument("--rounds", type=positive_int)
    p.add_argument("--max-pages", type=positive_int)
    p.add_argument("--concurrency", type=positive_int)
    p.add_argument("--per-host", type=positive_int)
    p.add_argument("--delay", type=seconds, help="seconds between requests to one host")
    p.add_argument("--timeout", type=seconds, help="read timeout in seconds")
    p.add_argument("--ignore-robots", action="store_true")
    p.add_argument("--now", help="start the clock at this ISO 8601 instant")
    p.add_argument("--json", action="store_true")


@project_command
def run_crawl(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.engine import Crawler  # the engine (httpx, numpy): not for init

    settings = CrawlSettings(rounds=args.rounds, max_pages=args.max_pages)
    politeness = settings.politeness
    if args.concurrency:
        politeness = replace(politeness, concurrency=args.concurrency)
    if args.per_host:
        politeness = replace(politeness, per_host=args.per_host)
    if args.delay is not None:
        politeness = replace(politeness, delay=args.delay)
    if args.ignore_robots:
        politeness = replace(politeness, obey_robots=False)
    fetch = settings.fetch
    if args.timeout:
        fetch = replace(fetch, read_timeout=args.timeout, connect_timeout=args.timeout)
    settings = replace(settings, politeness=politeness, fetch=fetch)
    clock = Clock(parse_iso(args.now) if args.now else None)
    observer = None if args.json else _print_progress
    crawler = Crawler(project, settings, observer=observer, clock=clock)
    summary = _run_interruptible(crawler)
    if args.json:
        print(json.dumps(summary.to_json()))
    else:
        print(
            f"{summary.rounds} rounds, {summary.fetched} fetched, {summary.new_urls} new URLs, "
            f"{summary.errors} errors in {summary.elapsed_s:.1f} s "
            f"({summary.pages_per_s:.1f} pages/s); segments: {', '.join(summary.segments) or '-'}"
        )
    return 0


def _run_interruptible(crawler: Crawler) -> CrawlSummary:
    """Run the crawl; SIGINT and SIGTERM stop it after the fetches in flight (.interrupts).

    The crawl runs on a thread of its own, so the main thread, where Python runs signal
    handlers, only waits: a handler never lands inside the crawl's own work or output.
    """
    outcome: list[CrawlSummary | BaseException] = []

    def target() -> None:
        block_stop_signals()
        try:
            outcome.append(crawler.run())
        except BaseException as exc:  # handed back to the main thread below
            outcome.append(exc)

    thread = threading.Thread(target=target, name="crawl")
    with StopSignals(crawler.stop, "stopping after the fetches in flight"):
        thread.start()
        while thread.is_alive():  # woken by a signal at once; the timeout is a safety net
            thread.join(1.0)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _print_progress(events: Sequence[Event]) -> None:
    for event in events:
        if isinstance(event, RoundFinished):
            print(
                f"round {event.round} ({event.segment}): {event.fetched} fetched, "
                f"{event.errors} errors, {event.new_urls} new URLs",
                file=sys.stderr,
            )
        elif isinstance(event, LogMessage) and event.level != "info":
            print(f"{event.level}: {event.text}", file=sys.stderr)


COMMANDS = {
    "init": Command(_init_arguments, run_init),
    "inject": Command(_inject_arguments, run_inject),
    "crawl": Command(_crawl_arguments, run_crawl),
}
