"""The Search panel's results: one row a page, best first, and how each row reads.

The rows are the :class:`~recrawl.core.archive.search.SearchHit` values of one search
(at most its limit: loaded whole). What a row shows is made here, as plain values the
delegate paints and the tests read: the snippet as runs of plain and matching text,
the "first seen … · last seen … · gone …" line in local time, and where the timeline's
periods and gone marks fall on a bar of a given width.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt
from recrawl.core.archive.search import Period, SearchHit
from recrawl.core.words import plural
from recrawl.gui.common.formatting import local_time, timestamp
from recrawl.gui.common.table_model import Column, TableModel

#: The row's hit (a :class:`~recrawl.core.archive.search.SearchHit`).
HIT_ROLE = Qt.ItemDataRole.UserRole + 1
#: The row's snippet as ``((text, matching), ...)`` runs.
RUNS_ROLE = Qt.ItemDataRole.UserRole + 2
#: The row's "first seen … · last seen …" line.
SEEN_ROLE = Qt.ItemDataRole.UserRole + 3

Runs = tuple[tuple[str, bool], ...]


def snippet_runs(text: str, marks: tuple[tuple[int, int], ...]) -> Runs:
    """``text`` cut at ``marks`` (the matches' spans): plain and matching runs in order.

    Spans out of order, overlapping or past the end are taken as far as they make sense:
    a snippet is never lost for a bad span."""
    runs: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(marks):
        start, end = max(start, at), min(end, len(text))
        if start >= end:
            continue
        if start > at:
            runs.append((text[at:start], False))
        runs.append((text[start:end], True))
        at = end
    if at < len(text):
        runs.append((text[at:], False))
    return tuple(runs)


def seen_line(hit: SearchHit) -> str:
    """``First seen 2027-01-01 01:00 · last seen 2027-02-10 01:00 · gone 2027-03-01 01:00
    (local time)``; ``· still there`` when the page's last capture matches."""
    parts = [f"First seen {local_time(hit.first_seen)}", f"last seen {local_time(hit.last_seen)}"]
    parts.append(f"gone {local_time(hit.gone_at)}" if hit.gone_at is not None else "still there")
    return " · ".join(parts) + " (local time)"


def captures_text(hit: SearchHit) -> str:
    return plural(hit.captures, "matching capture")


@dataclass(frozen=True)
class Span:
    """The time the timelines run over: the same for every row, so rows compare."""

    start: datetime
    end: datetime

    @classmethod
    def of_hits(
        cls, hits: tuple[SearchHit, ...] | list[SearchHit], project: Span | None = None
    ) -> Span | None:
        """From the project's first capture (or the first period's start, if earlier) to
        its latest (or the last period's end or gone point, if later: a round still
        being written)."""
        times = [
            when
            for hit in hits
            for period in hit.periods
            for when in (period.start, period.end, period.gone)
            if when is not None
        ]
        times += [when for hit in hits for when in (hit.first_seen, hit.last_seen) if when]
        if not times:
            return None
        if project is not None:
            times += [project.start, project.end]
        return cls(min(times), max(times))


@dataclass(frozen=True)
class Bar:
    """Where a row's timeline marks fall, in pixels from the bar's left."""

    #: (left, right) of each period, at least :data:`MIN_WIDTH` wide.
    present: tuple[tuple[int, int], ...]
    #: (left, right) from each period's last matching capture to its gone point: the
    #: text went somewhere in there.
    fading: tuple[tuple[int, int], ...]
    #: The gone points.
    gone: tuple[int, ...]


#: A period of one capture is still seen.
MIN_WIDTH = 3


def bar(periods: tuple[Period, ...], span: Span, width: int) -> Bar:
    """``periods`` placed on a bar ``width`` pixels wide running over ``span``."""
    first, last = timestamp(span.start), timestamp(span.end)
    length = max(last - first, 1.0)
    right_edge = max(width - 1, 0)

    def x(when: datetime) -> int:
        share = (timestamp(when) - first) / length
        return round(min(max(share, 0.0), 1.0) * right_edge)

    present: list[tuple[int, int]] = []
    fading: list[tuple[int, int]] = []
    gone: list[int] = []
    for period in periods:
        left, right = x(period.start), x(period.end)
        if right - left < MIN_WIDTH:
            right = min(left + MIN_WIDTH, width)
            left = max(right - MIN_WIDTH, 0)
        present.append((left, right))
        if period.gone is not None:
            at = x(period.gone)
            if at > right:
                fading.append((right, at))
            gone.append(at)
    return Bar(tuple(present), tuple(fading), tuple(gone))


class ResultsModel(TableModel[SearchHit]):
    """The hits of one search, best first; one column (the delegate paints a row)."""

    COLUMNS = (Column("Result"),)

    def cell(self, hit: SearchHit, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return hit.title or hit.url
        if role == HIT_ROLE:
            return hit
        if role == RUNS_ROLE:
            return snippet_runs(hit.snippet, tuple(hit.marks))
        if role == SEEN_ROLE:
            return seen_line(hit)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{hit.url}\n{seen_line(hit)}\n{captures_text(hit)}"
        return None

    def hits(self) -> list[SearchHit]:
        return [self.row(i) for i in range(self.rowCount())]
