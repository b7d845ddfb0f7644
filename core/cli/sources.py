"""``recrawl sources``: the sitemaps and feeds a project reads (docs/design.md §11).

A quick command (issue 11): it reads the store alone.
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
from recrawl.core.words import plural

#: The keys of one ``recrawl sources --json`` item, in order (a contract: keys are added,
#: never renamed).
SOURCE_KEYS = (
    "url",
    "kind",
    "host",
    "found_via",
    "found_from",
    "first_seen",
    "last_fetched",
    "next_fetch",
    "fetch_interval",
    "http_status",
    "entries",
    "pages",
    "error",
)


def _sources_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List the sitemaps and feeds the project reads for new pages: where each was "
        "found, what its last reading listed, when it is read next, what went wrong."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array: " + ", ".join(SOURCE_KEYS) + " (times ISO 8601 UTC; "
        "fetch_interval in seconds; entries: what its last reading listed; pages: the "
        "pages first found in it)",
    )


def source_json(info: store.SourceInfo) -> dict[str, Any]:
    return {
        "url": info.url,
        "kind": info.kind,
        "host": info.host,
        "found_via": info.found_via,
        "found_from": info.found_from,
        "first_seen": to_iso(info.first_seen),
        "last_fetched": to_iso(info.last_fetched),
        "next_fetch": to_iso(info.next_fetch),
        "fetch_interval": info.fetch_interval,
        "http_status": info.http_status,
        "entries": info.entries,
        "pages": info.pages,
        "error": info.error,
    }


def _line(row: dict[str, Any]) -> str:
    read = f"read {row['last_fetched']}" if row["last_fetched"] else "never read"
    status = f" (HTTP {row['http_status']})" if row["http_status"] else ""
    text = (
        f"{row['kind']:<7} {row['url']}  {read}{status}: {row['entries']} listed, "
        f"{plural(row['pages'], 'page')} found; next {row['next_fetch']} "
        f"(every {human_duration(row['fetch_interval'])})"
    )
    if row["error"]:
        text += f"; {row['error']}"
    return text


@project_command
def run_sources(project: Project, args: argparse.Namespace) -> int:
    rows = [source_json(info) for info in store.list_sources()]
    if not rows and not args.json:
        print("no sitemaps or feeds yet: a crawl finds them (or inject --feed/--sitemap)")
        return 0
    print_rows(rows, args.json, _line)
    return 0


COMMANDS = {"sources": Command(_sources_arguments, run_sources)}
