"""Argument types: text to a value, or argparse's one-line error naming the option."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from typing import TypeVar

from recrawl.core.clock import parse_duration
from recrawl.core.errors import InvalidArgument

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


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text: str) -> int:
    """``50M``, ``1G``, ``512k``, ``1048576`` (bytes) → bytes; K, M, G are powers of 1024."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(text)
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def _seconds(text: str) -> float:
    """A number of seconds (``0.5``), or a duration with its unit (``30s``, ``2m``)."""
    try:
        value = float(text)
    except ValueError:
        return parse_duration(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _fraction_or_percent(text: str) -> float:
    body = text.strip()
    return float(body[:-1]) / 100 if body.endswith("%") else float(body)


positive_int = converter(
    int, "not a whole number", valid=lambda n: n >= 1, invalid="must be at least 1"
)
seconds = converter(  # 0.5, 30s, 2m
    _seconds, "not a number of seconds", valid=lambda s: s >= 0, invalid="must not be negative"
)
positive_seconds = converter(  # a timeout: zero would fail every fetch at once
    _seconds, "not a number of seconds", valid=lambda s: s > 0, invalid="must be more than 0"
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
