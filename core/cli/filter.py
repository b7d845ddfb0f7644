"""``recrawl filter ...``: check, edit, import and export the URL filter chain (DESIGN.md §6, §8)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from recrawl.core.cli.output import print_rows, url_lines
from recrawl.core.cli.parser import Command, Parser
from recrawl.core.cli.project_command import project_command
from recrawl.core.errors import InvalidArgument, RecrawlError
from recrawl.core.filters import Chain, parse_chain
from recrawl.core.filters.lint import lint
from recrawl.core.filters.nutch import export_nutch, import_nutch, parse_order
from recrawl.core.net.urls import canonical
from recrawl.core.policy import choices
from recrawl.core.policy.filter_impact import known_urls, preview, rule_hits
from recrawl.core.project import Project
from recrawl.core.textfile import read_text


def _filter_arguments(p: argparse.ArgumentParser) -> None:
    fsub = p.add_subparsers(dest="filter_command", metavar="ACTION", parser_class=Parser)
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


def run_filter(args: argparse.Namespace) -> int:
    if args.filter_command == "check":
        return _check(args)  # --chain FILE needs no project
    return _action(args)


def _print_lint(chain: Chain) -> None:
    for warning in lint(chain):
        print(f"recrawl: warning: {warning}", file=sys.stderr)


def _check(args: argparse.Namespace) -> int:
    """Verdicts for URLs, from a project's chain or a chain file (DESIGN.md §6, §8)."""
    positional = list(args.args)
    project = None
    if args.chain is not None:
        chain = parse_chain(read_text(args.chain, "chain file"))
    else:
        if not positional:
            raise InvalidArgument("filter check needs a project folder or --chain FILE")
        project = Project.open(positional.pop(0))
    try:
        if project is not None:
            chain = choices.project_chain()
        urls = positional + (url_lines(read_text(args.file, "URL file")) if args.file else [])
        if not urls:
            raise InvalidArgument("no URLs given (pass URLs or --file)")
        failed = False
        for raw in urls:
            try:
                url = canonical(raw)
            except RecrawlError as exc:
                print(f"recrawl: error: {exc}", file=sys.stderr)
                failed = True
                continue
            if args.explain:
                verdict, steps = chain.explain(url)
                print(f"{url}: {verdict.describe()}")
                for step in steps:
                    text = f"  filter {step.index} ({step.name}, {step.kind}): {step.status}"
                    if step.status == "ran":
                        text += f", {step.outcome}"
                        if step.line is not None:
                            text += f" by line {step.line}: {step.rule}"
                        else:
                            text += " (no rule matched)"
                    elif step.status == "skipped":
                        text += " (the chain had decided)"
                    print(text)
            else:
                verdict = chain.check(url)
                if args.json:
                    print(json.dumps(verdict.to_json(url)))
                else:
                    print(f"{verdict.word:<6}  {url}  {verdict.describe()}")
        return 1 if failed else 0
    finally:
        if project is not None:
            project.close()


@project_command
def _action(project: Project, args: argparse.Namespace) -> int:
    """get, set, import, export, preview, stats: on the project's chain."""
    action = args.filter_command
    if action == "get":
        text = choices.chain_text()
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        _print_lint(parse_chain(text))
        return 0
    if action == "set":
        chain = choices.set_chain(read_text(args.file, "chain file"))
        print(f"chain set: {len(chain.filters)} filters")
        _print_lint(chain)
        return 0
    if action == "import":
        text = import_nutch(args.nutch_conf_dir, parse_order(args.order))
        chain = choices.set_chain(text)
        names = ", ".join(f"{f.name} ({f.kind})" for f in chain.filters)
        print(f"imported {len(chain.filters)} filters: {names}")
        _print_lint(chain)
        return 0
    if action == "export":
        for item in export_nutch(choices.project_chain(), args.out_dir):
            if item.path is None:
                print(f"filter {item.index} ({item.name}) is disabled: not written")
            else:
                print(f"filter {item.index} ({item.name}) -> {item.path}")
        return 0
    if action == "preview":
        new = parse_chain(read_text(args.file, "chain file"))
        result = preview(choices.project_chain(), new, known_urls())
        if args.json:
            print(json.dumps(result))
        else:
            print(
                f"{result['newly_rejected']} newly rejected, "
                f"{result['newly_accepted']} newly accepted"
            )
            for key, urls in result["examples"].items():
                for url in urls:
                    print(f"  {key.replace('_', ' ')}: {url}")
        _print_lint(new)
        return 0
    # stats
    rows = rule_hits(choices.project_chain(), known_urls())
    print_rows(
        rows,
        args.json,
        lambda row: (
            f"filter {row['filter']} ({row['name']}), "
            f"line {row['line'] if row['line'] is not None else '-'}: {row['hits']} hits"
        ),
    )
    return 0


COMMANDS = {"filter": Command(_filter_arguments, run_filter)}
