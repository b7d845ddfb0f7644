"""``recrawl settings``: the crawl settings a project keeps, shown and changed.

The command line and the app start every crawl from them (``crawl``'s flags override
them for that crawl only). Every setting :data:`recrawl.core.config.STORABLE` names is
listed, so one added there shows up here with no change. Values are typed as on the
command line: durations (``0.5s``, ``30s``, ``2m``; a plain number is seconds), sizes
(``10M``, ``512k``; a plain number is bytes), whole numbers, ``true``/``false``, text,
lists of text apart by spaces (``none``: empty); JSON keeps seconds and bytes. Each
setting's help is its field's in :mod:`recrawl.core.config`; the app's Settings dialog
is made from the same :func:`setting_fields`.
"""

from __future__ import annotations

import argparse
import json
import math
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recrawl.core.cli.arguments import positive_int, positive_seconds, seconds, size
from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import duration_text
from recrawl.core.config import (
    DURATION_SETTINGS,
    SIZE_SETTINGS,
    STORABLE,
    CrawlSettings,
    setting_help,
)
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import crawl_settings
from recrawl.core.project import Project
from recrawl.core.watch.wake import wake_watcher

#: Settings that are also ``recrawl crawl`` flags take their text as the flag does; the
#: whole-request limit is a timeout like ``--timeout`` (0 would fail every fetch at once).
FLAG_TYPES: dict[str, Callable[[str], Any]] = {
    "politeness.delay": seconds,
    "politeness.per_host": positive_int,
    "politeness.concurrency": positive_int,
    "fetch.read_timeout": positive_seconds,
    "fetch.total_timeout": positive_seconds,
    "workers.lease_seconds": positive_seconds,  # a lease of 0 s would never hold a host
    "fetch.max_body_bytes": size,  # 10M, 512k or bytes
}
_TRUE = ("true", "yes", "on", "1")
#: How an empty list prints (and reads back).
NO_ITEMS = "none"
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class SettingField:
    """One setting a project keeps, as people see it: ``recrawl settings`` and the app's
    Settings dialog are made from these (:func:`setting_fields`)."""

    name: str
    #: ``duration`` (seconds), ``size`` (bytes), ``whole`` (int), ``number`` (float),
    #: ``bool``, ``text`` or ``list`` (of text).
    kind: str
    default: object
    help: str

    @property
    def group(self) -> str:
        """The part of the settings it belongs to (``politeness``), empty for none."""
        return self.name.rpartition(".")[0]


_KINDS = {bool: "bool", int: "whole", float: "number", str: "text", tuple: "list"}


def setting_fields() -> tuple[SettingField, ...]:
    """Every setting a project may keep, in :data:`STORABLE`'s order, with its kind,
    default and help."""
    defaults = CrawlSettings()
    return tuple(
        SettingField(
            name,
            _kind(name, kind),
            setting_value(defaults, name),
            setting_help(name),
        )
        for name, kind in STORABLE.items()
    )


def _kind(name: str, kind: type) -> str:
    if name in DURATION_SETTINGS:
        return "duration"
    return "size" if name in SIZE_SETTINGS else _KINDS[kind]


def keep_settings(project_dir: Path, changes: Mapping[str, object | None]) -> dict[str, object]:
    """Keep ``changes`` (values as :func:`parse_setting` gives them; None: the default
    again) and tell a watcher of the project; returns all kept. ``recrawl settings
    --set`` and the app's Settings dialog save through this."""
    kept = crawl_settings.save(changes)
    wake_watcher(project_dir)  # a watcher crawls with them from its next round
    return kept


def setting_value(settings: CrawlSettings, name: str) -> Any:
    """The value of the setting with the dotted ``name`` (``politeness.delay``)."""
    value: Any = settings
    for part in name.split("."):
        value = getattr(value, part)
    return value


def parse_setting(name: str, text: str) -> object:
    """``text`` as the value of setting ``name``; InvalidArgument naming it if it is not."""
    kind = STORABLE.get(name)
    if kind is None:
        raise _unknown(name)
    word = text.strip()
    if name in FLAG_TYPES:
        try:
            value: object = FLAG_TYPES[name](word)
        except argparse.ArgumentTypeError as exc:
            raise InvalidArgument(f"{name}: {exc}") from None
        return value
    if kind is bool:
        if word.lower() in _TRUE + _FALSE:
            return word.lower() in _TRUE
        raise InvalidArgument(f"{name} is true or false, not {text!r}")
    if kind is int:
        if word.isdigit():
            return int(word)
        raise InvalidArgument(f"{name} is a whole number (0 or more), not {text!r}")
    if kind is float:
        return _number(name, word)
    if kind is tuple:  # a list: items apart by spaces (URL patterns have none)
        items = tuple(word.split())
        return () if items == (NO_ITEMS,) else items
    if name == "fetch.user_agent":
        return _user_agent(text)
    return text


def _user_agent(text: str) -> str:
    """A User-Agent that names the crawler: robots.txt groups are matched by its first
    word (``Archivist`` in ``Archivist/1.0 (+https://…)``), and servers log who came."""
    if not text.split("/", 1)[0].split():
        raise InvalidArgument(
            "fetch.user_agent must start with the crawler's name, like "
            f"'Archivist/1.0 (+https://example.org/contact)', not {text!r}"
        )
    return text


def _unknown(name: str) -> InvalidArgument:
    return InvalidArgument(f"no crawl setting {name!r} (there are: {', '.join(STORABLE)})")


def _number(name: str, word: str) -> float:
    if name in DURATION_SETTINGS:
        try:
            return seconds(word)
        except argparse.ArgumentTypeError:
            raise InvalidArgument(
                f"{name} is a duration like 0.5s, 30s or 2m, not {word!r}"
            ) from None
    try:
        value = float(word)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InvalidArgument(f"{name} is a number, not {word!r}")
    return value


def setting_text(name: str, value: object) -> str:
    """A value as it is typed: ``0.5s``, ``4``, ``true``, text (``not set``: None, a
    default that only ``--unset`` gives back)."""
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if name in DURATION_SETTINGS and isinstance(value, int | float):
        return duration_text(float(value))
    if name in SIZE_SETTINGS and isinstance(value, int):
        return size_text(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return " ".join(value) or NO_ITEMS
    return str(value)


_SIZE_UNITS = (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10))


def size_text(count: int) -> str:
    """A size as it is typed: the shortest exact ``10M``, ``512k`` or ``1000`` (bytes),
    which the command line's sizes read back."""
    for unit, bytes_ in _SIZE_UNITS:
        if count >= bytes_ and count % bytes_ == 0:
            return f"{count // bytes_}{unit}"
    return str(count)


def _settings_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Show or change the crawl settings the project keeps: `recrawl crawl` and the\n"
        "app start from them, and crawl's flags override them for one crawl."
    )
    width = max(map(len, STORABLE))
    p.formatter_class = argparse.RawDescriptionHelpFormatter  # the list below, as laid out
    p.epilog = "settings, with their defaults:\n" + "\n".join(
        f"  {item.name:<{width}}  {setting_text(item.name, item.default)}\n"
        + textwrap.fill(item.help, 78, initial_indent=" " * 6, subsequent_indent=" " * 6)
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
        help="print a JSON array of {name, value, default, is_default} (seconds for durations)",
    )


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
        if name not in STORABLE:
            raise _unknown(name)
        changes[name] = None
    kept = keep_settings(project.path, changes) if changes else crawl_settings.stored()
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
        }
        for name in STORABLE
    ]


COMMANDS = {"settings": Command(_settings_arguments, run_settings)}
