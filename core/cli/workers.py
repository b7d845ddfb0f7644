"""``recrawl worker`` and ``workers``: one crawl worker, and the list of them (docs/design.md §12).

``workers`` only reads the store: it loads no engine (issue 11); ``worker`` loads it when
it runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from recrawl.core import store
from recrawl.core.cli.output import DIR_HELP, print_rows
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import human_duration, to_iso
from recrawl.core.project import Project


def _worker_arguments(p: argparse.ArgumentParser) -> None:
    from recrawl.core.cli.crawl import crawl_options  # `crawl`'s: not for `workers`

    p.description = (
        "Run one crawl worker: it leases hosts with due pages from the project's store "
        "and crawls them, as `recrawl watch` does, beside any number of other workers "
        "on this or other machines sharing the folder (a PostgreSQL project; on SQLite "
        "one worker at a time). Ctrl-C or SIGTERM stops it after the fetches in flight, "
        "its batch committed and its leases released."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--name",
        metavar="NAME",
        help="the worker's name, unique among the live workers (default: machine-pid); "
        "its segments carry it",
    )
    p.add_argument(
        "--until-idle",
        action="store_true",
        help="exit once nothing is due and no other worker holds a lease",
    )
    crawl_options(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="one line per round: started_at, fetched, new_pages, changed_pages, gone_pages, "
        "back_pages, baseline_pages, errors, next_due_at, embeds_fetched",
    )


@project_command
def run_worker(project: Project, args: argparse.Namespace) -> int:
    # the engine and `watch`'s report: not for `workers`
    from recrawl.core.cli.crawl import crawl_settings
    from recrawl.core.cli.watch import WatchReport, watch_counts
    from recrawl.core.engine.worker import WorkerSession
    from recrawl.core.interrupts import run_interruptible
    from recrawl.core.watch.watcher import Watcher

    settings, clock = crawl_settings(args)
    session = WorkerSession(args.name, settings.workers)
    watcher = Watcher(
        project,
        lambda: crawl_settings(args)[0],  # read again each round: `recrawl settings` holds
        observer=WatchReport(args.json, clock),
        clock=clock,
        worker=session,
        until_idle=args.until_idle,
    )
    summary = run_interruptible(watcher, "stopping after the fetches in flight")
    if not args.json:
        print(
            f"worker {session.name}: {human_duration(summary.elapsed_s)}, {watch_counts(summary)}"
        )
    return 0


def _workers_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List the crawl workers: the live ones, and those that ended or died (their "
        "heartbeat ran out) in the last 24 hours."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array of {name, pid, machine, started_at, heartbeat_at, "
        "leased_hosts, pages_per_s}",
    )


@project_command
def run_workers(project: Project, args: argparse.Namespace) -> int:
    workers = store.list_workers()
    if args.json:
        print_rows([_json(w) for w in workers], True, str)
        return 0
    if not workers:
        print("no workers in the last 24 hours")
        return 0
    rows = [
        (
            w.name,
            w.state,
            f"{w.pid}@{w.machine}",
            f"{human_duration(w.heartbeat_age_s)} ago",
            str(w.leased_hosts),
            f"{w.pages_per_s:.1f}",
            str(w.fetched),
        )
        for w in workers
    ]
    header = ("NAME", "STATE", "PID@MACHINE", "HEARTBEAT", "HOSTS", "PAGES/S", "FETCHED")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    return 0


def _json(worker: store.WorkerInfo) -> dict[str, Any]:
    return {
        "name": worker.name,
        "pid": worker.pid,
        "machine": worker.machine,
        "started_at": to_iso(worker.started_at),
        "heartbeat_at": to_iso(worker.heartbeat_at),
        "leased_hosts": worker.leased_hosts,
        "pages_per_s": round(worker.pages_per_s, 3),
    }


COMMANDS = {
    "worker": Command(_worker_arguments, run_worker),
    "workers": Command(_workers_arguments, run_workers),
}
