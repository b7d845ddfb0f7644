"""``recrawl settings``: the crawl settings a project keeps, shown and changed.

The command line and the app start every crawl from them (``crawl``'s flags override
them for that crawl only). Every setting whose field in :mod:`recrawl.core.config` says
``stored=True`` is listed with its help, unit and default, so one added there shows up
here (and in the app's Settings dialog) with no change. Values are typed as
:mod:`recrawl.core.setting_schema` reads them: durations (``0.5s``, ``30s``, ``2m``; a
plain number is seconds), sizes (``10M``, ``512k``; a plain number is bytes), whole
numbers, ``true``/``false``, text, lists of text apart by spaces (``none``: empty); JSON
keeps seconds and bytes. A site's own capture mode is ``capture.mode@HOST``
(:mod:`recrawl.core.policy.capture_modes`), listed after ``capture.mode``.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.config import (
    CAPTURE_MODE,
    CAPTURE_MODES,
    STORABLE,
    CrawlSettings,
    parse_setting,
    setting_fields,
    setting_text,
    setting_value,
    stored_spec,
)
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import capture_modes, crawl_settings
from recrawl.core.policy.capture_modes import ModeSwitch
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.core.setting_schema import SettingSpec
from recrawl.core.words import plural

#: ``--help``'s words on a site's own capture mode.
PER_HOST_HELP = (
    "The capture mode of HOST's pages and of the hosts under it, over capture.mode: "
    "capture.mode@example.org=browser covers www.example.org too, and the longest entry "
    "that covers a host wins. --unset capture.mode@HOST gives the site the project-wide "
    "mode again. A site whose mode changes (this way, or by capture.mode for the sites "
    "without their own) forgets its pages' signatures: their next fetch is unknown, not "
    "a change, as the text of raw HTML and of a rendered page would differ."
)


def _settings_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Show or change the crawl settings the project keeps: `recrawl crawl` and the\n"
        "app start from them, and crawl's flags override them for one crawl."
    )
    width = max(map(len, STORABLE))
    p.formatter_class = argparse.RawDescriptionHelpFormatter  # the list below, as laid out
    p.epilog = (
        "settings, with their defaults:\n"
        + "\n".join(
            f"  {item.name:<{width}}  {setting_text(item.name, item.default)}\n"
            + textwrap.fill(_described(item), 78, initial_indent=" " * 6, subsequent_indent=" " * 6)
            for item in setting_fields()
        )
        + "\n\na site's own capture mode:\n"
        + f"  {capture_modes.PREFIX + 'HOST':<{width}}  {' or '.join(CAPTURE_MODES)}\n"
        + textwrap.fill(PER_HOST_HELP, 78, initial_indent=" " * 6, subsequent_indent=" " * 6)
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
        changes[name.strip()] = _parsed(name.strip(), text)
    for name in args.unset:
        if name in changes:
            raise InvalidArgument(f"{name} is both set and unset")
        if capture_modes.per_host(name) is None:  # a host's mode: its host is checked
            stored_spec(name)  # an unknown name is refused, naming those there are
        changes[name] = None
    if changes:
        saved = Services(project).settings.update(changes)
        _say_switched(saved.switch)
        kept = saved.kept
    else:
        kept = {**crawl_settings.stored(), **crawl_settings.host_settings()}
    rows = _rows(kept)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    width = max(len(row["name"]) for row in rows)
    texts = {row["name"]: _text(row["name"], row["value"]) for row in rows}
    value_width = min(12, max(len(text) for text in texts.values()))  # long text runs on
    for row in rows:
        name = row["name"]
        if row["is_default"]:
            where = "default"
        elif name.startswith(capture_modes.PREFIX):
            where = f"kept (project-wide {row['default']})"
        else:
            where = f"kept (default {setting_text(name, row['default'])})"
        print(f"{name:<{width}}  {texts[name]:<{value_width}}  {where}")
    return 0


def _text(name: str, value: object) -> str:
    return str(value) if name.startswith(capture_modes.PREFIX) else setting_text(name, value)


def _parsed(name: str, text: str) -> object:
    if capture_modes.per_host(name) is not None:
        return capture_modes.check_mode(name, text.strip())
    return parse_setting(name, text)


def _say_switched(switch: ModeSwitch) -> None:
    if switch.hosts:
        shown = ", ".join(switch.hosts[:3]) + (" and more" if len(switch.hosts) > 3 else "")
        forgot = (
            f": {plural(switch.pages, 'page')} "
            + (
                "forgot its signature (its next fetch is"
                if switch.pages == 1
                else "forgot their signatures (the next fetch of each is"
            )
            + " unknown, not a change)"
            if switch.pages
            else " (no page signed yet)"
        )
        print(f"capture mode changed for {shown}{forgot}", file=sys.stderr)


def _rows(kept: dict[str, object]) -> list[dict[str, Any]]:
    defaults = CrawlSettings()
    current = crawl_settings.project_crawl_settings(defaults)
    rows = []
    for name, spec in STORABLE.items():
        rows.append(
            {
                "name": name,
                "value": setting_value(current, name),
                "default": setting_value(defaults, name),
                "is_default": name not in kept,
                "help": spec.help,
                "unit": spec.unit,
            }
        )
        if name == CAPTURE_MODE:  # the sites' own, after the project's
            rows.extend(
                {
                    "name": capture_modes.PREFIX + host,
                    "value": mode,
                    "default": current.capture.mode,
                    "is_default": False,
                    "help": PER_HOST_HELP,
                    "unit": None,
                }
                for host, mode in current.capture.host_modes
            )
    return rows


COMMANDS = {"settings": Command(_settings_arguments, run_settings)}
