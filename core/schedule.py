"""Fetch schedules (DESIGN.md §4): the policy that sets each page's next fetch.

A schedule is a plug-in: anything with the :class:`FetchSchedule` methods, registered by
name in :data:`SCHEDULES`. The engine gives it a :class:`ScheduleInput` snapshot of the
page and the fetch outcome and stores the interval it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from core.errors import InvalidArgument

DAY = 86400.0


class Change(StrEnum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    UNKNOWN = "unknown"


@dataclass(frozen=True, kw_only=True)
class ScheduleInput:
    """What a schedule may know about one page at one fetch."""

    url: str
    host: str
    interval: float
    fetched_at: datetime
    last_fetched: datetime | None = None
    content_changed_at: datetime | None = None
    prev_content_changed_at: datetime | None = None
    score: float = 1.0
    metadata: dict[str, Any] = field(default_factory=dict)


class FetchSchedule(Protocol):
    name: str

    def initial_interval(self) -> float:
        """Interval given to a page when it is first discovered."""
        ...

    def after_fetch(self, page: ScheduleInput, change: Change) -> float:
        """The page's new interval after a fetch whose content change was ``change``."""
        ...

    def after_gone(self, page: ScheduleInput) -> float:
        """The new interval of a page that answered 404/410."""
        ...


def next_fetch_time(fetched_at: datetime, interval: float, now: datetime) -> datetime:
    """When to fetch next; never in the past (NUTCH-1564)."""
    due = fetched_at + timedelta(seconds=interval)
    return max(due, now)


def fixed_override(page: ScheduleInput) -> float | None:
    """``metadata.fixed_interval`` pins one page's interval, bypassing adaptation."""
    value = page.metadata.get("fixed_interval") if page.metadata else None
    return float(value) if value is not None else None


@dataclass(frozen=True, kw_only=True)
class FixedSchedule:
    """The interval never changes (default 30 days)."""

    interval: float = 30 * DAY
    max: float = 365 * DAY
    name: str = "fixed"

    def initial_interval(self) -> float:
        return self.interval

    def after_fetch(self, page: ScheduleInput, change: Change) -> float:
        override = fixed_override(page)
        return override if override is not None else self.interval

    def after_gone(self, page: ScheduleInput) -> float:
        return min(page.interval * 1.5, self.max)


SCHEDULES: dict[str, type] = {"fixed": FixedSchedule}


def make_schedule(name: str = "fixed", **params: Any) -> FetchSchedule:
    try:
        cls = SCHEDULES[name]
    except KeyError:
        raise InvalidArgument(
            f"unknown schedule {name!r} (known: {', '.join(sorted(SCHEDULES))})"
        ) from None
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidArgument(f"bad parameter for schedule {name!r}: {exc}") from None
