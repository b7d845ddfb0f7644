"""The ``recrawl`` command line (DESIGN.md §8): everything the GUI does, scriptable.

Errors print one line on stderr and exit non-zero; ``--debug`` adds the traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, Protocol

from recrawl.core import store
from recrawl.core.cli.filter import cmd_filter, cmd_filter_check, url_lines
from recrawl.core.cli.output import print_rows
from recrawl.core.clock import Clock, parse_duration, parse_iso, to_iso, utcnow
from recrawl.core.config import CrawlSettings
from recrawl.core.engine.events import Event, LogMessage, RoundFinished
from recrawl.core.errors import InvalidArgument, NotFound, RecrawlError
from recrawl.core.net.http import decode_body
from recrawl.core.net.urls import canonical
from recrawl.core.policy import choices
from recrawl.core.policy.schedules import make_schedule, schedule_names
from recrawl.core.policy.scoring import SCORINGS
from recrawl.core.policy.signature import SIGNATURES
from recrawl.core.project import Project
from recrawl.core.store.models import PageStatus
from recrawl.core.textfile import read_text

from recrawl import __version__

PAGE_COLUMNS = store.LISTING_COLUMNS  # as `recrawl urls` prints them


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # one clear line instead of argparse's usage block
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def _fraction(text: str) -> float:
    """``0.5`` or ``50%``."""
    body = text.strip()
    try:
        value = float(body[:-1]) / 100 if body.endswith("%") else float(body)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a fraction like 0.5 or 50%: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (or 0% and 100%): {text!r}")
    return value


def _duration(text: str) -> float:
    try:
        return parse_duration(text)
    except InvalidArgument as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="recrawl", description="Crawl manager for web archivists.")
    parser.add_argument("--version", action="version", version=f"recrawl {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="crawl a tiny loopback site from the app's own window (offscreen) and exit",
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("gui", help="open the desktop app")
    p.add_argument("dir", nargs="?", help="project folder (default: the default project)")

    p = sub.add_parser("init", help="create a project folder")
    p.add_argument("dir")

    p = sub.add_parser("inject", help="add seed URLs")
    p.add_argument("dir")
    p.add_argument("urls", nargs="*", metavar="URL")
    p.add_argument("--file", type=Path, help="a file with one URL per line")

    p = sub.add_parser("crawl", help="crawl what is due")
    p.add_argument("dir")
    p.add_argument("--rounds", type=_positive_int)
    p.add_argument("--max-pages", type=_positive_int)
    p.add_argument("--concurrency", type=_positive_int)
    p.add_argument("--per-host", type=_positive_int)
    p.add_argument("--delay", type=_seconds, help="seconds between requests to one host")
    p.add_argument("--timeout", type=_seconds, help="read timeout in seconds")
    p.add_argument("--ignore-robots", action="store_true")
    p.add_argument("--now", help="start the clock at this ISO 8601 instant")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("urls", help="list the pages")
    p.add_argument("dir")
    p.add_argument("--status", choices=PageStatus.ALL)
    p.add_argument("--new-since", help="first seen at or after this ISO 8601 instant")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")

    p = sub.add_parser("history", help="a page's fetch history")
    p.add_argument("dir")
    p.add_argument("url")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("show", help="the decoded payload of a page's latest capture")
    p.add_argument("dir")
    p.add_argument("url")
    p.add_argument("--at", metavar="ISO", help="the capture closest before this time instead")

    p = sub.add_parser("schedule", help="show or choose the project's fetch schedule")
    p.add_argument("dir")
    p.add_argument("--set", metavar="NAME", help="schedule: " + ", ".join(schedule_names()))
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="K=V",
        help="a parameter (durations like 30d, 12h, 1800s); min@HOST=V per host",
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("signature", help="show or choose how content changes are detected")
    p.add_argument("dir")
    p.add_argument("--set", metavar="KIND", help="signature: " + ", ".join(SIGNATURES))
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("scoring", help="show or choose how pages are scored")
    p.add_argument("dir")
    p.add_argument("--set", metavar="KIND", help="scoring: " + ", ".join(SCORINGS))
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "simulate",
        help="simulate a schedule on one page, or compare schedules on a corpus",
        description="One page: --schedule NAME with --change-every DUR or --change-at "
        "D1,D2,... (days). A corpus: --corpus N --days D --schedules A,B,...",
    )
    p.add_argument("--schedule", choices=schedule_names())
    p.add_argument("--param", action="append", default=[], metavar="K=V")
    p.add_argument("--change-every", type=_duration, metavar="DUR")
    p.add_argument("--change-at", metavar="D1,D2,...", help="days on which the page changes")
    p.add_argument("--initial-interval", type=_duration, metavar="DUR")
    p.add_argument("--first-fetch", type=_duration, default=0.0, metavar="DUR")
    p.add_argument("--until", type=_duration, default=365 * 86400.0, metavar="DUR")
    p.add_argument("--corpus", type=_positive_int, metavar="N")
    p.add_argument("--days", type=_positive_int, default=365)
    p.add_argument("--schedules", metavar="A,B,...")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("segments", help="list segments with their liveness")
    p.add_argument("dir")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "compact",
        help="fold low-liveness segments into one",
        description="Copy the live records of the chosen segments into one new segment; "
        "superseded captures move to history/ unless --drop-superseded.",
    )
    p.add_argument("dir")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--below", type=_fraction, metavar="F", help="segments with liveness below F (0.5 or 50%%)"
    )
    which.add_argument("--segments", metavar="A,B", help="these segments, by name")
    p.add_argument("--drop-superseded", action="store_true", help="drop, not keep, old captures")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("filter", help="check, edit, import and export the URL filter chain")
    fsub = p.add_subparsers(dest="filter_command", metavar="ACTION", parser_class=_Parser)
    fsub.required = True
    q = fsub.add_parser(
        "check",
        help="run URLs through a chain",
        description="filter check (DIR | --chain FILE) (URL... | --file F) [--json | --explain]",
    )
    q.add_argument("args", nargs="*", metavar="DIR URL", help="the project (unless --chain), URLs")
    q.add_argument("--chain", type=Path, metavar="FILE", help="a chain file instead of a project")
    q.add_argument("--file", type=Path, help="a file with one URL per line")
    shape = q.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true")
    shape.add_argument("--explain", action="store_true")
    q = fsub.add_parser("get", help="print the project's chain (TOML)")
    q.add_argument("dir")
    q = fsub.add_parser("set", help="replace the project's chain with a TOML file")
    q.add_argument("dir")
    q.add_argument("file", type=Path)
    q = fsub.add_parser("import", help="make the chain from Nutch's URL filter files")
    q.add_argument("dir")
    q.add_argument("nutch_conf_dir", type=Path, metavar="NUTCH_CONF_DIR")
    q.add_argument("--order", metavar="KINDS", help="e.g. suffix,regex,prefix,automaton")
    q = fsub.add_parser("export", help="write the chain as Nutch's URL filter files")
    q.add_argument("dir")
    q.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    q = fsub.add_parser("preview", help="what a new chain would change on the known URLs")
    q.add_argument("dir")
    q.add_argument("file", type=Path)
    q.add_argument("--json", action="store_true")
    q = fsub.add_parser("stats", help="hits per rule over the project's URLs")
    q.add_argument("dir")
    q.add_argument("--json", action="store_true")
    return parser


class App(Protocol):
    """The desktop app, as the command line starts it (``recrawl.main`` provides it).

    The engine never imports the GUI: whoever runs the command line hands it in.
    """

    def open(self, project_dir: str | None) -> int:
        """Run the app on a project folder (None: the default project) until it quits."""
        ...

    def self_test(self) -> int:
        """Crawl a loopback site from the app's own window (offscreen); 0 when all is well."""
        ...


def main(argv: Sequence[str] | None = None, app: App | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args, app)
    except RecrawlError as exc:
        if args.debug:
            raise
        print(f"recrawl: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("recrawl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _dispatch(args: argparse.Namespace, app: App | None) -> int:
    command = args.command or "gui"
    if args.self_test or command == "gui":
        if app is None:
            raise InvalidArgument("this recrawl has no desktop app; use a command (see --help)")
        return app.self_test() if args.self_test else app.open(getattr(args, "dir", None))
    if command == "simulate":
        return _cmd_simulate(args)
    if command == "filter" and args.filter_command == "check":
        return cmd_filter_check(args)  # --chain FILE needs no project
    if command == "init":
        project = Project.init(args.dir)
        print(f"initialised {project.path}")
        return 0
    project = Project.open(args.dir)
    for note in project.notes:
        print(f"recrawl: {note}", file=sys.stderr)
    try:
        return COMMANDS[command](project, args)
    finally:
        project.close()


def _cmd_inject(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.engine import inject

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


def _cmd_crawl(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.engine import Crawler

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


def _run_interruptible(crawler: Any) -> Any:
    """Run the crawl on a thread so Ctrl-C can ask it to stop cleanly."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["summary"] = crawler.run()
        except BaseException as exc:  # handed back to the main thread below
            result["error"] = exc

    thread = threading.Thread(target=target, name="crawl")
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        print("recrawl: stopping (Ctrl-C again to kill)", file=sys.stderr)
        crawler.stop()
        thread.join()
    if "error" in result:
        raise result["error"]
    return result["summary"]


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


def _json_value(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return to_iso(value)
    return value


def _cmd_urls(project: Project, args: argparse.Namespace) -> int:
    since = parse_iso(args.new_since) if args.new_since else None
    rows = (
        {k: _json_value(row[k]) for k in PAGE_COLUMNS}
        for row in store.list_pages(args.status, since)
    )
    out = sys.stdout
    if args.json:
        _write_json_array(out, rows)
    elif args.csv:
        writer = csv.DictWriter(out, fieldnames=PAGE_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    else:
        for row in rows:
            out.write(f"{row['status']:<13} {row['first_seen'] or '-':<28} {row['url']}\n")
    return 0


def _write_json_array(out: Any, rows: Iterable[dict[str, Any]]) -> None:
    """Stream a JSON array, one object per line, without holding all rows."""
    out.write("[")
    for index, row in enumerate(rows):
        out.write(("\n" if index == 0 else ",\n") + json.dumps(row))
    out.write("\n]\n")


def _find_page(url: str) -> Any:
    candidates = [url]
    with contextlib.suppress(RecrawlError):
        candidates.insert(0, canonical(url))
    for candidate in candidates:
        page = store.page_by_url(candidate)
        if page is not None:
            return page
    raise NotFound(f"no page {url} in this project")


def _cmd_history(project: Project, args: argparse.Namespace) -> int:
    page = _find_page(args.url)
    rows = [
        {
            "fetched_at": to_iso(ev.fetched_at),
            "http_status": ev.http_status,
            "change": ev.change,
            "interval_before": ev.interval_before,
            "interval_after": ev.interval_after,
            "segment": ev.segment,
        }
        for ev in store.history(page)
    ]
    print_rows(
        rows,
        args.json,
        lambda row: (
            f"{row['fetched_at']}  {row['http_status'] or '-':>4}  {row['change']:<9} "
            f"{row['interval_before']:.0f}s -> {row['interval_after']:.0f}s  "
            f"{row['segment'] or '-'}"
        ),
    )
    return 0


def _cmd_show(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.archive.captures import latest_payload, payload_at

    page = _find_page(args.url)
    if args.at:
        record = payload_at(project.path, page.url, parse_iso(args.at))
    else:
        record = latest_payload(project.path, page.url)
    encoding = next((v for k, v in record.http_headers if k.lower() == "content-encoding"), None)
    body, problem = decode_body(record.body, encoding, 1 << 30)
    if problem:
        print(f"recrawl: warning: {problem}", file=sys.stderr)
    sys.stdout.buffer.write(body)
    sys.stdout.buffer.flush()
    return 0


def _cmd_segments(project: Project, args: argparse.Namespace) -> int:
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
            f"{row['liveness'] * 100:5.1f}%  {row['bytes']:>12} bytes"
        ),
    )
    return 0


def _cmd_compact(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.archive.compaction import compact

    names = args.segments.split(",") if args.segments is not None else None
    summary = compact(project, below=args.below, names=names, drop_superseded=args.drop_superseded)
    if args.json:
        print(json.dumps(summary.to_json()))
    elif not summary.compacted:
        print("nothing to compact")
    else:
        print(
            f"compacted {len(summary.compacted)} segment(s) into {summary.new_segment or '-'}: "
            f"{summary.records_kept} records kept, {summary.records_moved_to_history} moved "
            f"to {summary.history_file or 'history'}, {summary.records_dropped} dropped; "
            f"{summary.bytes_before} -> {summary.bytes_after} bytes "
            f"(+{summary.history_bytes} in history)"
        )
    return 0


def _cmd_schedule(project: Project, args: argparse.Namespace) -> int:
    if args.set or args.param:
        schedule = choices.set_schedule(args.set, args.param)
    else:
        schedule = choices.project_schedule()
    description = choices.describe_schedule(schedule)
    if args.json:
        print(json.dumps(description))
    else:
        print(_describe_line(description))
    return 0


def _describe_line(description: dict[str, Any]) -> str:
    parts = [f"{k}={v}" for k, v in description.items() if k not in ("name", "base")]
    line = f"{description['name']}: {', '.join(parts)}"
    if "base" in description:
        line += f"; base {_describe_line(description['base'])}"
    return line


def _cmd_signature(project: Project, args: argparse.Namespace) -> int:
    signature = choices.set_signature(args.set) if args.set else choices.project_signature()
    print(json.dumps({"signature": signature.kind}) if args.json else signature.kind)
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from recrawl.core.policy.simulate import corpus_rates, optimum, simulate_corpus, simulate_page

    if args.corpus:
        names = [n.strip() for n in (args.schedules or "").split(",") if n.strip()]
        if not names:
            raise InvalidArgument("--corpus needs --schedules A,B,...")
        rates = corpus_rates(args.corpus, args.seed)
        per_schedule = _corpus_params(names, args.param)
        rows = []
        for name in names:
            schedule = make_schedule(name, **per_schedule[name])
            result = simulate_corpus(schedule, rates, args.days, seed=args.seed)
            best = optimum(rates, result.fetches_per_page_per_day, args.days)
            row = result.to_json()
            row["optimum"] = {
                "freshness": round(best.freshness, 4),
                "mean_staleness_hours": round(best.mean_staleness_hours, 2),
            }
            rows.append(row)
        print_rows(
            rows,
            args.json,
            lambda row: (
                f"{row['schedule']:<16} {row['fetches_per_page_per_day']:8.3f} fetches/page/day"
                f"  freshness {row['freshness']:.3f} (optimum {row['optimum']['freshness']:.3f})"
                f"  staleness {row['mean_staleness_hours']:.1f} h"
            ),
        )
        return 0
    if not args.schedule:
        raise InvalidArgument("simulate needs --schedule NAME (or --corpus N)")
    if (args.change_every is None) == (args.change_at is None):
        raise InvalidArgument("give exactly one of --change-every DUR or --change-at D1,D2,...")
    base = next((a.split("=", 1)[1].strip() for a in args.param if a.startswith("base=")), None)
    params = choices.parse_params(args.schedule, base, args.param)
    schedule = make_schedule(args.schedule, **params)
    change_at = None
    if args.change_at is not None:
        try:
            change_at = [float(d) * 86400 for d in args.change_at.split(",") if d.strip()]
        except ValueError:
            raise InvalidArgument(
                f"--change-at takes days like 0,3.5,10: {args.change_at!r}"
            ) from None
    if args.change_every is not None and args.change_every <= 0:
        raise InvalidArgument("--change-every must be longer than zero")
    rows = simulate_page(
        schedule,
        change_every=args.change_every,
        change_at=change_at,
        initial_interval=args.initial_interval,
        first_fetch=args.first_fetch,
        until=args.until,
    )
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(
            f"{'day':>9} {'changed':>8} {'since change':>13} {'interval before':>16} {'after':>10}"
        )
        for r in rows:
            since = "-" if r["since_change_days"] is None else f"{r['since_change_days']:.2f} d"
            print(
                f"{r['day']:>9.2f} {'yes' if r['changed'] else 'no':>8} {since:>13} "
                f"{r['interval_before_days']:>14.3f} d {r['interval_after_days']:>8.3f} d"
            )
    return 0


def _corpus_params(names: list[str], assignments: list[str]) -> dict[str, dict[str, Any]]:
    """Each ``--param`` goes to every compared schedule that takes it; one none takes fails."""
    out: dict[str, dict[str, Any]] = {name: {} for name in names}
    for item in assignments:
        taken = False
        for name in names:
            try:
                out[name].update(choices.parse_params(name, None, [item]))
                taken = True
            except InvalidArgument:
                continue
        if not taken:
            raise InvalidArgument(f"none of {', '.join(names)} takes --param {item!r}")
    return out


def _cmd_scoring(project: Project, args: argparse.Namespace) -> int:
    scoring = choices.set_scoring(args.set) if args.set else choices.project_scoring()
    print(json.dumps({"scoring": scoring.kind}) if args.json else scoring.kind)
    return 0


COMMANDS = {
    "scoring": _cmd_scoring,
    "schedule": _cmd_schedule,
    "signature": _cmd_signature,
    "inject": _cmd_inject,
    "crawl": _cmd_crawl,
    "urls": _cmd_urls,
    "history": _cmd_history,
    "show": _cmd_show,
    "segments": _cmd_segments,
    "compact": _cmd_compact,
    "filter": cmd_filter,
}


if __name__ == "__main__":
    sys.exit(main())
