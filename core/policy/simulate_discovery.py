"""Discovery simulations (docs/design.md §11 ``recrawl simulate --discovery``).

N hub pages gain new links as Poisson processes (rates spread log-normally from hours to
months, as :func:`~recrawl.core.policy.simulate.corpus_rates` spreads change rates);
each schedule visits them for D days and the mean discovery delay is measured: a new link
that appeared at time a and is first seen at the next visit f waited f − a. A visit sees
how many links are new since the last one; schedules that only know "changed" (aronsson,
change-rate, …, as under the ``outlinks`` signature) see whether any was. The reference
is the least mean delay at the same number of fetches, (Σ√λ)² / (2·B·Σλ).

Every hub's links are known at day 0 (its first fetch); its next visit is one initial
interval later (for ``discovery``, one ``probe``). A link that appears before the end is
counted with the delay to the visit that will see it, even if that visit is later.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from recrawl.core.clock import DAY, HOUR
from recrawl.core.policy.schedule import Corpus, FetchSchedule
from recrawl.core.policy.schedules import (
    BaseSchedule,
    ChangeRateSchedule,
    DiscoverySchedule,
    ScoreTiers,
)
from recrawl.core.policy.simulate import RateTable

#: How often schedules that need the corpus learn it again (as a crawl does each round).
PREPARE_EVERY = 7 * DAY


@dataclass(frozen=True)
class DiscoveryResult:
    schedule: str
    fetches_per_page_per_day: float
    mean_discovery_delay_hours: float
    #: The least mean delay at this schedule's own budget.
    optimal_delay_hours: float
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule,
            "fetches_per_page_per_day": round(self.fetches_per_page_per_day, 4),
            "mean_discovery_delay_hours": round(self.mean_discovery_delay_hours, 3),
            "optimal_delay_hours": round(self.optimal_delay_hours, 3),
        }


def optimal_delay(rates: np.ndarray, fetches_per_page_per_day: float) -> float:
    """The least mean discovery delay (seconds) at this budget (docs/design.md §11)."""
    from recrawl.core.policy.schedules.discovery import delay_optimum

    return delay_optimum(rates, fetches_per_page_per_day * len(rates) / DAY)


class _Rule:
    """A schedule's rule on arrays: each visit's new-link count to the next interval."""

    def prepare(self) -> None:
        return None

    def step(
        self, idx: np.ndarray, interval: np.ndarray, when: np.ndarray, gap: np.ndarray,
        links: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """New intervals of the pages ``idx`` visited now, and their waits from ``when``
        (shorter when the rule counts from before the visit: nutch's sync_delta)."""
        raise NotImplementedError


class _FormulaRule(_Rule):
    """fixed, aronsson, nutch-adaptive: a change is a visit that found a new link."""

    def __init__(self, schedule: BaseSchedule, n: int) -> None:
        self.schedule = schedule
        self.modified = np.full(n, np.nan)

    def step(
        self, idx: np.ndarray, interval: np.ndarray, when: np.ndarray, gap: np.ndarray,
        links: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        changed = links > 0
        new, reference = self.schedule.step(interval, changed.astype(int), when, self.modified[idx])
        self.modified[idx] = np.where(changed, when, self.modified[idx])
        new = self.schedule.clamp_many(new)
        return new, np.maximum(reference + new, when) - when


class _RateRule(_Rule):
    """change-rate: the probability of "changed" is that of one new link or more."""

    def __init__(self, schedule: ChangeRateSchedule, n: int) -> None:
        self.schedule = schedule
        self.table = RateTable(n, schedule)

    def prepare(self) -> None:
        if self.schedule.needs_corpus:
            self.schedule.prepare(Corpus(self.table.known_rates(), np.empty(0)))

    def step(
        self, idx: np.ndarray, interval: np.ndarray, when: np.ndarray, gap: np.ndarray,
        links: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        new = self.table.step(idx, interval, gap, links > 0)
        return new, new


class _DiscoveryRule(_Rule):
    """discovery: :class:`~.schedules.discovery.LinkEstimate` of every page, as arrays."""

    def __init__(self, schedule: DiscoverySchedule, n: int) -> None:
        self.schedule = schedule
        self.base = rule_for(schedule.base, n)
        self.links = np.zeros(n)
        self.seconds = np.zeros(n)
        self.visits = np.zeros(n)

    def rates(self, idx: np.ndarray | slice) -> np.ndarray:
        seconds = self.seconds[idx]
        rates: np.ndarray = np.where(
            seconds > 0, self.links[idx] / np.where(seconds > 0, seconds, 1.0), 0.0
        )
        return rates

    def prepare(self) -> None:
        self.base.prepare()
        known = self.visits >= self.schedule.min_visits
        self.schedule.prepare(
            Corpus(np.empty(0), np.empty(0), link_rates=self.rates(slice(None))[known])
        )

    def step(
        self, idx: np.ndarray, interval: np.ndarray, when: np.ndarray, gap: np.ndarray,
        links: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        schedule = self.schedule
        memory = schedule.memory
        keep = np.where(self.visits[idx] >= memory, 1 - 1 / memory, 1.0) if memory else 1.0
        self.links[idx] = self.links[idx] * keep + links
        self.seconds[idx] = self.seconds[idx] * keep + gap
        self.visits[idx] = self.visits[idx] * keep + 1
        rates = self.rates(idx)
        observed = self.visits[idx] >= schedule.min_visits
        hub = observed & (rates >= schedule.hub_rate / DAY)
        # the base keeps learning from every visit, as in a crawl it sees every fetch
        new, wait = self.base.step(idx, interval, when, gap, links)
        probe = schedule.probe_interval()
        if probe is not None:
            new = np.where(observed, new, np.minimum(new, probe))
            wait = np.where(observed, wait, np.minimum(wait, probe))
        if hub.any():
            new[hub] = wait[hub] = schedule.hub_intervals(rates[hub])
        return new, wait


def rule_for(schedule: FetchSchedule, n: int) -> _Rule:
    """The array rule of a built-in schedule (score-tiers runs as its base: no scores)."""
    while isinstance(schedule, ScoreTiers):
        schedule = schedule.base
    if isinstance(schedule, DiscoverySchedule):
        return _DiscoveryRule(schedule, n)
    if isinstance(schedule, ChangeRateSchedule):
        return _RateRule(schedule, n)
    if isinstance(schedule, BaseSchedule):
        return _FormulaRule(schedule, n)
    raise TypeError(f"schedule {schedule.name!r} has no array rule to simulate a corpus with")


def first_interval(schedule: FetchSchedule) -> float:
    """The wait after the first fetch (day 0): discovery probes a page it has not observed."""
    while isinstance(schedule, ScoreTiers):
        schedule = schedule.base
    probe = schedule.probe_interval() if isinstance(schedule, DiscoverySchedule) else None
    if probe is not None:
        return min(probe, schedule.initial_interval())
    return schedule.initial_interval()


def simulate_discovery(
    schedule: FetchSchedule,
    rates: np.ndarray,
    days: float,
    *,
    seed: int = 0,
    window: float = HOUR,
    label: str | None = None,
) -> DiscoveryResult:
    """Run ``schedule`` over hubs gaining new links at ``rates`` (per second) for ``days``.

    Time advances in ``window`` steps; a page due in a window is visited at its own due
    time. A visit after a gap g sees k ~ Poisson(λ·g) new links, which waited g/2 each
    on average (arrival times are uniform given k).
    """
    started = time.perf_counter()
    rng = np.random.default_rng(seed + 2)
    n = len(rates)
    horizon = days * DAY
    rule = rule_for(schedule, n)
    interval = np.full(n, float(schedule.initial_interval()))
    last = np.zeros(n)
    next_fetch = np.full(n, first_interval(schedule))
    fetches = 0
    found = 0.0
    waited = 0.0
    next_prepare = 0.0
    start = 0.0
    while start < horizon:
        end = min(start + window, horizon)
        if start >= next_prepare:
            rule.prepare()
            next_prepare = start + PREPARE_EVERY
        due = np.flatnonzero(next_fetch < end)
        if due.size:
            when = np.maximum(next_fetch[due], start)
            gap = when - last[due]
            links = rng.poisson(rates[due] * gap).astype(float)
            fetches += due.size
            found += float(links.sum())
            waited += float(np.sum(links * gap / 2))
            interval[due], wait = rule.step(due, interval[due], when, gap, links)
            last[due] = when
            next_fetch[due] = when + np.maximum(wait, 1.0)
        start = end
    # links that appear between the last visit and the end wait for the next visit
    links = rng.poisson(rates * (horizon - last)).astype(float)
    found += float(links.sum())
    waited += float(np.sum(links * (next_fetch - (last + horizon) / 2)))
    per_day = fetches / n / days
    return DiscoveryResult(
        label or schedule.name,
        per_day,
        waited / found / HOUR if found else float("nan"),
        optimal_delay(rates, per_day) / HOUR,
        time.perf_counter() - started,
    )


# -- the Schedule panel's figures -------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleFigures:
    """A schedule's freshness and discovery delay on small simulated corpora, each with
    the optimum at the schedule's own cost there."""

    pages: int
    days: float
    fetches_per_page_per_day: float
    freshness: float
    optimal_freshness: float
    hub_fetches_per_page_per_day: float
    discovery_delay_hours: float
    optimal_delay_hours: float


def schedule_figures(
    name: str, params: dict[str, Any], days: float, pages: int = 200, seed: int = 0
) -> ScheduleFigures:
    """``name(**params)`` on ``pages`` pages (freshness) and ``pages`` hubs (discovery
    delay) over ``days``: what ``recrawl simulate --corpus``/``--discovery`` print."""
    from recrawl.core.policy.schedules import make_schedule
    from recrawl.core.policy.simulate import corpus_rates, optimum, simulate_corpus

    rates = corpus_rates(pages, seed)
    fresh = simulate_corpus(make_schedule(name, **params), rates, days, seed=seed)
    best = optimum(rates, fresh.fetches_per_page_per_day, days)
    found = simulate_discovery(make_schedule(name, **params), rates, days, seed=seed)
    return ScheduleFigures(
        pages,
        days,
        fresh.fetches_per_page_per_day,
        fresh.freshness,
        best.freshness,
        found.fetches_per_page_per_day,
        found.mean_discovery_delay_hours,
        found.optimal_delay_hours,
    )
