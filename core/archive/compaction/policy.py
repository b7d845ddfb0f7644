"""Compaction by policy (docs/design.md §18): which segments form a fold that is due now.

Pure: segment names and states and an instant in, folds out. A segment belongs to the
UTC day (and month) its name's stamp says (``yyyymmddHHMMSS``: a round's start, §1); a
fold's segment is named from its period's first instant (moved on a second while that
name is taken, :func:`~recrawl.core.archive.segments.allocate_name`), so it stays in its
period and the policy sees it there next time. Which day is finished is judged by the
crawl's clock (``crawl --now``: the simulated one).

- ``day-month`` (the default): a finished month's segments into one; a finished day of
  the current month's segments into one. A year of 6-hourly rounds is then at most 12
  month segments, one a finished day of this month and today's rounds.
- ``day``: each finished day's segments into one.
- ``month``: each finished month's segments into one.

A period is due when it holds two or more closed segments: a fold of one segment would
copy it for nothing, so a folded period stays as it is. Open segments (a round being
written, on PostgreSQL another worker's) are never taken; one that closes later in a
folded period makes it due again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from recrawl.core.config import COMPACTION_FOLDS as FOLDS  # what compaction.fold chooses

_STAMP = re.compile(r"^(\d{14})(?:$|-)")


@dataclass(frozen=True, slots=True)
class SegmentState:
    """What the policy reads of a segment (``store.segment_states``)."""

    name: str
    closed: bool


@dataclass(frozen=True, slots=True)
class Fold:
    """Segments of one finished period, folded into one segment named from ``start``."""

    kind: str  # "day" | "month"
    #: ``2027-03-01`` (a day) or ``2027-03`` (a month).
    period: str
    #: The period's first instant: the folded segment's name is made from it.
    start: datetime
    names: tuple[str, ...]


def stamp(name: str) -> datetime | None:
    """The instant a segment's name says (``20270301060000`` or ``20270301060000-w1``);
    None for a name that says none (left alone by the policy)."""
    match = _STAMP.match(name)
    if match is None:
        return None
    try:
        return datetime.strptime(match[1], "%Y%m%d%H%M%S")
    except ValueError:
        return None


def due_folds(
    segments: Iterable[SegmentState], now: datetime, fold: str = "day-month"
) -> list[Fold]:
    """The folds due at ``now`` under policy ``fold`` (one of :data:`FOLDS`), oldest
    first; no two share a segment."""
    if fold not in FOLDS:
        raise ValueError(f"no compaction policy {fold!r} (there are: {', '.join(FOLDS)})")
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    this_month = today.replace(day=1)
    periods: dict[tuple[str, datetime], list[str]] = {}
    for segment in segments:
        at = stamp(segment.name)
        if not segment.closed or at is None or at >= today:
            continue  # still written, not ours to read, or of a day not over yet
        day = at.replace(hour=0, minute=0, second=0, microsecond=0)
        month = day.replace(day=1)
        if fold == "day" or (fold == "day-month" and month == this_month):
            key = ("day", day)
        elif month < this_month:
            key = ("month", month)
        else:
            continue  # "month": this month's days wait for its end
        periods.setdefault(key, []).append(segment.name)
    return [
        Fold(
            kind,
            start.strftime("%Y-%m-%d" if kind == "day" else "%Y-%m"),
            start,
            tuple(sorted(names)),
        )
        for (kind, start), names in sorted(periods.items(), key=lambda item: item[0][1])
        if len(names) >= 2
    ]
