"""``recrawl filter ...``: check, edit, import and export the URL filter chain (docs/design.md §6, §8)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, overload

from recrawl.core import store
from recrawl.core.cli.filter_check import run_check
from recrawl.core.cli.output import print_rows
from recrawl.core.cli.parser import Command, Parser
from recrawl.core.cli.project_command import project_command
from recrawl.core.filters import Chain, parse_chain
from recrawl.core.filters.lint import lint
from recrawl.core.filters.nutch import (
    DEFAULT_ORDER,
    export_nutch,
    import_nutch,
    left_out,
    parse_order,
)
from recrawl.core.project import Project
from recrawl.core.textfile import read_text

if TYPE_CHECKING:  # the policy stack loads only for the actions that need it
    from recrawl.core.policy.filter_reach import Reach

_N = TypeVar("_N")

#: The project setting that remembers which chains' lint was shown (newest first).
LINT_SHOWN = "filter_lint_shown"
LINT_MEMORY = 20


class IntermixedParser(Parser):
    """A parser whose options may come anywhere among its positionals (``DIR --json URL``).

    argparse hands the words after the command to the command's parser through
    ``parse_known_args``; this one parses them as ``parse_known_intermixed_args`` does
    (which calls ``parse_known_args`` itself, hence the flag).
    """

    _intermixing = False

    @overload
    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: None = None
    ) -> tuple[argparse.Namespace, list[str]]: ...
    @overload
    def parse_known_args(
        self, args: Iterable[str] | None, namespace: _N
    ) -> tuple[_N, list[str]]: ...
    @overload
    def parse_known_args(self, *, namespace: _N) -> tuple[_N, list[str]]: ...

    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: object = None
    ) -> tuple[object, list[str]]:
        if self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return super().parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def _filter_arguments(p: argparse.ArgumentParser) -> None:
    fsub = p.add_subparsers(dest="filter_command", metavar="ACTION", parser_class=IntermixedParser)
    fsub.required = True
    q = fsub.add_parser(
        "check",
        help="run URLs through a chain",
        description=(
            "filter check (DIR | --chain FILE) (URL... | --file F|-) [--embeds] "
            "[--json | --explain]: the verdict for each URL, with the filter and rule line "
            "that decided it. Any URL with a scheme is judged (mailto:, ftp:, file: too); "
            "options go anywhere. --embeds: as something a page embeds (an image, a "
            "stylesheet...), which the chain's [[embed]] rules decide, not its filters."
        ),
    )
    q.add_argument(
        "args",
        nargs="*",
        metavar="DIR URL",
        help="the project folder (unless --chain is given), then URLs to check",
    )
    q.add_argument("--chain", type=Path, metavar="FILE", help="a chain file instead of a project")
    q.add_argument(
        "--embeds",
        action="store_true",
        help="judge the URLs as embeds, by the chain's embed rules (none: all accepted)",
    )
    q.add_argument(
        "--file",
        metavar="F",
        help="a file with one URL per line (# comments and blank lines skipped); - reads stdin",
    )
    shape = q.add_mutually_exclusive_group()
    shape.add_argument(
        "--json",
        action="store_true",
        help='one JSON object per line: {"input", "url", "verdict", "shortcircuit", '
        '"filter", "line"}, or {"input", "error"}',
    )
    shape.add_argument(
        "--explain", action="store_true", help="show every filter's and rule's part in each verdict"
    )
    q = fsub.add_parser("get", help="print the project's chain (TOML)")
    q.add_argument("dir", help="the project folder")
    q = fsub.add_parser(
        "set",
        help="replace the project's chain with a TOML file",
        description=(
            "filter set DIR FILE: make FILE the project's chain and apply it to the known "
            "pages: those it rejects become 'filtered' (kept, never fetched; `urls --status "
            "filtered` lists them), filtered ones it accepts come back, due now."
        ),
    )
    q.add_argument("dir", help="the project folder")
    q.add_argument("file", type=Path, help="the chain (TOML); nothing changes unless it all loads")
    q = fsub.add_parser(
        "import",
        help="make the chain from Nutch's URL filter files",
        description=(
            "filter import DIR NUTCH_CONF_DIR [--order KINDS]: make the project's chain of "
            "Nutch's *-urlfilter.txt files and apply it to the known pages, as `filter set`."
        ),
    )
    q.add_argument("dir", help="the project folder")
    q.add_argument(
        "nutch_conf_dir",
        type=Path,
        metavar="NUTCH_CONF_DIR",
        help="a Nutch conf folder (regex-urlfilter.txt, suffix-urlfilter.txt, ...)",
    )
    q.add_argument(
        "--order",
        metavar="KINDS",
        help="the kinds to import, in this order, e.g. suffix,regex,prefix,automaton "
        "(files of other kinds are left out, and named; default: all, in the order "
        + ",".join(DEFAULT_ORDER)
        + ")",
    )
    q = fsub.add_parser("export", help="write the chain as Nutch's URL filter files")
    q.add_argument("dir", help="the project folder")
    q.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="the folder to write them to")
    q = fsub.add_parser(
        "preview",
        help="what a new chain would change on the known URLs",
        description=(
            "filter preview DIR FILE [--json]: what making FILE the chain would change, "
            "over the project's known URLs (its pages and the links turned away). Nothing "
            "is changed."
        ),
    )
    q.add_argument("dir", help="the project folder")
    q.add_argument("file", type=Path, help="the edited chain (TOML)")
    q.add_argument(
        "--json",
        action="store_true",
        help='print {"newly_rejected", "newly_accepted": URLs whose verdict changes, '
        '"examples": {"newly_rejected": [URL...], "newly_accepted": [URL...]}, '
        '"newly_filtered": known pages that would be filtered (no longer fetched), '
        '"coming_back": filtered pages that would come back (due now)}',
    )
    q = fsub.add_parser("stats", help="hits per rule over the project's URLs")
    q.add_argument("dir", help="the project folder")
    q.add_argument("--json", action="store_true", help="print the rows as a JSON array")


def run_filter(args: argparse.Namespace) -> int:
    if args.filter_command == "check":
        return run_check(args)  # --chain FILE needs no project
    return _action(args)


def _show_lint(chain: Chain, text: str, always: bool = False) -> None:
    """Print the chain's lint warnings: always, or once per chain (and warnings) text.

    What was shown is remembered in the project (a hash per chain), so a warning the
    user has seen does not come back on every command; a changed chain is linted anew.
    """
    warnings = [str(w) for w in lint(chain)]
    if not warnings:
        return
    key = hashlib.sha256("\0".join([text, *warnings]).encode("utf-8")).hexdigest()[:32]
    shown: list[str] = store.get_setting(LINT_SHOWN) or []
    if key in shown and not always:
        return
    for warning in warnings:
        print(f"recrawl: warning: {warning}", file=sys.stderr)
    store.set_setting(LINT_SHOWN, [key, *(k for k in shown if k != key)][:LINT_MEMORY])


def _print_reach(reach: Reach) -> None:
    """What applying the chain did to the known pages, when it did something."""
    if reach.filtered or reach.back:
        print(f"applied to the known pages: {reach.describe()}")


@project_command
def _action(project: Project, args: argparse.Namespace) -> int:
    """get, set, import, export, preview, stats: on the project's chain."""
    from recrawl.core.policy import choices  # the policy stack: only these actions need it
    from recrawl.core.policy.filter_impact import known_urls, preview, rule_hits
    from recrawl.core.services import Services

    action = args.filter_command
    if action == "get":
        text = choices.chain_text()
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        _show_lint(parse_chain(text), text)
        return 0
    if action == "set":
        text = read_text(args.file, "chain file")
        applied = Services(project).chain.apply(text)
        print(f"chain set: {len(applied.chain.filters)} filters")
        _print_reach(applied.reach)
        _show_lint(applied.chain, text, always=True)
        return 0
    if action == "import":
        embeds = choices.project_chain().embed_rules.filters
        order = parse_order(args.order)
        text = import_nutch(args.nutch_conf_dir, order, embeds)
        applied = Services(project).chain.apply(text)
        chain = applied.chain
        names = ", ".join(f"{f.name} ({f.kind})" for f in chain.filters)
        print(f"imported {len(chain.filters)} filters: {names}")
        if skipped := left_out(args.nutch_conf_dir, order):
            files = ", ".join(f"{path.name} ({kind})" for kind, path in skipped)
            print(f"left out, as --order does not name their kinds: {files}")
        _print_reach(applied.reach)
        _show_lint(chain, text, always=True)
        return 0
    if action == "export":
        for item in export_nutch(choices.project_chain(), args.out_dir):
            if item.path is None:
                print(f"filter {item.index} ({item.name}) is disabled: not written")
            else:
                print(f"filter {item.index} ({item.name}) -> {item.path}")
        return 0
    if action == "preview":
        text = read_text(args.file, "chain file")
        new = parse_chain(text)
        result = preview(choices.project_chain(), new, known_urls())
        if args.json:
            print(json.dumps(result))
        else:
            print(
                f"{result['newly_rejected']} newly rejected, "
                f"{result['newly_accepted']} newly accepted; known pages: "
                f"{result['newly_filtered']} would be filtered (no longer fetched), "
                f"{result['coming_back']} would come back (due now)"
            )
            for key, urls in result["examples"].items():
                for url in urls:
                    print(f"  {key.replace('_', ' ')}: {url}")
        _show_lint(new, text)
        return 0
    # stats
    rows = rule_hits(choices.project_chain(), known_urls())
    print_rows(
        rows,
        args.json,
        lambda row: (
            f"filter {row['filter']} ({row['name']}), "
            + (f"line {row['line']}" if row["line"] is not None else "no rule matched")
            + f": {row['hits']} hits"
        ),
    )
    return 0


COMMANDS = {"filter": Command(_filter_arguments, run_filter)}
