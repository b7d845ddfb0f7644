"""The ``discovery`` schedule: visit hubs so new pages are first seen soon (docs/design.md §11).

A hub is a page that keeps gaining outlinks (a front page, a category, a "latest"
list). Its new links arrive as a Poisson process of rate λ; visited every T, a new link
waits T/2 on average before the crawler sees it. At a budget of B fetches per second
for all hubs, the mean delay over all new links Σλᵢ·Tᵢ/2 / Σλᵢ is least at
Tᵢ = s/√λᵢ with s = Σ√λⱼ / B, and is then (Σ√λᵢ)² / (2·B·Σλᵢ).

λ is estimated from the page's visits: the engine says how many of a fetch's outlinks
were not among the page's outlinks at its previous fetch (``ScheduleInput.new_links``);
over visits, λ̂ = Σ new links / Σ time observed (the maximum-likelihood rate of a
Poisson count), with old visits fading (``memory``). A list that shows only its latest
N links under-counts when more than N arrive between visits; the schedule then visits
it more often, and the count recovers.

Pages that are not hubs (fewer than ``hub_rate`` new links a day, or not yet observed
``min_visits`` times) are scheduled by ``base``; a page first seen is visited again
after ``probe`` until it has been observed, so a hub found today is known as one soon.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from recrawl.core.clock import DAY, HOUR, MINUTE
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.schedule import Change, Corpus, Decision, FetchSchedule, ScheduleInput
from recrawl.core.policy.schedules.base import LEARNED, fixed_override, next_fetch_time
from recrawl.core.policy.schedules.wrapping import FromBase

#: The key of the schedule's per-page state in ``metadata``.
STATE_KEY = "discovery"


@dataclass
class LinkEstimate:
    """One page's new-link statistics, kept in its metadata between fetches."""

    #: New links seen, and seconds observed (both fading with ``memory``).
    links: float = 0.0
    seconds: float = 0.0
    visits: float = 0.0
    #: When the last observation was made (ISO, naive UTC); None: never.
    at: str | None = None

    @classmethod
    def from_state(cls, state: Mapping[str, Any] | None) -> LinkEstimate:
        state = state or {}
        return cls(
            float(state.get("k", 0.0)),
            float(state.get("t", 0.0)),
            float(state.get("n", 0.0)),
            state.get("at"),
        )

    def to_state(self) -> dict[str, Any]:
        return {
            "k": round(self.links, 6),
            "t": round(self.seconds, 3),
            "n": round(self.visits, 6),
            "at": self.at,
        }

    def add(self, new_links: int, elapsed: float, memory: float) -> None:
        if elapsed <= 0:
            return
        if memory and self.visits >= memory:  # hubs change their pace: forget slowly
            keep = 1 - 1 / memory
            self.links *= keep
            self.seconds *= keep
            self.visits *= keep
        self.links += new_links
        self.seconds += elapsed
        self.visits += 1

    def rate(self) -> float:
        """New links per second (0 when nothing was observed)."""
        return self.links / self.seconds if self.seconds > 0 else 0.0


def delay_optimum(rates: np.ndarray, budget: float) -> float:
    """Least mean discovery delay (seconds) for ``rates`` at ``budget`` fetches per second:
    (Σ√λ)² / (2·B·Σλ) (docs/design.md §11)."""
    rates = np.asarray(rates, dtype=float)
    total = float(rates.sum())
    if total <= 0 or budget <= 0:
        return math.nan
    return float(np.sqrt(rates).sum() ** 2 / (2 * budget * total))


def solve_scale(rates: np.ndarray, budget: float, low: float, high: float) -> float:
    """The s whose intervals clip(s/√λ, low, high) spend ``budget`` fetches per second.

    Without the bounds s = Σ√λ / B; with them, bisection (the spend falls as s grows).
    """
    roots = np.sqrt(np.asarray(rates, dtype=float))
    roots = roots[roots > 0]
    if roots.size == 0 or budget <= 0:
        return math.nan
    lo, hi = low * float(roots.min()), high * float(roots.max())
    if lo <= 0:
        lo = 1e-9
    for _ in range(80):
        mid = math.sqrt(lo * hi)
        spent = float(np.sum(1.0 / np.clip(mid / roots, low, high)))
        if spent > budget:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


@dataclass(kw_only=True)
class DiscoverySchedule(FromBase):
    """Hubs (pages that keep gaining links) every T ∝ 1/√(new links a day); others by base.

    Spends ``budget`` fetches a day per hub on average, split so that the mean delay
    before a new page is first seen is least (docs/design.md §11); a page gaining fewer than
    ``hub_rate`` new links a day is no hub and keeps the ``base`` schedule.
    """

    base: FetchSchedule
    #: Fetches a day per hub, on average over the project's hubs.
    budget: float = 1.0
    #: New links a day that make a page a hub.
    hub_rate: float = 0.01
    hub_min: float = 10 * MINUTE
    hub_max: float = 30 * DAY
    #: A page not yet observed is fetched again after this (None: the base decides).
    probe: float | None = 6 * HOUR
    #: Observed visits (a fetch compared with the one before) before the rate is trusted.
    min_visits: int = 2
    #: Visits after which old observations fade.
    memory: float = 50.0
    #: s in T = s/√λ, learned from the project's hubs by :meth:`prepare`.
    scale: float | None = field(default=None, metadata=LEARNED)
    name = "discovery"
    needs_corpus = True
    counts_new_links = True

    def __post_init__(self) -> None:
        if self.budget <= 0:
            raise InvalidArgument(f"budget must be more than 0 fetches a day, not {self.budget}")
        if self.hub_rate < 0:
            raise InvalidArgument(f"hub_rate must not be negative, not {self.hub_rate}")
        if self.hub_max < self.hub_min:
            raise InvalidArgument("hub_min is longer than hub_max")
        if self.min_visits < 1:
            raise InvalidArgument(f"min_visits must be at least 1, not {self.min_visits}")

    # -- hubs ------------------------------------------------------------------------------

    def prepare(self, corpus: Corpus) -> None:
        self.base.prepare(corpus)
        rates = corpus.link_rates[np.isfinite(corpus.link_rates)]
        hubs = rates[rates >= self.hub_rate / DAY]
        hubs = hubs[hubs > 0]
        if hubs.size:
            self.scale = solve_scale(
                hubs, self.budget * hubs.size / DAY, self.hub_min, self.hub_max
            )

    def current_scale(self) -> float:
        """s in T = s/√λ: the project's, or until known one that gives a hub of one new
        link a day ``budget`` fetches a day."""
        if self.scale is not None and math.isfinite(self.scale):
            return self.scale
        return math.sqrt(DAY) / self.budget

    def hub_intervals(self, rates: np.ndarray, host: str = "") -> np.ndarray:
        """Intervals of hubs with these new-link rates (per second), on ``host``: within
        hub_min..hub_max, and within the bounds the base keeps for the host (``min@HOST``:
        a hub is visited no more often than its site's pages are allowed to be)."""
        with np.errstate(divide="ignore"):
            raw = self.current_scale() / np.sqrt(np.asarray(rates, dtype=float))
        intervals: np.ndarray = np.clip(raw, self.hub_min, self.hub_max)
        return self._bounded(intervals, host)

    def probe_interval(self, host: str = "") -> float | None:
        """When a page not yet observed on ``host`` is fetched again (None: the base's)."""
        if self.probe is None:
            return None
        return float(self._bounded(np.array([self.probe]), host)[0])

    def _bounded(self, intervals: np.ndarray, host: str) -> np.ndarray:
        low, high = self.base.bounds(host)
        bounded: np.ndarray = np.maximum(intervals, low)
        if high is not None:
            bounded = np.minimum(bounded, high)
        return bounded

    def is_hub(self, estimate: LinkEstimate) -> bool:
        return estimate.visits >= self.min_visits and estimate.rate() >= self.hub_rate / DAY

    def observe(self, page: ScheduleInput) -> LinkEstimate:
        """The page's estimate with this fetch's new links counted (when the engine had a
        previous set of links to compare with)."""
        state = page.metadata.get(STATE_KEY) if page.metadata else None
        estimate = LinkEstimate.from_state(state)
        if page.new_links is None:
            return estimate
        since = datetime.fromisoformat(estimate.at) if estimate.at else page.last_fetched
        if since is not None:
            estimate.add(page.new_links, (page.fetched_at - since).total_seconds(), self.memory)
        estimate.at = page.fetched_at.isoformat()
        return estimate

    def after_fetch(self, page: ScheduleInput, change: Change) -> Decision:
        estimate = self.observe(page)
        state = {STATE_KEY: estimate.to_state()}
        rate = estimate.rate() if estimate.visits >= self.min_visits else None
        if fixed_override(page) is None and self.is_hub(estimate):
            interval = float(self.hub_intervals(np.array([estimate.rate()]), page.host)[0])
            return Decision(
                interval,
                next_fetch_time(page.fetched_at, interval, page.fetched_at),
                state,
                link_rate=rate,
            )
        decision = self.base.after_fetch(page, change)
        metadata = {**(decision.metadata or {}), **state}
        interval, due = decision.interval, decision.next_fetch
        probe = self.probe_interval(page.host)
        if (
            probe is not None
            and estimate.visits < self.min_visits
            and interval > probe
            and fixed_override(page) is None
        ):
            interval = probe
            due = next_fetch_time(page.fetched_at, interval, page.fetched_at)
        return Decision(interval, due, metadata, decision.change_rate, link_rate=rate)
