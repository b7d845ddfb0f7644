"""``recrawl init``, ``inject`` and ``crawl``: make a project, seed it, crawl what is due."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from recrawl.core.cli.crawl_report import (
    CrawlReport,
    compaction_lines,
    due_outlook,
    outlook_line,
)
from recrawl.core.cli.output import DIR_HELP, url_lines, warn
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.cli.setting_flags import add_setting_flags, flag_overrides
from recrawl.core.clock import Clock, parse_iso, to_iso, utcnow
from recrawl.core.config import CrawlSettings, with_overrides
from recrawl.core.errors import InvalidArgument
from recrawl.core.interrupts import run_interruptible
from recrawl.core.policy.crawl_settings import project_crawl_settings
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.core.textfile import read_text
from recrawl.core.words import plural


def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "Make a project folder: its store (recrawl.sqlite) and segments/."
    p.add_argument("dir", help="the folder to make a project of (made if missing)")
    p.add_argument(
        "--db",
        metavar="URL",
        help="keep the store in this PostgreSQL database instead of recrawl.sqlite "
        "(postgresql://USER@HOST[:PORT]/DB; a password goes in ~/.pgpass or PGPASSWORD)",
    )


def run_init(args: argparse.Namespace) -> int:
    project = Project.init(args.dir, db_url=args.db)
    try:
        for note in project.notes:  # opening one that was there: an upgrade, a recovery
            print(f"recrawl: {note}", file=sys.stderr)
        if project.created and args.db:
            print(f"initialised {project.path} (its store in {args.db})")
        elif project.created:
            print(f"initialised {project.path}")
        else:
            print(f"{project.path} is a Recrawl project already: nothing to initialise")
    finally:
        project.close()
    return 0


def _inject_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Add seed URLs: due at once, and their hosts in scope (the chain's scope filter)."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "urls",
        nargs="*",
        metavar="URL",
        help="http(s) URLs to add (one without a scheme, example.org/news, is taken as https://)",
    )
    p.add_argument("--file", type=Path, help="a file with one URL per line (# starts a comment)")
    p.add_argument(
        "--feed",
        nargs="+",
        default=[],
        metavar="URL",
        help="RSS or Atom feeds to read on their own schedule for the pages they link "
        "(recrawl sources lists them)",
    )
    p.add_argument(
        "--sitemap", nargs="+", default=[], metavar="URL", help="sitemaps (or sitemap indexes)"
    )


@project_command
def run_inject(project: Project, args: argparse.Namespace) -> int:
    seeds = Services(project).seeds  # the engine (httpx, parsers): not for init

    urls = list(args.urls)
    if args.file:
        urls += url_lines(read_text(args.file, "URL list"))
    if not urls and not args.feed and not args.sitemap:
        raise InvalidArgument("no URLs given (pass URLs, --file, --feed or --sitemap)")
    now = utcnow()
    for kind, given in (("feed", args.feed), ("sitemap", args.sitemap)):
        if given:
            sources = seeds.add_sources(given, kind, now)
            for note in sources.notes():
                print(note)
            print(f"injected {sources.added} new of {plural(len(set(given)), kind)}")
    if urls:
        result = seeds.add(urls, now)
        for note in result.notes():
            print(note)
        print(f"injected {result.added} new of {plural(len(result.urls), 'URL')}")
        if result.known:
            known = len(result.known)
            print(
                f"{plural(known, 'URL')} already known (not changed; "
                f"`recrawl refetch {args.dir} URL...` makes {'it' if known == 1 else 'them'} due now)"
            )
        for url, verdict in result.rejected:
            warn(f"{url} not added: {verdict.describe()}")
    return 0


def _crawl_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Crawl what is due, round after round, until nothing is due or a limit is hit. "
        "The crawl starts from the settings the project keeps (`recrawl settings`); "
        "these flags override them for this crawl only."
    )
    p.add_argument("dir", help=DIR_HELP)
    crawl_options(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="print the summary as JSON: rounds, fetched, new_urls, errors, elapsed_s, "
        "pages_per_s, segments, new_pages, changed_pages, embeds_fetched, embed_errors, "
        "gone_pages, back_pages, baseline_pages, "
        "possible_traps (patterns held back as possible traps), "
        "next_due_at (when the next page is due: a time past when pages are still due, "
        "null when none ever will be)",
    )


def crawl_options(p: argparse.ArgumentParser) -> None:
    """The options of a crawl (``crawl``, ``watch``): its settings' flags, the clock."""
    add_setting_flags(p)
    p.add_argument(
        "--now",
        metavar="ISO",
        help="start the clock at this ISO 8601 time (tests, demos, simulated revisits)",
    )


@project_command
def run_crawl(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.engine import Crawler  # the engine (httpx, numpy): not for init

    settings, clock = crawl_settings(args)
    report = None if args.json else CrawlReport()
    # --json: stdout is the summary alone; what compaction by policy did goes to stderr
    observer = report if report is not None else compaction_lines
    crawler = Crawler(project, settings, observer=observer, clock=clock)
    summary = run_interruptible(crawler, "stopping after the fetches in flight")
    now = clock.now()
    outlook = due_outlook(now)
    if report is None:
        print(json.dumps({**summary.to_json(), "next_due_at": to_iso(outlook.next_due_at)}))
    else:
        print("\n".join(report.summary_lines(summary)))
        print(outlook_line(outlook, now, summary.fetched, args.dir))
    return 0


def crawl_settings(args: argparse.Namespace) -> tuple[CrawlSettings, Clock]:
    """The project's settings (``recrawl settings``, the app) with :func:`crawl_options`'
    flags over them, and the clock ``--now`` asks for."""
    settings = with_overrides(project_crawl_settings(), flag_overrides(args), kept=False)
    return settings, Clock(parse_iso(args.now) if args.now else None)


COMMANDS = {
    "init": Command(_init_arguments, run_init),
    "inject": Command(_inject_arguments, run_inject),
    "crawl": Command(_crawl_arguments, run_crawl),
}
