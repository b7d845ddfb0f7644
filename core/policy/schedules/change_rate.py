"""The ``change-rate`` schedule: estimate each page's change rate, buy freshness with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from recrawl.core.clock import DAY, MINUTE
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.schedule import Change, Corpus, Decision, ScheduleInput
from recrawl.core.policy.schedules.base import LEARNED, BaseSchedule
from recrawl.core.policy.schedules.estimators import (
    RateEstimate,
    optimal_intervals,
    solve_mu,
    x_for_freshness,
)


@dataclass(kw_only=True)
class ChangeRateSchedule(BaseSchedule):
    """Estimates each page's change rate λ and picks the interval that buys freshness.

    ``policy="uniform"`` gives every page the freshness ``target``:
    (1 − e^(−λI))/(λI) = target. ``policy="optimal"`` (default) spends the same kind of
    budget where it buys most: Cho & Garcia-Molina's optimal split, with the multiplier
    chosen so the *project's* mean freshness is ``target`` (a page that changes too fast
    to keep fresh is visited rarely). With one page both are the same.
    """

    target: float = 0.8
    policy: str = "optimal"
    initial: float = DAY
    min: float | None = 10 * MINUTE
    max: float | None = 365 * DAY
    #: Visits with a known change before the estimate is trusted.
    min_visits: int = 3
    #: Visits after which old observations fade (exponential forgetting).
    memory: float = 100.0
    #: The multiplier of the optimal split, learned from the corpus by :meth:`prepare`.
    mu: float | None = field(default=None, metadata=LEARNED)
    name = "change-rate"

    @property
    def needs_corpus(self) -> bool:
        return self.policy == "optimal"

    def __post_init__(self) -> None:
        if not 0 < self.target < 1:
            raise InvalidArgument(f"target must be between 0 and 1, not {self.target}")
        if self.policy not in ("optimal", "uniform"):
            raise InvalidArgument(f"policy must be optimal or uniform, not {self.policy!r}")
        #: λ·I at which a page is fresh ``target`` of the time (the uniform policy).
        self.x_target = x_for_freshness(self.target)

    def prepare(self, corpus: Corpus) -> None:
        if self.policy == "optimal":
            rates = corpus.rates[np.isfinite(corpus.rates)]
            low, high = self.bounds("")
            self.mu = solve_mu(rates, self.target, low, high or 365 * DAY) if rates.size else None

    def interval_for(self, rate: float, host: str = "") -> float:
        low, high = self.bounds(host)
        high = high or 365 * DAY
        if rate <= 0:
            return high
        if self.policy == "optimal" and self.mu is not None:
            return float(optimal_intervals(np.array([rate]), self.mu, low, high)[0])
        return self.x_target / rate

    def adapt(
        self, page: ScheduleInput, change: Change
    ) -> tuple[float, datetime, dict[str, Any] | None]:
        previous = page.metadata.get("change_rate") if page.metadata else None
        estimate = RateEstimate(previous)
        # A change is judged against the content of the last fetch that compared (or
        # first stored) it, not against a failed or redirected attempt in between.
        since = previous.get("t") if previous else None
        reference = datetime.fromisoformat(since) if since else page.last_fetched
        if change is not Change.UNKNOWN and reference is not None:
            elapsed = (page.fetched_at - reference).total_seconds()
            estimate.add(elapsed, change is Change.CHANGED, self.memory)
        state = estimate.to_state()
        if change is not Change.UNKNOWN or not since:
            state["t"] = page.fetched_at.isoformat()
        elif since:
            state["t"] = since
        if estimate.visits < self.min_visits:
            return page.interval, page.fetched_at, state
        return self.interval_for(estimate.rate(), page.host), page.fetched_at, state

    def rate_of(self, state: dict[str, Any] | None) -> float | None:
        if not state or state.get("n", 0) < self.min_visits:
            return None
        return RateEstimate(state).rate()

    def after_fetch(self, page: ScheduleInput, change: Change) -> Decision:
        decision = super().after_fetch(page, change)
        if decision.metadata is not None:
            return Decision(
                decision.interval,
                decision.next_fetch,
                {"change_rate": decision.metadata},
                decision.change_rate,
            )
        return decision
