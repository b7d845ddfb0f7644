"""``recrawl news`` and ``recrawl feed``: what happened to pages, newest first (DESIGN.md §10).

Quick commands (issue 11): ``news`` reads the store alone; ``feed`` loads feedgen (and
with it lxml) only when it runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from recrawl.core import store
from recrawl.core.cli.output import DIR_HELP, write_json_array
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import parse_iso, to_iso
from recrawl.core.project import Project
from recrawl.core.store.models import NewsKind

#: The keys of one ``recrawl news --json`` item, in order (DESIGN.md §10).
NEWS_KEYS = ("at", "kind", "url", "host", "title", "first_seen", "published_at")


def _since(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("--since", metavar="ISO", help="only news at or after this ISO 8601 time")


def _news_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List the news, newest first: pages fetched for the first time (new), changed, "
        "gone, and back after being gone."
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
        help="print a JSON array: " + ", ".join(NEWS_KEYS) + " (times ISO 8601 UTC)",
    )


def news_json(item: store.NewsItem) -> dict[str, Any]:
    return {
        "at": to_iso(item.at),
        "kind": item.kind,
        "url": item.url,
        "host": item.host,
        "title": item.title,
        "first_seen": to_iso(item.first_seen),
        "published_at": to_iso(item.published_at),
    }


@project_command
def run_news(project: Project, args: argparse.Namespace) -> int:
    where = store.NewsFilter(since=parse_iso(args.since) if args.since else None, kind=args.kind)
    items = store.iter_news(where)
    out = sys.stdout
    if args.json:
        write_json_array(out, (news_json(item) for item in items))
        return 0
    for item in items:
        title = f"  {item.title}" if item.title else ""
        out.write(f"{to_iso(item.at)}  {item.kind:<7}  {item.url}{title}\n")
    return 0


def _feed_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Write the news as an Atom 1.0 feed (one entry per item, newest first) for a feed reader."
    )
    _since(p)
    p.add_argument("--out", metavar="FILE", help="write the feed to FILE instead of stdout")
    p.add_argument(
        "--limit",
        type=int,
        default=FEED_LIMIT,
        metavar="N",
        help=f"at most the N newest items (default {FEED_LIMIT:,}; 0: all of them)",
    )


#: Entries a feed holds unless told otherwise: readers keep what they have read, and a
#: feed of every item of a big project weighs tens of megabytes (bench/news_bench.py).
FEED_LIMIT = 1000


@project_command
def run_feed(project: Project, args: argparse.Namespace) -> int:
    from itertools import islice

    from recrawl.core.cli.feed import write_feed  # feedgen and lxml: only for the feed

    where = store.NewsFilter(since=parse_iso(args.since) if args.since else None)
    items = store.iter_news(where)
    write_feed(project, islice(items, args.limit) if args.limit > 0 else items, args.out)
    return 0


COMMANDS = {
    "news": Command(_news_arguments, run_news),
    "feed": Command(_feed_arguments, run_feed),
}
