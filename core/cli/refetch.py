"""``recrawl refetch``: pages due now, whatever their schedule says (docs/design.md §15)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from recrawl.core.cli.output import DIR_HELP, url_lines, warn
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import utcnow
from recrawl.core.errors import InvalidArgument, NotFound
from recrawl.core.policy.refetch import Refetched
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.core.textfile import read_text
from recrawl.core.words import plural

#: Unknown URLs named one by one; the rest are counted.
NAMED_UNKNOWN = 5


def _refetch_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Make pages due now, so the next `recrawl crawl` (or the watcher) fetches them "
        "whatever their schedule says: the URLs given, every page of a site, or all pages. "
        "Pages the filter chain rejects are left alone."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("urls", nargs="*", metavar="URL", help="pages (or embeds) the project knows")
    p.add_argument("--file", type=Path, help="a file with one URL per line (# starts a comment)")
    p.add_argument(
        "--site",
        action="append",
        default=[],
        metavar="HOST",
        help="every page of this host (repeatable)",
    )
    p.add_argument("--all", action="store_true", help="every page of the project")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"made_due", "already_due", "filtered", "unknown": [URLs]}',
    )


@project_command
def run_refetch(project: Project, args: argparse.Namespace) -> int:
    urls = list(args.urls)
    if args.file:
        urls += url_lines(read_text(args.file, "URL list"))
    if sum((bool(urls), bool(args.site), args.all)) != 1:
        raise InvalidArgument("give URLs (or --file), --site HOST or --all: exactly one of them")
    done = Services(project).schedule.refetch(
        utcnow(), urls=urls, hosts=args.site, everything=args.all
    )
    if args.json:
        print(json.dumps(_to_json(done)))
    else:
        for line in _lines(done, len(urls)):
            print(line)
    for url in done.unknown[:NAMED_UNKNOWN]:
        warn(f"{url} is not known to the project (`recrawl inject` adds it)")
    if len(done.unknown) > NAMED_UNKNOWN:
        warn(f"and {len(done.unknown) - NAMED_UNKNOWN} more URLs not known to the project")
    if urls and len(done.unknown) == len(urls):
        raise NotFound("none of the URLs given is known to the project: nothing made due")
    return 0


def _to_json(done: Refetched) -> dict[str, object]:
    return {
        "made_due": done.made_due,
        "already_due": done.already_due,
        "filtered": done.filtered,
        "unknown": list(done.unknown),
    }


def _lines(done: Refetched, asked: int) -> list[str]:
    """``3 pages made due now (1 more was due already); the next crawl fetches them``."""
    fetches = "the next `recrawl crawl` (or the watcher) fetches"
    if done.made_due:
        line = f"{plural(done.made_due, 'page')} made due now"
        if done.already_due:
            was = "was" if done.already_due == 1 else "were"
            line += f" ({done.already_due} more {was} due already)"
        lines = [f"{line}; {fetches} {'it' if done.due == 1 else 'them'}"]
    elif done.already_due:
        one = done.already_due == 1
        lines = [
            f"{plural(done.already_due, 'page')} {'was' if one else 'were'} due already; "
            f"{fetches} {'it' if one else 'them'}"
        ]
    elif asked and len(done.unknown) == asked:
        lines = []  # the warnings and the error say it
    else:
        lines = ["no page made due"]
    if done.filtered:
        lines.append(
            f"{plural(done.filtered, 'page')} left alone: the filter chain rejects "
            f"{'it' if done.filtered == 1 else 'them'} (`recrawl filter check` says why)"
        )
    return lines


COMMANDS = {"refetch": Command(_refetch_arguments, run_refetch)}
