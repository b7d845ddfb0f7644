"""Time: UTC everywhere inside, ISO 8601 with ``Z`` at the edges.

Stored datetimes are naive UTC (peewee writes them as text that sorts correctly);
everything that leaves the engine as JSON goes through :func:`to_iso`.
"""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime, timedelta

from recrawl.core.errors import InvalidArgument

#: Seconds in a minute, an hour, a day: the units every duration is counted in.
MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0


def utcnow() -> datetime:
    """The current time as a naive UTC datetime (the storage convention)."""
    return datetime.now(UTC).replace(tzinfo=None)


def to_iso(value: datetime | None) -> str | None:
    """``2026-11-30T03:52:12Z``; microseconds only when present."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat() + "Z"


def parse_iso(text: str) -> datetime:
    """Parse an ISO 8601 instant into naive UTC; a time without offset is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument(f"not an ISO 8601 time: {text!r}") from None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|min|[mhdw])?\s*$")
_UNIT_SECONDS = {None: 1, "s": 1, "m": MINUTE, "min": MINUTE, "h": HOUR, "d": DAY, "w": 7 * DAY}


def parse_duration(text: str) -> float:
    """``30d``, ``12h``, ``1800s``, ``90`` (seconds) → seconds; what
    :func:`human_duration` writes reads back too (``6.0 d``, ``90 min``, ``45 s``)."""
    match = _DURATION.match(text)
    if not match:
        raise InvalidArgument(f"not a duration (like 30d, 12h, 90min, 1800s): {text!r}")
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def human_duration(seconds: float | None) -> str:
    """For people: ``45 s``, ``12 min``, ``3.5 h``, ``2.1 d`` (empty for None), each unit
    until the next is reached (``2 min``, not ``117 s``); under ten seconds to a tenth
    (``0.4 s``, ``1 s``). The app and the command line write every duration so;
    :func:`parse_duration` reads it back."""
    if seconds is None:
        return ""
    # the bounds are where the rounded text would reach the next unit (59.6 s: "1 min")
    if seconds < 9.95:
        return f"{seconds:.1f}".removesuffix(".0") + " s"
    if seconds < 59.5:
        return f"{seconds:.0f} s"
    if seconds < 59.5 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 23.95 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


_UNITS = (("d", DAY), ("h", HOUR), ("m", MINUTE), ("s", 1.0))


def duration_text(seconds: float | None) -> str:
    """For editing: the shortest exact ``30d`` / ``12h`` / ``30m`` / ``90s`` that
    :func:`parse_duration` reads back (empty for None)."""
    if seconds is None:
        return ""
    for unit, size in _UNITS:
        count = seconds / size
        if count >= 1 and math.isclose(count, round(count), abs_tol=1e-9):
            return f"{round(count)}{unit}"
    # not a whole number of any unit: the largest unit it fills, to a thousandth
    unit, size = next(((u, s) for u, s in _UNITS if seconds >= s), ("s", 1.0))
    return f"{seconds / size:.3f}".rstrip("0").rstrip(".") + unit


def segment_name(instant: datetime) -> str:
    return instant.strftime("%Y%m%d%H%M%S")


class Clock:
    """Wall time, optionally started at another instant (``crawl --now``).

    The offset clock still advances in real time, so delays and rates stay real while
    all stored times are shifted: that is what lets a test or demo "come back" a month
    later without waiting a month.
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._origin = start
        self._t0 = time.monotonic()

    def now(self) -> datetime:
        if self._origin is None:
            return utcnow()
        return self._origin + timedelta(seconds=time.monotonic() - self._t0)
