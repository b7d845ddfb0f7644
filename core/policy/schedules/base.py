"""What every built-in schedule shares: bounds, per-host overrides, gone/retry/force rules.

A schedule's own rule is :meth:`BaseSchedule.step`, written on arrays so that the
simulator runs it on whole corpora; a crawl runs it on one page through
:meth:`BaseSchedule.adapt`. Parameters are dataclass fields (``recrawl schedule --param``
and the GUI's form are built from them); a field marked :data:`LEARNED` is state the
schedule learns, not a parameter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

import numpy as np
from recrawl.core.clock import DAY
from recrawl.core.policy.schedule import CHANGE_CODES, Change, Corpus, Decision, ScheduleInput

#: Field metadata of what a schedule learns as it runs (not a parameter a user sets).
LEARNED = MappingProxyType({"learned": True})


def fixed_override(page: ScheduleInput) -> float | None:
    """``metadata.fixed_interval`` pins one page's interval, bypassing adaptation."""
    value = page.metadata.get("fixed_interval") if page.metadata else None
    return float(value) if value is not None else None


def next_fetch_time(fetched_at: datetime, interval: float, now: datetime) -> datetime:
    """``fetched_at + interval``, never before ``now`` (NUTCH-1564)."""
    return max(fetched_at + timedelta(seconds=interval), now)


@dataclass(kw_only=True)
class BaseSchedule:
    """Bounds, per-host overrides, gone/retry/force rules shared by every schedule.

    ``hosts`` maps a host or domain to its own ``{"min": s, "max": s}``; the longest
    matching entry wins (``www.example.com`` matches ``example.com``).
    """

    initial: float = 30 * DAY
    min: float | None = None
    max: float | None = None
    hosts: dict[str, dict[str, float]] = field(default_factory=dict)
    #: Seconds before a failed fetch is tried again (Nutch: one day).
    retry_interval: float = DAY
    #: A gone page's interval grows by this factor at each 404/410 (Nutch: 1.5)...
    gone_factor: float = 1.5
    #: ...up to this many seconds (or ``max`` when that is smaller).
    gone_max: float = 365 * DAY

    name = "base"
    #: Only ``discovery`` learns from a fetch's new outlinks.
    counts_new_links = False
    #: Whether a failed fetch moves the interval as "unchanged" would (aronsson).
    failure_is_unchanged = False

    @property
    def needs_corpus(self) -> bool:
        """Whether ``prepare`` needs the project's figures before each round."""
        return False

    def initial_interval(self) -> float:
        return self._clamp(self.initial, "")

    def bounds(self, host: str) -> tuple[float, float | None]:
        low, high = self.min, self.max
        best = ""
        for entry, limits in self.hosts.items():
            entry = entry.lower().strip(".")
            if (host == entry or host.endswith("." + entry)) and len(entry) > len(best):
                best = entry
                low = limits.get("min", self.min)
                high = limits.get("max", self.max)
        return (low if low is not None else 0.0), high

    def interval_range(self, host: str) -> tuple[float, float]:
        low, high = self.bounds(host)
        return max(low, 1.0), (high if high is not None else math.inf)

    def _clamp(self, interval: float, host: str) -> float:
        low, high = self.bounds(host)
        if high is not None:
            interval = min(interval, high)
        return max(interval, low, 1.0)

    def step(
        self, interval: np.ndarray, change: np.ndarray, fetched: np.ndarray, modified: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The schedule's rule on arrays (the simulator runs it on whole corpora).

        ``change`` is 1 changed, 0 unchanged, −1 unknown; times are seconds on any common
        axis; ``modified`` is when the crawler last saw a change (NaN: never). Returns the
        new intervals (before bounds) and the reference times they count from.
        """
        raise NotImplementedError

    def clamp_many(self, interval: np.ndarray, host: str = "") -> np.ndarray:
        low, high = self.bounds(host)
        clamped: np.ndarray = np.maximum(
            np.minimum(interval, high if high is not None else np.inf), max(low, 1.0)
        )
        return clamped

    def adapt(
        self, page: ScheduleInput, change: Change
    ) -> tuple[float, datetime, dict[str, Any] | None]:
        """One page through :meth:`step`: (new interval, reference time, state to keep)."""
        modified = (
            (page.content_changed_at - page.fetched_at).total_seconds()
            if page.content_changed_at is not None
            else math.nan
        )
        interval, reference = self.step(
            np.array([page.interval]),
            np.array([CHANGE_CODES[change]]),
            np.array([0.0]),
            np.array([modified]),
        )
        return float(interval[0]), page.fetched_at + timedelta(seconds=float(reference[0])), None

    def after_fetch(self, page: ScheduleInput, change: Change) -> Decision:
        pinned = fixed_override(page)
        if pinned is not None:
            return Decision(pinned, next_fetch_time(page.fetched_at, pinned, page.fetched_at))
        interval, reference, state = self.adapt(page, change)
        interval = self._clamp(interval, page.host)
        return Decision(
            interval,
            next_fetch_time(reference, interval, page.fetched_at),
            state,
            self.rate_of(state),
        )

    def rate_of(self, state: dict[str, Any] | None) -> float | None:
        """The change rate the kept state estimates (None: this schedule keeps none)."""
        return None

    def after_gone(self, page: ScheduleInput) -> Decision:
        high = self.bounds(page.host)[1]
        cap = min(self.gone_max, high) if high is not None else self.gone_max
        interval = min(page.interval * self.gone_factor, cap)
        return Decision(interval, next_fetch_time(page.fetched_at, interval, page.fetched_at))

    def after_retry(self, page: ScheduleInput) -> Decision:
        interval = page.interval
        state = None
        if self.failure_is_unchanged and fixed_override(page) is None:
            interval, _, state = self.adapt(page, Change.UNCHANGED)
            interval = self._clamp(interval, page.host)
        due = page.fetched_at + timedelta(seconds=self.retry_interval)
        return Decision(interval, due, state)

    def should_fetch(self, next_fetch: datetime, now: datetime) -> bool:
        # Nutch also refetches a page whose next fetch lies implausibly far ahead
        # (a clock that jumped): more than the maximum interval away.
        if next_fetch <= now:
            return True
        return self.max is not None and (next_fetch - now).total_seconds() > self.max

    def force_refetch(self, page: ScheduleInput, now: datetime) -> Decision:
        interval = page.interval
        if self.max is not None and interval > 0.9 * self.max:
            interval = 0.9 * self.max
        return Decision(interval, now)

    def prepare(self, corpus: Corpus) -> None:
        return None
