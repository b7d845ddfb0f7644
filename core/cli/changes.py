"""``recrawl changes``: what counts as a change, per URL prefix (docs/design.md §17).

Listing is a quick command (the store alone); setting, unsetting and previewing load
the engine, late, as ``signature --set`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import TYPE_CHECKING, Any

from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.change_rules import ChangeRule, project_rules
from recrawl.core.project import Project

if TYPE_CHECKING:  # the engine is imported where it runs
    from recrawl.core.engine.change_preview import Preview
    from recrawl.core.engine.re_signing import ReSigningProgress


def _changes_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List the change rules, or set, unset or preview one. A rule on a URL prefix (a "
        "site, example.org, or a section, example.org/news/) says what counts as a change "
        "of its pages: elements removed (--remove CSS) or the only ones read (--only CSS) "
        "before the signature, text patterns ignored (--ignore REGEX, RE2 syntax, else a "
        "backtracking engine with a time limit), only added text counted (--added-only). "
        "The longest matching prefix applies, to signatures and diffs alike. Setting or "
        "unsetting a rule re-signs its pages from their archived captures so the next "
        "fetch compares like with like (Ctrl-C stops it between batches; the same command "
        "again resumes). --preview re-judges the pages' past fetches under the rule and "
        "saves nothing."
    )
    p.add_argument("dir", help=DIR_HELP)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--set", metavar="PREFIX", help="set the rule on PREFIX (replacing one)")
    what.add_argument("--unset", metavar="PREFIX", help="drop the rule on PREFIX")
    what.add_argument(
        "--preview",
        metavar="PREFIX",
        help="what the rule on PREFIX would have judged otherwise in its pages' history "
        "(nothing saved)",
    )
    rule = p.add_argument_group("the rule (with --set or --preview)")
    rule.add_argument(
        "--remove",
        action="append",
        default=[],
        metavar="CSS",
        help="drop the elements this selects (e.g. .ticker); repeatable",
    )
    rule.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="CSS",
        help="read only the elements this selects (e.g. article); repeatable",
    )
    rule.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="REGEX",
        help="take this pattern out of each line of text; repeatable",
    )
    rule.add_argument(
        "--added-only",
        action="store_true",
        help="a change counts only when text was added (removed lines are no change)",
    )
    rule.add_argument(
        "--no-notify",
        action="store_true",
        help="send these pages' news to no notification service",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print JSON: the rules as a list of {"prefix", "remove", "only", "ignore", '
        '"added_only", "notify"}; --set/--unset: {"rule" or "unset", "recompute": {"pages", '
        '"recomputed", "unreadable", "skipped", "stopped"}}; --preview: {"prefix", "pages", '
        '"judged", "to_unchanged", "to_changed", "unreadable", "stopped", "examples": '
        '[{"url", "at", "before", "was", "would_be"}]}',
    )


def rule_line(rule: ChangeRule) -> str:
    """``example.org/news/: remove .ticker; ignore 'Updated \\d+'; added only``."""
    parts = [f"remove {s}" for s in rule.remove] + [f"only {s}" for s in rule.only]
    parts += [f"ignore {p!r}" for p in rule.ignore]
    if rule.added_only:
        parts.append("added only")
    if not rule.notify:
        parts.append("no notifications")
    return f"{rule.prefix}: {'; '.join(parts) or 'as without a rule'}"


@project_command
def run_changes(project: Project, args: argparse.Namespace) -> int:
    given = args.remove or args.only or args.ignore or args.added_only or args.no_notify
    if given and not (args.set or args.preview):
        raise InvalidArgument(
            "--remove, --only, --ignore, --added-only and --no-notify go "
            "with --set PREFIX or --preview PREFIX"
        )
    if args.set or args.preview:
        rule = ChangeRule(
            prefix=args.set or args.preview,
            remove=tuple(args.remove),
            only=tuple(args.only),
            ignore=tuple(args.ignore),
            added_only=args.added_only,
            notify=not args.no_notify,
        )
        rule.check()  # one line naming the rule, before anything loads or is saved
        return _preview(project, rule, args.json) if args.preview else _set(project, rule, args)
    if args.unset:
        return _set(project, None, args)
    rules = project_rules().rules
    if args.json:
        print(json.dumps([rule.to_json() for rule in rules], indent=1))
    elif not rules:
        print("recrawl: no change rules (--set PREFIX adds one)", file=sys.stderr)
    for rule in rules if not args.json else ():
        print(rule_line(rule))
    return 0


def _set(project: Project, rule: ChangeRule | None, args: argparse.Namespace) -> int:
    from recrawl.core.cli.re_signing import ProgressLine
    from recrawl.core.interrupts import StopSignals
    from recrawl.core.services import Services

    stop = threading.Event()
    line = ProgressLine(sys.stderr)
    again = "--set" if rule is not None else "--unset"
    signals = StopSignals(stop.set, f"stopping after the batch in hand; {again} again resumes")
    changes = Services(project).changes
    try:
        with signals:
            if rule is not None:
                state = changes.set(rule, progress=line, stop=stop)
            else:
                state = changes.unset(args.unset, progress=line, stop=stop)
    finally:
        line.end()
    if args.json:
        done: dict[str, Any] = {"rule": rule.to_json()} if rule else {"unset": args.unset}
        print(json.dumps({**done, "recompute": _recompute(state)}))
    else:
        print(rule_line(rule) if rule is not None else f"{args.unset}: no rule")
        print(f"recrawl: {state.summary('run it again')}", file=sys.stderr)
    return signals.exit_status if state.stopped else 0


def _recompute(state: ReSigningProgress) -> dict[str, Any]:
    return {
        "pages": state.total,
        "recomputed": state.recomputed,
        "unreadable": state.unreadable,
        "skipped": state.skipped,
        "stopped": state.stopped,
    }


def _preview(project: Project, rule: ChangeRule, as_json: bool) -> int:
    from recrawl.core.cli.re_signing import ProgressLine
    from recrawl.core.interrupts import StopSignals
    from recrawl.core.services import Services

    stop = threading.Event()
    line = ProgressLine(sys.stderr)
    signals = StopSignals(stop.set, "stopping after the pages in hand")
    try:
        with signals:
            preview = Services(project).changes.preview(
                rule,
                progress=lambda p: line.show("previewing the rule", p.done, p.captures, "capture"),
                stop=stop,
            )
    finally:
        line.end()
    if as_json:
        print(json.dumps(preview_json(preview)))
    else:
        _print_preview(preview)
    return signals.exit_status if preview.stopped else 0


def preview_json(preview: Preview) -> dict[str, Any]:
    from recrawl.core.clock import to_iso

    return {
        "prefix": preview.prefix,
        "pages": preview.pages,
        "judged": preview.judged,
        "to_unchanged": preview.to_unchanged,
        "to_changed": preview.to_changed,
        "unreadable": preview.unreadable,
        "stopped": preview.stopped,
        "examples": [
            {
                "url": e.url,
                "at": to_iso(e.at),
                "before": to_iso(e.before),
                "was": e.was,
                "would_be": e.would_be,
            }
            for e in preview.examples
        ],
    }


def _print_preview(preview: Preview) -> None:
    from recrawl.core.clock import to_iso
    from recrawl.core.words import plural

    print(
        f"{preview.prefix}: {plural(preview.pages, 'page')}, "
        f"{plural(preview.judged, 'past fetch', 'past fetches')} judged; "
        f"{preview.to_unchanged:,} changed would have been unchanged, "
        f"{preview.to_changed:,} unchanged would have been changed"
    )
    for e in preview.examples:
        print(f"  {to_iso(e.at)} {e.url}: {e.was} -> {e.would_be} (from {to_iso(e.before)})")
    if preview.unreadable:
        print(
            f"recrawl: {plural(preview.unreadable, 'fetch', 'fetches')} could not be judged "
            "(a capture unreadable)",
            file=sys.stderr,
        )
    if preview.stopped:
        print("recrawl: stopped: the counts are of the pages judged so far", file=sys.stderr)


COMMANDS = {"changes": Command(_changes_arguments, run_changes)}
