"""``recrawl settings``: the crawl settings a project keeps, shown and changed.

The command line and the app start every crawl from them (``crawl``'s flags override
them for that crawl only). Every setting whose field in :mod:`recrawl.core.config` says
``stored=True`` is listed with its help, unit and default, so one added there shows up
here (and in the app's Settings dialog) with no change. Values are typed as
:mod:`recrawl.core.setting_schema` reads them: durations (``0.5s``, ``30s``, ``2m``; a
plain number is seconds), sizes (``10M``, ``512k``; a plain number is bytes), whole
numbers, ``true``/``false``, text, lists of text apart by spaces (``none``: empty); JSON
keeps seconds and bytes.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.config import (
    STORABLE,
    CrawlSettings,
    parse_setting,
    setting_fields,
    setting_text,
    setting_value,
    stored_spec,
)
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import crawl_settings
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.core.setting_schema import SettingSpec


def _settings_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Show or change the crawl settings the project keeps: `recrawl crawl` and the\n"
        "app start from them, and crawl's flags override them for one crawl."
    )
    width = max(map(len, STORABLE))
    p.formatter_class = argparse.RawDescriptionHelpFormatter  # the list below, as laid out
    p.epilog = "settings, with their defaults:\n" + "\n".join(
        f"  {item.name:<{width}}  {setting_text(item.name, item.default)}\n"
        + textwrap.fill(_described(item), 78, initial_indent=" " * 6, subsequent_indent=" " * 6)
        for item in setting_fields()
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="keep this value (durations like 0.5s or 30s, sizes like 10M, numbers, true/false)",
    )
    p.add_argument(
        "--unset",
        action="append",
        default=[],
        metavar="NAME",
        help="forget the kept value: the default again",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array of {name, value, default, is_default, help, unit} "
        "(seconds for durations, bytes for sizes; unit null for none)",
    )


def _described(item: SettingSpec) -> str:
    """A setting's help with its unit and bounds, as ``--help`` lists it."""
    facts = [item.unit] if item.unit and item.kind not in ("duration", "size") else []
    if item.bounds_text():
        facts.append(item.bounds_text())
    return f"{item.help} ({', '.join(facts)})" if facts else item.help


@project_command
def run_settings(project: Project, args: argparse.Namespace) -> int:
    changes: dict[str, object | None] = {}
    for item in args.set:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise InvalidArgument(f"--set takes NAME=VALUE, not {item!r}")
        changes[name.strip()] = parse_setting(name.strip(), text)
    for name in args.unset:
        if name in changes:
            raise InvalidArgument(f"{name} is both set and unset")
        stored_spec(name)  # an unknown name is refused, naming those there are
        changes[name] = None
    kept = Services(project).settings.save(changes) if changes else crawl_settings.stored()
    rows = _rows(kept)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    width = max(len(row["name"]) for row in rows)
    texts = {row["name"]: setting_text(row["name"], row["value"]) for row in rows}
    value_width = min(12, max(len(text) for text in texts.values()))  # long text runs on
    for row in rows:
        name = row["name"]
        where = (
            "default"
            if row["is_default"]
            else f"kept (default {setting_text(name, row['default'])})"
        )
        print(f"{name:<{width}}  {texts[name]:<{value_width}}  {where}")
    return 0


def _rows(kept: dict[str, object]) -> list[dict[str, Any]]:
    defaults = CrawlSettings()
    current = crawl_settings.project_crawl_settings(defaults)
    return [
        {
            "name": name,
            "value": setting_value(current, name),
            "default": setting_value(defaults, name),
            "is_default": name not in kept,
            "help": spec.help,
            "unit": spec.unit,
        }
        for name, spec in STORABLE.items()
    ]


COMMANDS = {"settings": Command(_settings_arguments, run_settings)}
