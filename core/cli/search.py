"""``recrawl search``: the pages whose text matches a query, and when it did (docs/design.md §19).

A quick command (issue 11): the store and the search core; nothing of the crawl engine
unless the index must first be built.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TextIO

from recrawl.core.cli.output import DIR_HELP, write_json_array
from recrawl.core.cli.parser import Command, Parser
from recrawl.core.clock import parse_iso, to_iso
from recrawl.core.errors import InvalidArgument
from recrawl.core.words import plural

#: The keys of one ``recrawl search --json`` item, in order (docs/design.md §19).
SEARCH_KEYS = ("url", "title", "snippet", "first_seen", "last_seen", "gone_at", "captures")
#: Pages listed unless ``--limit`` says otherwise.
DEFAULT_LIMIT = 50

BOLD, PLAIN = "\x1b[1m", "\x1b[0m"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Find the pages whose text matches a query, best first, each with a snippet, when "
        "the query first matched a capture of it, when it last did and when a later capture "
        'no longer did. QUERY: words (all of them, in any order), "exact phrases", '
        "prefixes (harb*) and -exclusions; letters are matched without case or accents."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "query",
        nargs="*",
        metavar="QUERY",
        help="what to find: the words given are one query, a word that starts with a dash "
        "an exclusion (after -- if it starts with -h: `recrawl search DIR -- -hotel`)",
    )
    p.add_argument(
        "--site",
        metavar="HOST",
        help="only this host's pages (as the Sites panel lists; HOST:PORT or a URL: only "
        "that port's)",
    )
    p.add_argument(
        "--since",
        metavar="ISO",
        help="only captures at or after this ISO 8601 time (a date: its midnight, UTC)",
    )
    p.add_argument(
        "--until", metavar="ISO", help="only captures at or before this ISO 8601 time"
    )
    p.add_argument(
        "--limit",
        type=_positive,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most the N best pages (default {DEFAULT_LIMIT})",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array: "
        + ", ".join(SEARCH_KEYS)
        + " (times ISO 8601 UTC; gone_at null while the latest capture still matches)",
    )
    if isinstance(p, Parser):
        # `recrawl search DIR harbour -wall`: -wall is a word of the query, not an option
        p.loose_words = "query"


def _positive(text: str) -> int:
    from recrawl.core.cli.arguments import positive_int

    return positive_int(text)


def _instant(option: str, text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return parse_iso(text)
    except InvalidArgument as exc:
        raise InvalidArgument(f"{option}: {exc}") from None


def run_search(args: argparse.Namespace) -> int:
    # what the user typed is checked before the project is opened
    since = _instant("--since", args.since)
    until = _instant("--until", args.until)
    if since is not None and until is not None and until < since:
        raise InvalidArgument(
            f"--until {to_iso(until)} is before --since {to_iso(since)}: no capture is both"
        )
    text = " ".join(args.query)
    from recrawl.core.content.search_text import parse_query

    parse_query(text)  # QueryError: nothing to search for, said before the project opens
    return _on_project(args, text, since, until)


def _on_project(
    args: argparse.Namespace, text: str, since: datetime | None, until: datetime | None
) -> int:
    from recrawl.core.archive.search import search
    from recrawl.core.cli.project_command import project_command
    from recrawl.core.project import Project

    @project_command
    def on(project: Project, args: argparse.Namespace) -> int:
        results = search(text, site=args.site, since=since, until=until, limit=args.limit)
        for note in results.notes:
            print(f"recrawl: {note}", file=sys.stderr)
        out = sys.stdout
        if args.json:
            write_json_array(out, (hit_json(hit) for hit in results.hits))
        else:
            write_blocks(out, results.hits, bold=out.isatty())
        return 0

    return on(args)


def hit_json(hit: Any) -> dict[str, Any]:
    return {
        "url": hit.url,
        "title": hit.title,
        "snippet": hit.snippet,
        "first_seen": to_iso(hit.first_seen),
        "last_seen": to_iso(hit.last_seen),
        "gone_at": to_iso(hit.gone_at),
        "captures": hit.captures,
    }


def marked(text: str, marks: Sequence[tuple[int, int]], mark: Callable[[str], str]) -> str:
    """``text`` with each ``(start, end)`` span passed through ``mark``."""
    pieces, at = [], 0
    for start, end in sorted(marks):
        if start < at:
            continue
        pieces += [text[at:start], mark(text[start:end])]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def when(instant: datetime) -> str:
    """``2027-03-01 12:00 UTC``."""
    return instant.strftime("%Y-%m-%d %H:%M UTC")


def seen_line(hit: Any) -> str:
    """``first seen … · last seen … · gone …`` (or ``still there``) ``· 2 captures``."""
    parts = [f"first seen {when(hit.first_seen)}", f"last seen {when(hit.last_seen)}"]
    parts.append(f"gone {when(hit.gone_at)}" if hit.gone_at is not None else "still there")
    count = plural(hit.captures, "capture")
    periods = len(getattr(hit, "periods", ()))
    parts.append(f"{count} in {periods} periods" if periods > 1 else count)
    return " · ".join(parts)


def write_blocks(out: TextIO, hits: Sequence[Any], *, bold: bool) -> None:
    if not hits:
        out.write("no page matches\n")
        return
    mark = (lambda s: f"{BOLD}{s}{PLAIN}") if bold else (lambda s: s)
    for index, hit in enumerate(hits):
        if index:
            out.write("\n")
        out.write(f"{hit.title or '(no title)'}\n{hit.url}\n")
        if hit.snippet:
            out.write(f"  {marked(hit.snippet, hit.marks, mark)}\n")
        out.write(f"  {seen_line(hit)}\n")


COMMANDS = {"search": Command(_arguments, run_search)}
