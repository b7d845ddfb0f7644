"""The schedules whose rule is a formula on the last interval (docs/design.md §4).

``fixed`` keeps it, ``aronsson`` (the original post) stretches or shrinks it by a factor
plus a constant, ``nutch-adaptive`` is Nutch's AdaptiveFetchSchedule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from recrawl.core.clock import DAY
from recrawl.core.policy.schedules.base import BaseSchedule


@dataclass(kw_only=True)
class FixedSchedule(BaseSchedule):
    """The interval never changes (default 30 days)."""

    initial: float = 30 * DAY
    name = "fixed"

    def interval_range(self, host: str) -> tuple[float, float]:
        every = self._clamp(self.initial, host)  # what the next fetch sets, whatever it was
        return every, every

    def step(
        self, interval: np.ndarray, change: np.ndarray, fetched: np.ndarray, modified: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        return np.full_like(interval, self.initial), fetched


@dataclass(kw_only=True)
class AronssonSchedule(BaseSchedule):
    """The original post's rule: ``I' = (1 + increase − (increase + decrease)·changed)·I + c``.

    Unchanged (and unknown, and failed) fetches stretch the interval by 20 %, changed
    ones halve it, and the constant keeps a page that always changes at 2c = 1 hour.
    """

    increase: float = 0.2
    decrease: float = 0.5
    constant: float = 1800.0
    initial: float = 10 * DAY
    name = "aronsson"
    failure_is_unchanged = True

    def step(
        self, interval: np.ndarray, change: np.ndarray, fetched: np.ndarray, modified: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        factor = np.where(change == 1, 1 - self.decrease, 1 + self.increase)
        return factor * interval + self.constant, fetched


@dataclass(kw_only=True)
class NutchAdaptiveSchedule(BaseSchedule):
    """Nutch's AdaptiveFetchSchedule with the defaults of its shipped configuration.

    Changed → ×(1 − dec_rate), unchanged → ×(1 + inc_rate), unknown → unchanged. With
    ``sync_delta`` the interval is at least the time since the last detected change and
    the next fetch is counted from ``fetch time − delta·sync_delta_rate``.
    """

    inc_rate: float = 0.4
    dec_rate: float = 0.2
    min: float | None = 60.0
    max: float | None = 365 * DAY
    sync_delta: bool = True
    sync_delta_rate: float = 0.3
    initial: float = 30 * DAY
    name = "nutch-adaptive"

    def step(
        self, interval: np.ndarray, change: np.ndarray, fetched: np.ndarray, modified: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        modified = np.where(np.isnan(modified), fetched, modified)
        interval = np.where(
            change == 1,
            interval * (1 - self.dec_rate),
            np.where(change == 0, interval * (1 + self.inc_rate), interval),
        )
        modified = np.where(change == 1, fetched, modified)
        reference = fetched
        if self.sync_delta:
            delta = np.maximum(0.0, fetched - modified)
            interval = np.maximum(interval, delta)
            reference = fetched - delta * self.sync_delta_rate
        return interval, reference
