"""``recrawl search``: the pages whose text matches a query, and when it did (docs/design.md §19).

A quick command (issue 11): the store and the search core; what builds the index (the
WARC reader, the text extractor) is loaded only when the index is not complete.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from recrawl.core.cli.arguments import positive_int
from recrawl.core.cli.news import site_host
from recrawl.core.cli.output import DIR_HELP, write_json_array
from recrawl.core.cli.parser import Command, Parser
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import parse_iso, to_iso
from recrawl.core.errors import InvalidArgument
from recrawl.core.project import Project
from recrawl.core.words import plural

if TYPE_CHECKING:
    from recrawl.core.archive.search import SearchHit

#: The keys of one ``recrawl search --json`` item, in order (docs/design.md §19).
SEARCH_KEYS = ("url", "title", "snippet", "first_seen", "last_seen", "gone_at", "captures")
#: Pages listed unless ``--limit`` says otherwise.
DEFAULT_LIMIT = 50

#: How a match is marked on a terminal: bold, then back to normal.
BOLD, NORMAL = "\x1b[1m", "\x1b[22m"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Find the pages whose text matches a query, best first, each with a snippet, the "
        "first and the last capture that match and the first later one that no longer "
        'does. QUERY: words (every one must be there), "exact phrases", prefixes (harb*) '
        "and -exclusions; letters are compared without case or accents (cafe finds café)."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "query",
        nargs="*",
        metavar="QUERY",
        help="what to find: the words given are one query (quoted or not), a word that "
        "starts with a dash an exclusion, not an option (-h alone is help)",
    )
    p.add_argument(
        "--site",
        metavar="HOST",
        help="only this host's pages (as the Sites panel lists; a port or a URL: its host's)",
    )
    p.add_argument(
        "--since",
        metavar="ISO",
        help="only captures at or after this ISO 8601 time count (a date: its midnight UTC)",
    )
    p.add_argument(
        "--until", metavar="ISO", help="only captures at or before this ISO 8601 time count"
    )
    p.add_argument(
        "--limit",
        type=positive_int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most the N best pages (default {DEFAULT_LIMIT})",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array: "
        + ", ".join(SEARCH_KEYS)
        + " (times ISO 8601 UTC; gone_at null while the latest capture still matches; "
        "captures: how many match)",
    )
    if isinstance(p, Parser):
        # `recrawl search DIR harbour -wall`: -wall is a word of the query, not an option
        p.loose_words = "query"


def _instant(option: str, text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return parse_iso(text)
    except InvalidArgument as exc:
        raise InvalidArgument(f"{option}: {exc}") from None


def run_search(args: argparse.Namespace) -> int:
    # what the user typed is checked before the project is opened: one line, at once
    since = _instant("--since", args.since)
    until = _instant("--until", args.until)
    if since is not None and until is not None and until < since:
        raise InvalidArgument(
            f"--until {to_iso(until)} is before --since {to_iso(since)}: no capture is in both"
        )
    from recrawl.core.content.search_text import parse_query

    args.query_text = " ".join(args.query)
    parse_query(args.query_text)  # QueryError: nothing to search for
    args.since, args.until = since, until
    return _search(args)


@project_command
def _search(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.archive.search import search

    stopped = _complete_index(project)
    if stopped is not None:
        return stopped
    site = site_host(args.site) if args.site else None
    results = search(
        args.query_text, site=site, since=args.since, until=args.until, limit=args.limit
    )
    for note in results.notes:
        print(f"recrawl: {note}", file=sys.stderr)
    out = sys.stdout
    if args.json:
        write_json_array(out, (hit_json(hit) for hit in results.hits))
    else:
        write_blocks(out, results.hits, bold=out.isatty())
    return 0


def _complete_index(project: Project) -> int | None:
    """Build what the index lacks, with its progress on stderr; Ctrl-C stops the build
    (what is built stays, and the next search goes on from there): its exit status then."""
    from recrawl.core.store.search import search_state

    if search_state().complete:
        return None
    # TODO(s19-pipeline): the pipeline's background build (ensure_search_index) goes
    # here, run under StopSignals with a ProgressLine; until it lands, search says the
    # index is not complete (core/archive/search.py's note) and searches what there is.
    return None


def hit_json(hit: SearchHit) -> dict[str, Any]:
    return {
        "url": hit.url,
        "title": hit.title,
        "snippet": hit.snippet,
        "first_seen": to_iso(hit.first_seen),
        "last_seen": to_iso(hit.last_seen),
        "gone_at": to_iso(hit.gone_at),
        "captures": hit.captures,
    }


def marked(text: str, marks: Iterable[tuple[int, int]], mark: Callable[[str], str]) -> str:
    """``text`` with each ``(start, end)`` span passed through ``mark``."""
    pieces: list[str] = []
    at = 0
    for start, end in sorted(marks):
        if start < at:
            continue  # overlapping spans: the first one is marked
        pieces += [text[at:start], mark(text[start:end])]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def printable(text: str) -> str:
    """``text`` with its control characters shown as U+FFFD, one for one (the marks'
    places stay): a page's title must not drive the terminal."""
    return "".join("\ufffd" if unicodedata.category(c) == "Cc" else c for c in text)


def when(instant: datetime) -> str:
    """``2027-03-01 12:00 UTC``."""
    return instant.strftime("%Y-%m-%d %H:%M UTC")


def seen_line(hit: SearchHit) -> str:
    """``first seen … · last seen … · gone …`` (or ``still there``) ``· 2 captures``."""
    parts = [f"first seen {when(hit.first_seen)}", f"last seen {when(hit.last_seen)}"]
    parts.append(f"gone {when(hit.gone_at)}" if hit.gone_at is not None else "still there")
    count = plural(hit.captures, "capture")
    if len(hit.periods) > 1:  # gone and back: the runs are the app's timeline
        count += f" in {len(hit.periods)} periods"
    parts.append(count)
    return " · ".join(parts)


def write_blocks(out: TextIO, hits: Sequence[SearchHit], *, bold: bool) -> None:
    """A block a page, best first: title, URL, snippet, when it matched."""
    if not hits:
        out.write("no page matches\n")
        return

    def mark(text: str) -> str:
        return f"{BOLD}{text}{NORMAL}" if bold else text

    for index, hit in enumerate(hits):
        if index:
            out.write("\n")
        out.write(f"{printable(hit.title or '(no title)')}\n{hit.url}\n")
        if hit.snippet:
            out.write(f"  {marked(printable(hit.snippet), hit.marks, mark)}\n")
        out.write(f"  {seen_line(hit)}\n")


COMMANDS = {"search": Command(_arguments, run_search)}
