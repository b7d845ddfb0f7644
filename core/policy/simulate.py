"""Schedule simulations (docs/design.md §8 ``recrawl simulate``).

- :func:`simulate_page`: one page that changes every DUR (or on listed days), fetched by a
  schedule; one row per fetch, the table a user would draw by hand to explain it. It
  runs the schedule's own per-page code, exactly as a crawl does.
- :func:`simulate_corpus`: N pages with Poisson change rates spread log-normally from
  hours to months, each schedule run over D days on whole arrays at once (numpy), and
  the best freshness any schedule could reach with the same number of fetches if it knew
  the rates (Cho & Garcia-Molina's optimal allocation) as the reference line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from recrawl.core.clock import DAY, HOUR
from recrawl.core.policy.schedule import Change, Corpus, FetchSchedule, ScheduleInput
from recrawl.core.policy.schedules import (
    BaseSchedule,
    ChangeRateSchedule,
    DiscoverySchedule,
    ScoreTiers,
    make_schedule,
)
from recrawl.core.policy.schedules.estimators import (
    RATE_BINS,
    freshness,
    mle_rates,
    optimal_intervals,
    rate_bin,
)

EPOCH = datetime(2000, 1, 1)


# -- one page -------------------------------------------------------------------------------


def simulate_page(
    schedule: FetchSchedule,
    *,
    change_every: float | None = None,
    change_at: Sequence[float] | None = None,
    initial_interval: float | None = None,
    first_fetch: float = 0.0,
    until: float = 365 * DAY,
) -> list[dict[str, Any]]:
    """Fetch one page from ``first_fetch`` to ``until`` (seconds); one row per fetch.

    Changes happen at 0, DUR, 2·DUR, … (``change_every``) or at ``change_at``. The page
    was last fetched one initial interval before the first fetch, so a change since then
    counts as changed.
    """
    if (change_every is None) == (change_at is None):
        raise ValueError("give change_every or change_at")
    if change_every is not None and change_every <= 0:
        raise ValueError("change_every must be positive")
    interval = initial_interval or schedule.initial_interval()
    changes = (
        np.arange(0.0, until + change_every, change_every)
        if change_every is not None
        else np.sort(np.asarray(change_at, dtype=float))
    )
    rows: list[dict[str, Any]] = []
    now = first_fetch
    last = first_fetch - interval
    detected: float | None = None
    metadata: dict[str, Any] = {}
    while now <= until and len(rows) < 100_000:
        since_last = changes[(changes > last) & (changes <= now)]
        past = changes[changes <= now]
        changed = since_last.size > 0
        page = ScheduleInput(
            interval=interval,
            fetched_at=EPOCH + timedelta(seconds=now),
            last_fetched=EPOCH + timedelta(seconds=last),
            content_changed_at=EPOCH + timedelta(seconds=detected)
            if detected is not None
            else None,
            metadata=metadata,
            new_links=int(since_last.size),  # each change a new link, for ``discovery``
        )
        decision = schedule.after_fetch(page, Change.CHANGED if changed else Change.UNCHANGED)
        rows.append(
            {
                "day": round(now / DAY, 4),
                "changed": changed,
                "since_change_days": round((now - past[-1]) / DAY, 4) if past.size else None,
                "interval_before_days": round(interval / DAY, 4),
                "interval_after_days": round(decision.interval / DAY, 4),
            }
        )
        if decision.metadata:
            metadata = {**metadata, **decision.metadata}
        if changed:
            detected = now
        last, interval = now, decision.interval
        now = max((decision.next_fetch - EPOCH).total_seconds(), now + 1.0)
    return rows


# -- a corpus -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusResult:
    schedule: str
    fetches_per_page_per_day: float
    freshness: float
    mean_staleness_hours: float
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule,
            "fetches_per_page_per_day": round(self.fetches_per_page_per_day, 4),
            "freshness": round(self.freshness, 4),
            "mean_staleness_hours": round(self.mean_staleness_hours, 2),
        }


def corpus_rates(n: int, seed: int = 0) -> np.ndarray:
    """Poisson change rates (per second): mean time between changes log-normal around
    two days, from a few hours to a few months for the middle 95 % of pages."""
    rng = np.random.default_rng(seed)
    mean_gap = np.exp(rng.normal(math.log(2 * DAY), 1.7, n))
    return 1.0 / mean_gap


def simulate_corpus(
    schedule: FetchSchedule,
    rates: np.ndarray,
    days: float,
    *,
    seed: int = 0,
    window: float = HOUR,
    label: str | None = None,
) -> CorpusResult:
    """Run ``schedule`` over pages with the given change rates for ``days``.

    Time advances in ``window`` steps; every page due in a window is fetched at its own
    due time (a page due twice in one window waits for the next). Changes are Poisson:
    after each fetch the time to the next change is drawn, which decides both what the
    next fetch sees and how long the stored copy stayed fresh.

    Scores are not simulated: ``score-tiers`` runs as its base schedule. The built-in
    schedules' array rules (:meth:`BaseSchedule.step`) make this fast; a schedule without
    one cannot be simulated on a corpus (TypeError). ``discovery`` sees each change as a
    new link (as under the ``outlinks`` signature).
    """
    import time

    started = time.perf_counter()
    rng = np.random.default_rng(seed + 1)
    n = len(rates)
    horizon = days * DAY
    base = schedule
    while isinstance(base, ScoreTiers):
        base = base.base
    links_rule = None
    if isinstance(base, DiscoverySchedule):
        from recrawl.core.policy.simulate_discovery import rule_for  # it builds on this one

        links_rule = rule_for(base, n)
    elif not isinstance(base, BaseSchedule):
        raise TypeError(f"schedule {schedule.name!r} has no array rule to simulate a corpus with")
    interval = np.full(n, float(schedule.initial_interval()))
    last = np.zeros(n)
    next_fetch = interval.copy()
    modified = np.full(n, np.nan)
    fresh = np.zeros(n)
    stale = np.zeros(n)
    fetches = np.zeros(n)
    estimator = RateTable(n, base) if isinstance(base, ChangeRateSchedule) else None
    prepare_every = 7 * DAY
    next_prepare = 0.0
    start = 0.0
    while start < horizon:
        end = min(start + window, horizon)
        if links_rule is not None and start >= next_prepare:
            links_rule.prepare()
            next_prepare = start + prepare_every
        elif estimator is not None and base.needs_corpus and start >= next_prepare:
            base.prepare(Corpus(estimator.known_rates(), np.empty(0)))
            next_prepare = start + prepare_every
        due = np.flatnonzero(next_fetch < end)
        if due.size:
            when = np.maximum(next_fetch[due], start)
            gap = when - last[due]
            first_change = rng.exponential(1.0 / rates[due])
            changed = first_change < gap
            fresh[due] += np.minimum(first_change, gap)
            stale[due] += np.where(changed, (gap - first_change) ** 2 / 2, 0.0)
            fetches[due] += 1
            code = changed.astype(int)
            if links_rule is not None:
                # the changes after the first, in the rest of the gap: Poisson too
                more = rng.poisson(rates[due] * np.maximum(gap - first_change, 0.0))
                links = np.where(changed, 1.0 + more, 0.0)
                new_interval, wait = links_rule.step(due, interval[due], when, gap, links)
                reference = when + wait - new_interval
            elif estimator is not None:
                new_interval = estimator.step(due, interval[due], gap, changed)
                reference = when
            else:
                assert isinstance(base, BaseSchedule)
                new_interval, reference = base.step(interval[due], code, when, modified[due])
                new_interval = base.clamp_many(new_interval)
            interval[due] = new_interval
            modified[due] = np.where(changed, when, modified[due])
            last[due] = when
            next_fetch[due] = np.maximum(reference + new_interval, when)
        start = end
    gap = horizon - last
    first_change = rng.exponential(1.0 / rates)
    fresh += np.minimum(first_change, gap)
    stale += np.where(first_change < gap, (gap - first_change) ** 2 / 2, 0.0)
    return CorpusResult(
        label or schedule.name,
        float(fetches.sum() / n / days),
        float(fresh.sum() / (n * horizon)),
        float(stale.sum() / (n * horizon) / HOUR),
        time.perf_counter() - started,
    )


class RateTable:
    """The :class:`~recrawl.core.policy.schedules.estimators.RateEstimate` of every page
    of a corpus, as arrays, and ``schedule``'s intervals from them."""

    def __init__(self, n: int, schedule: ChangeRateSchedule) -> None:
        self.schedule = schedule
        self.visits = np.zeros(n)
        self.unchanged = np.zeros(n)
        self.counts = np.zeros((n, RATE_BINS))
        self.sums = np.zeros((n, RATE_BINS))
        self.rate = np.full(n, np.nan)

    def known_rates(self) -> np.ndarray:
        known: np.ndarray = self.rate[
            (self.visits >= self.schedule.min_visits) & np.isfinite(self.rate)
        ]
        return known

    def step(
        self,
        idx: np.ndarray,
        interval: np.ndarray,
        gap: np.ndarray,
        changed: np.ndarray,
    ) -> np.ndarray:
        schedule = self.schedule
        memory = schedule.memory
        keep = np.where(self.visits[idx] >= memory, 1 - 1 / memory, 1.0)
        self.visits[idx] = self.visits[idx] * keep + 1
        self.unchanged[idx] = self.unchanged[idx] * keep + np.where(changed, 0.0, gap)
        self.counts[idx] *= keep[:, None]
        self.sums[idx] *= keep[:, None]
        bins = rate_bin(gap)
        hit = idx[changed]
        np.add.at(self.counts, (hit, bins[changed]), 1.0)
        np.add.at(self.sums, (hit, bins[changed]), gap[changed])
        previous = self.rate[idx]
        rate = np.empty(len(idx))
        # The estimate moves little per visit: search near the last one, and widely
        # only for pages seen for the first time.
        for warm, spread, iterations in ((True, 4.0, 10), (False, None, 90)):
            pick = np.isfinite(previous) == warm
            if not pick.any():
                continue
            rows = idx[pick]
            low = previous[pick] / spread if spread else None
            high = previous[pick] * spread if spread else None
            rate[pick] = mle_rates(
                self.counts[rows], self.sums[rows], self.unchanged[rows], self.visits[rows],
                low, high, iterations,
            )  # fmt: skip
        self.rate[idx] = rate
        trusted = self.visits[idx] >= schedule.min_visits
        low_b, high_b = schedule.bounds("")
        high_b = high_b or 365 * DAY
        if schedule.policy == "optimal" and schedule.mu is not None:
            target = optimal_intervals(rate, schedule.mu, low_b, high_b)
        else:
            target = np.clip(schedule.x_target / np.maximum(rate, 1e-300), low_b, high_b)
        intervals: np.ndarray = np.where(trusted, target, interval)
        return intervals


def optimum(rates: np.ndarray, fetches_per_page_per_day: float, days: float) -> CorpusResult:
    """Best mean freshness for this budget when the rates are known (steady state).

    Cho & Garcia-Molina's allocation: every fetched page gets the interval where one
    more fetch buys the same freshness; a page not worth any fetch within ``days`` is
    left alone (its copy from day 0 ages for the whole horizon).
    """
    horizon = days * DAY
    budget = fetches_per_page_per_day * len(rates) / DAY  # fetches per second, in all
    lo, hi = 1e-3, 1e15
    for _ in range(100):
        mu = math.sqrt(lo * hi)
        intervals = optimal_intervals(rates, mu, 1.0, horizon)
        spent = float(np.sum(np.where(intervals < horizon, 1.0 / intervals, 0.0)))
        if spent > budget:
            lo = mu
        else:
            hi = mu
    intervals = optimal_intervals(rates, hi, 1.0, horizon)
    fresh = freshness(rates, intervals)
    # mean age past the first unseen change, over a cycle of length I:
    # I/2 − 1/λ + (1 − e^(−λI)) / (λ²·I)
    age = intervals / 2 - 1 / rates + fresh / rates
    return CorpusResult(
        "optimum", fetches_per_page_per_day, float(fresh.mean()), float(age.mean() / HOUR)
    )


# -- the four reference pages ---------------------------------------------------------------

#: Pages that change hourly, daily, monthly and never (seconds between changes).
REFERENCE_PAGES: tuple[tuple[str, float | None], ...] = (
    ("changes hourly", HOUR),
    ("changes daily", DAY),
    ("changes monthly", 30 * DAY),
    ("never changes", None),
)


def reference_trajectories(
    name: str, params: dict[str, Any], until: float = 90 * DAY
) -> dict[str, list[dict[str, Any]]]:
    """:func:`simulate_page` for each of :data:`REFERENCE_PAGES`, under ``name(**params)``.

    Each page gets a schedule of its own (schedules may keep state), built here so the
    caller can pass plain values across threads.
    """
    out: dict[str, list[dict[str, Any]]] = {}
    for label, every in REFERENCE_PAGES:
        schedule = make_schedule(name, **params)
        if every is None:
            out[label] = simulate_page(schedule, change_at=[], until=until)
        else:
            out[label] = simulate_page(schedule, change_every=every, until=until)
    return out
