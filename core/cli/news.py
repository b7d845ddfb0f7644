"""``recrawl news`` and ``recrawl feed``: what happened to pages, newest first (docs/design.md §10).

Quick commands (issue 11): ``news`` reads the store alone; ``feed`` loads feedgen (and
with it lxml) only when it runs.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recrawl.core import store
from recrawl.core.cli.output import DIR_HELP, write_json_array
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import parse_iso, to_iso
from recrawl.core.project import Project
from recrawl.core.store.models import NewsKind
from recrawl.core.words import plural

#: The keys of one ``recrawl news --json`` item, in order (docs/design.md §10).
NEWS_KEYS = ("at", "kind", "url", "host", "title", "first_seen", "published_at")
#: A ``baseline`` item's keys after those (docs/design.md §15).
BASELINE_KEYS = ("pages", "complete")
#: A ``changed`` item's keys after those (docs/design.md §17): its first diff lines, and
#: the prefix of the change rule it was read under.
CHANGED_KEYS = ("summary", "rule")


def _since(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("--since", metavar="ISO", help="only news at or after this ISO 8601 time")


def _news_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List the news, newest first: each site's first crawl (baseline: one item for the "
        "pages it archived), pages found after it (new), changed, gone, and back after "
        "being gone."
    )
    _since(p)
    p.add_argument(
        "--kind",
        choices=NewsKind.ALL,
        metavar="KIND",
        help="only news of this kind: " + ", ".join(NewsKind.ALL),
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array: "
        + ", ".join(NEWS_KEYS)
        + " (times ISO 8601 UTC); a baseline's also "
        + ", ".join(BASELINE_KEYS)
        + "; a changed page's also "
        + ", ".join(CHANGED_KEYS)
        + " (its first diff lines, '+ added' and '- removed', and the change rule's prefix)",
    )


def news_json(item: store.NewsItem) -> dict[str, Any]:
    data: dict[str, Any] = {
        "at": to_iso(item.at),
        "kind": item.kind,
        "url": item.url,
        "host": item.host,
        "title": item.title,
        "first_seen": to_iso(item.first_seen),
        "published_at": to_iso(item.published_at),
    }
    if item.kind == NewsKind.BASELINE:
        data["pages"] = item.pages or 0
        data["complete"] = bool(item.complete)
    elif item.kind == NewsKind.CHANGED:
        data["summary"] = item.summary or None  # "": the diff showed nothing to say
        data["rule"] = item.rule
    return data


def summarised(project_dir: Path, items: Iterator[store.NewsItem]) -> Iterator[store.NewsItem]:
    """``items`` with each changed one's summary, made (and kept) for those that have
    none yet; the diff's readers are loaded only if one needs making (issue 11)."""
    for item in items:
        if item.kind == NewsKind.CHANGED and item.summary is None:
            from recrawl.core.archive.change_summary import with_summaries
            from recrawl.core.policy.change_rules import text_rule_for

            yield from with_summaries(project_dir, itertools.chain([item], items), text_rule_for)
            return
        yield item


def baseline_text(item: store.NewsItem) -> str:
    """``first crawl of example.org: 535 pages archived`` (``…so far`` while under way)."""
    pages = plural(item.pages or 0, "page")
    if item.complete:
        return f"first crawl of {item.host}: {pages} archived"
    return f"first crawl of {item.host} under way: {pages} archived so far"


@project_command
def run_news(project: Project, args: argparse.Namespace) -> int:
    where = store.NewsFilter(since=parse_iso(args.since) if args.since else None, kind=args.kind)
    items = store.iter_news(where)
    out = sys.stdout
    if args.json:
        write_json_array(out, (news_json(item) for item in summarised(project.path, items)))
        return 0
    for item in items:
        if item.kind == NewsKind.BASELINE:
            title = f"  {baseline_text(item)}"
        else:
            title = f"  {item.title}" if item.title else ""
        out.write(f"{to_iso(item.at)}  {item.kind:<8}  {item.url}{title}\n")
    return 0


def _feed_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Write the news as an Atom 1.0 feed (one entry per item, newest first) for a feed reader."
    )
    _since(p)
    p.add_argument("--site", metavar="HOST", help="only the news of this site (a feed per site)")
    p.add_argument(
        "--kind",
        choices=NewsKind.ALL,
        metavar="KIND",
        help="only news of this kind: " + ", ".join(NewsKind.ALL),
    )
    p.add_argument("--out", metavar="FILE", help="write the feed to FILE instead of stdout")
    p.add_argument(
        "--limit",
        type=int,
        default=FEED_LIMIT,
        metavar="N",
        help=f"at most the N newest items (default {FEED_LIMIT:,}; 0: all of them)",
    )


def site_host(site: str) -> str:
    """A site's host as the news keeps it (IDNA, no port): ``--site bücher.example`` or
    ``--site 127.0.0.1:8000`` (as a change rule names it) found no news before."""
    from recrawl.core.net.urls import canonical, host_of

    return host_of(canonical(site if "://" in site else "http://" + site))


#: Entries a feed holds unless told otherwise: readers keep what they have read, and a
#: feed of every item of a big project weighs tens of megabytes (bench/news_bench.py).
FEED_LIMIT = 1000


@project_command
def run_feed(project: Project, args: argparse.Namespace) -> int:
    from itertools import islice

    from recrawl.core.cli.feed import write_feed  # feedgen and lxml: only for the feed

    where = store.NewsFilter(
        since=parse_iso(args.since) if args.since else None,
        kind=args.kind,
        host=site_host(args.site) if args.site else None,
    )
    items = store.iter_news(where)
    listed = summarised(project.path, islice(items, args.limit) if args.limit > 0 else items)
    write_feed(project, listed, args.out, where)
    return 0


COMMANDS = {
    "news": Command(_news_arguments, run_news),
    "feed": Command(_feed_arguments, run_feed),
}
