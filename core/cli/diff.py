"""``recrawl diff``: what changed in a page's text between two captures (docs/design.md §10).

A quick command: the store, the WARC reader and the main-text extractor, nothing of
the crawl engine.
"""

from __future__ import annotations

import argparse
import json
import sys

from recrawl.core.cli.output import DIR_HELP, warn
from recrawl.core.cli.pages import find_page
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import parse_iso, to_iso
from recrawl.core.project import Project


def _diff_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "What changed in a page's text between two captures: its main text (navigation, "
        "footers and ads left out; all visible text when no main text is found) a "
        "paragraph per block of the page (paragraph, list item, heading, table cell, code "
        "block; permalink marks such as Sphinx's ¶ left out), or a text file's lines. By "
        "default the page's latest change: "
        "the latest fetch that found it changed and the capture before it (without one: "
        "the last two captures whose payloads differ)."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("url", metavar="URL", help="the page (as listed by `recrawl urls`)")
    p.add_argument(
        "--from",
        dest="since",
        metavar="ISO",
        help="compare from the capture at or before this time (ISO 8601, UTC without an "
        "offset); without --to, up to the latest capture",
    )
    p.add_argument(
        "--to",
        dest="until",
        metavar="ISO",
        help="compare up to the capture at or before this time; without --from, from the "
        "capture before that one",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"url", "from", "to", "added", "removed", "unified"}: the capture '
        "dates (ISO 8601 UTC), the lines added and removed, a unified diff",
    )


@project_command
def run_diff(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.archive.page_diff import between, page_diff  # the WARC reader
    from recrawl.core.policy.change_rules import text_rule_for

    since = parse_iso(args.since) if args.since else None
    until = parse_iso(args.until) if args.until else None
    page = find_page(args.url)
    old, new = between(project.path, page.url, since, until)
    result = page_diff(project.path, page.url, old, new, text_rule_for(page.url))
    start, end = to_iso(old.date), to_iso(new.date)
    unified = result.diff.unified(f"{page.url} {start}", f"{page.url} {end}")
    if args.json:
        doc = {
            "url": page.url,
            "from": start,
            "to": end,
            "added": result.diff.added,
            "removed": result.diff.removed,
            "unified": unified,
        }
        print(json.dumps(doc, ensure_ascii=False))
    else:
        out = sys.stdout
        out.write(f"{page.url}: {result.diff.counts} between {start} and {end}\n")
        if unified:
            out.write(unified + "\n")
    for side in (result.old, result.new):
        if side.note:
            warn(f"capture of {to_iso(side.date)}: {side.note}")
    if result.diff.cut:
        warn("a text is longer than a diff compares: only its start was compared")
    return 0


COMMANDS = {"diff": Command(_diff_arguments, run_diff)}
