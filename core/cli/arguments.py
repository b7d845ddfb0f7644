"""Argument types: text to a value, or argparse's one-line error naming the option.

A crawl's flags that override a setting are typed by the setting itself
(:mod:`.setting_flags`); these are the types of the other options.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

from recrawl.core.clock import parse_duration
from recrawl.core.errors import InvalidArgument
from recrawl.core.setting_schema import parse_size

T = TypeVar("T", int, float)


def converter(
    parse: Callable[[str], T],
    unreadable: str | None,
    *,
    valid: Callable[[T], bool] = lambda value: True,
    invalid: str = "",
) -> Callable[[str], T]:
    """An argparse ``type``: ``parse`` the text, then check the value is ``valid``.

    ``unreadable`` and ``invalid`` are the messages, followed by the text given;
    ``unreadable=None`` keeps the message of the parser's own :class:`InvalidArgument`.
    """

    def convert(text: str) -> T:
        try:
            value = parse(text)
        except (ValueError, InvalidArgument) as exc:
            message = str(exc) if unreadable is None else f"{unreadable}: {text!r}"
            raise argparse.ArgumentTypeError(message) from None
        if not valid(value):
            raise argparse.ArgumentTypeError(f"{invalid}: {text!r}")
        return value

    return convert


def _fraction_or_percent(text: str) -> float:
    body = text.strip()
    return float(body[:-1]) / 100 if body.endswith("%") else float(body)


positive_int = converter(
    int, "not a whole number", valid=lambda n: n >= 1, invalid="must be at least 1"
)
size = converter(
    parse_size,
    "not a size like 50M, 1G or 4096",
    valid=lambda n: n >= 1,
    invalid="must be at least 1 byte",
)
fraction = converter(  # 0.5 or 50%
    _fraction_or_percent,
    "not a fraction like 0.5 or 50%",
    valid=lambda f: 0 <= f <= 1,
    invalid="must be between 0 and 1 (or 0% and 100%)",
)
duration = converter(parse_duration, None)  # 30d, 12h, 1800s: parse_duration says what's wrong
