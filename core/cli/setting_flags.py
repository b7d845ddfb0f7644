"""A crawl's flags (``--delay``, ``--rounds``…), made from the settings schema.

Each setting whose field in :mod:`recrawl.core.config` names a ``flag`` becomes one
option of ``recrawl crawl``, ``watch`` and ``worker``, with the setting's help, read
and checked as the setting reads its values (so ``--delay -1`` and ``recrawl settings
--set politeness.delay=-1`` are refused alike). A flag named by several settings sets
them all (``--timeout``: the connect and the read timeout); a flag of a true/false
setting takes no value and turns it from its default.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from recrawl.core.config import CRAWL_SETTINGS
from recrawl.core.setting_schema import Refused, SettingSpec

#: Each flag with the settings it sets, in the schema's order.
FLAGS: dict[str, tuple[SettingSpec, ...]] = {}
for _spec in CRAWL_SETTINGS.values():
    if _spec.flag:
        FLAGS[_spec.flag] = (*FLAGS.get(_spec.flag, ()), _spec)
_METAVARS = {"duration": "S", "size": "SIZE", "whole": "N", "number": "X", "list": "ITEMS"}


def add_setting_flags(p: argparse.ArgumentParser) -> None:
    """Add every setting's flag to ``p``."""
    for flag, specs in FLAGS.items():
        first = specs[0]
        help_text = first.meta.flag_help or " ".join(spec.help for spec in specs)
        names = ", ".join(spec.name for spec in specs)
        help_text = f"{help_text} Sets {names} for this crawl.".replace("%", "%%")
        if first.type is bool:
            p.add_argument(flag, action="store_true", help=help_text)
        else:
            p.add_argument(flag, type=_reader(first), metavar=_METAVARS[first.kind], help=help_text)


def _reader(spec: SettingSpec) -> Callable[[str], object]:
    def read(text: str) -> object:
        try:
            return spec.read(text)
        except Refused as exc:  # argparse names the flag: "argument --delay: ..."
            raise argparse.ArgumentTypeError(str(exc)) from None

    read.__name__ = spec.name  # what argparse says of a value it cannot convert
    return read


def flag_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The settings the flags in ``args`` give, by dotted name (those not given: none)."""
    overrides: dict[str, object] = {}
    for flag, specs in FLAGS.items():
        value = getattr(args, flag.removeprefix("--").replace("-", "_"))
        for spec in specs:
            if spec.type is bool:
                if value:
                    overrides[spec.name] = not spec.default
            elif value is not None:
                overrides[spec.name] = value
    return overrides
