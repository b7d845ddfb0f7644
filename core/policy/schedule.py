"""Fetch schedules (DESIGN.md §4): the policy that sets each page's next fetch.

A schedule is a plug-in: anything with the :class:`FetchSchedule` methods, registered by
name in :data:`SCHEDULES`. The engine hands it a :class:`ScheduleInput` snapshot of the
page at each fetch and stores the :class:`Decision` it returns. All intervals are float
seconds; a decision never puts the next fetch in the past (NUTCH-1564).

Schedules whose decisions depend on the whole project (``change-rate``'s budget split,
``score-tiers``' percentiles) get corpus figures through ``prepare(corpus)`` before a
round; the simulator calls the same method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

import numpy as np
from recrawl.core.errors import InvalidArgument

MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0


class Change(StrEnum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    UNKNOWN = "unknown"


CHANGE_CODES = {Change.CHANGED: 1, Change.UNCHANGED: 0, Change.UNKNOWN: -1}


@dataclass(frozen=True, kw_only=True)
class ScheduleInput:
    """What a schedule may know about one page at one fetch (times naive UTC)."""

    url: str = ""
    host: str = ""
    interval: float
    fetched_at: datetime
    last_fetched: datetime | None = None
    #: When the crawler last saw the content change, *before* this fetch.
    content_changed_at: datetime | None = None
    prev_content_changed_at: datetime | None = None
    score: float = 1.0
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Decision:
    interval: float
    next_fetch: datetime
    #: Per-page schedule state to keep in ``metadata`` (e.g. change-rate statistics).
    metadata: dict[str, Any] | None = None
    #: The page's estimated change rate (changes per second), when the schedule has one.
    change_rate: float | None = None


@dataclass(frozen=True)
class Corpus:
    """Project-wide figures some schedules need: estimated change rates and scores."""

    rates: np.ndarray
    scores: np.ndarray


class FetchSchedule(Protocol):
    name: str

    def initial_interval(self) -> float:
        """Interval of a page when it is first discovered."""
        ...

    def after_fetch(self, page: ScheduleInput, change: Change) -> Decision:
        """After a successful fetch whose content change was ``change``."""
        ...

    def after_gone(self, page: ScheduleInput) -> Decision:
        """After a 404/410 (or too many failures)."""
        ...

    def after_retry(self, page: ScheduleInput) -> Decision:
        """After a failed fetch that will be tried again."""
        ...

    def should_fetch(self, next_fetch: datetime, now: datetime) -> bool:
        """Whether a page with this next-fetch time is due at ``now``."""
        ...

    def force_refetch(self, page: ScheduleInput, now: datetime) -> Decision:
        """Make a page due now (the user asked), keeping its interval sane."""
        ...

    def bounds(self, host: str) -> tuple[float, float | None]:
        """The interval bounds that apply to ``host`` (for plots and checks)."""
        ...

    def prepare(self, corpus: Corpus) -> None:
        """Learn project-wide figures before a round (no-op for most schedules)."""
        ...


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
    #: Whether ``prepare`` needs the project's figures before each round.
    needs_corpus = False
    #: Whether a failed fetch moves the interval as "unchanged" would (aronsson).
    failure_is_unchanged = False

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
        return np.maximum(np.minimum(interval, high if high is not None else np.inf), max(low, 1.0))

    def adapt(self, page: ScheduleInput, change: Change) -> tuple[float, datetime, dict | None]:
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

    def rate_of(self, state: dict | None) -> float | None:
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


@dataclass(kw_only=True)
class FixedSchedule(BaseSchedule):
    """The interval never changes (default 30 days)."""

    initial: float = 30 * DAY
    name = "fixed"

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


# -- change-rate --------------------------------------------------------------------------


def freshness(rate: float | np.ndarray, interval: float | np.ndarray) -> Any:
    """Expected fraction of time a copy refreshed every ``interval`` equals the page."""
    x = np.asarray(rate, dtype=float) * np.asarray(interval, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(x > 1e-9, -np.expm1(-x) / np.where(x > 1e-9, x, 1.0), 1.0 - x / 2)
    return value if value.ndim else float(value)


def _solve_increasing(func: Any, target: np.ndarray, high: float = 60.0) -> np.ndarray:
    """Vectorised bisection for ``func(x) = target`` with func increasing on [0, high]."""
    low = np.zeros_like(target)
    top = np.full_like(target, high)
    for _ in range(60):
        mid = (low + top) / 2
        below = func(mid) < target
        low = np.where(below, mid, low)
        top = np.where(below, top, mid)
    return (low + top) / 2


def x_for_freshness(target: float) -> float:
    """The λ·I at which a page's freshness is ``target``."""
    return float(_solve_increasing(lambda x: -freshness(1.0, x), np.array(-target))[()])


def _marginal(x: np.ndarray) -> np.ndarray:
    # d(freshness)/d(fetch frequency) times λ, as a function of x = λ·I:
    # 1 − (1 + x)·e^(−x); Cho & Garcia-Molina's optimum equalises it across pages.
    return -np.expm1(-x) - x * np.exp(-x)


# g(x) = 1 − (1 + x)·e^(−x) tabulated on a geometric grid, inverted by interpolation:
# the optimal split is recomputed for whole corpora, so it must be cheap.
_X_GRID = np.concatenate([[0.0], np.geomspace(1e-6, 60.0, 4000)])
_G_GRID = _marginal(_X_GRID)


def optimal_intervals(rates: np.ndarray, mu: float, low: float, high: float) -> np.ndarray:
    """Intervals of the optimal split for Lagrange multiplier ``mu`` (Cho & Garcia-Molina).

    A page whose marginal freshness per fetch can never reach ``mu`` (it changes too
    often to be worth it) gets the longest interval.
    """
    rates = np.asarray(rates, dtype=float)
    demand = mu * rates
    x = np.interp(demand, _G_GRID, _X_GRID)
    with np.errstate(divide="ignore", invalid="ignore"):
        intervals = np.where((rates > 0) & (demand < _G_GRID[-1]), x / rates, high)
    return np.clip(intervals, low, high)


def solve_mu(rates: np.ndarray, target: float, low: float, high: float) -> float:
    """The multiplier whose optimal split gives the project mean freshness ``target``."""
    rates = np.asarray(rates, dtype=float)
    if rates.size == 0:
        return 0.0
    lo, hi = 1e-3, 1e12
    for _ in range(40):
        mu = math.sqrt(lo * hi)
        mean = float(np.mean(freshness(rates, optimal_intervals(rates, mu, low, high))))
        if mean > target:
            lo = mu
        else:
            hi = mu
    return math.sqrt(lo * hi)


RATE_BINS = 16


def rate_bin(elapsed: np.ndarray | float) -> np.ndarray:
    """Log₄ bins of visit intervals: 4⁴ s (4 min) and under in bin 0, 4¹⁹ s (8,700 y) up."""
    value = np.log(np.maximum(np.asarray(elapsed, dtype=float), 1.0)) / math.log(4)
    return np.clip(np.floor(value) - 4, 0, RATE_BINS - 1).astype(int)


def mle_rates(
    counts: np.ndarray,
    sums: np.ndarray,
    unchanged: np.ndarray,
    visits: np.ndarray,
    low: np.ndarray | None = None,
    high: np.ndarray | None = None,
    iterations: int = 90,
) -> np.ndarray:
    """Cho & Garcia-Molina's maximum-likelihood change rates for irregular visits.

    With changed visits after intervals tᵢ and unchanged ones after tⱼ, λ solves
    Σ tᵢ / (e^(λtᵢ) − 1) = Σ tⱼ. Changed intervals come binned (``counts``, ``sums``:
    shape pages × bins) so the state stays small however many visits; half a changed
    and half an unchanged pseudo-visit of the mean interval keep λ finite when a page
    always or never changed. Bisection on log λ between ``low`` and ``high``.
    """
    if len(visits) == 1:  # one page (a crawl's fetch, the GUI's curves): no array overhead
        one = _mle_rate_one(
            counts[0], sums[0], float(unchanged[0]), float(visits[0]),
            None if low is None else float(low[0]),
            None if high is None else float(high[0]),
            iterations,
        )  # fmt: skip
        return np.array([one])
    visits = np.maximum(visits, 1e-9)
    mean_t = (sums.sum(axis=1) + unchanged) / visits
    used = np.flatnonzero(counts.any(axis=0))  # most bins are empty for every page
    counts, sums = counts[:, used], sums[:, used]
    mids = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), 1.0)
    target = unchanged + 0.5 * mean_t
    lo = np.log(np.full(len(visits), 1e-13) if low is None else low)
    hi = np.log(np.full(len(visits), 1e3) if high is None else high)
    for _ in range(iterations):
        mid = (lo + hi) / 2
        lam = np.exp(mid)[:, None]
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            terms = np.where(counts > 0, counts * mids / np.expm1(lam * mids), 0.0)
            pseudo = 0.5 * mean_t / np.expm1(lam[:, 0] * mean_t)
        above = terms.sum(axis=1) + pseudo > target  # λ still too small
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return np.exp((lo + hi) / 2)


def _mle_rate_one(
    counts: np.ndarray,
    sums: np.ndarray,
    unchanged: float,
    visits: float,
    low: float | None,
    high: float | None,
    iterations: int,
) -> float:
    """:func:`mle_rates` for one page, in plain floats (the same bisection, 50x faster)."""
    visits = max(visits, 1e-9)
    used = np.flatnonzero(counts)
    bins = [(float(counts[b]), float(sums[b]) / float(counts[b])) for b in used]
    mean_t = (float(sums.sum()) + unchanged) / visits
    target = unchanged + 0.5 * mean_t
    lo = math.log(1e-13 if low is None else low)
    hi = math.log(1e3 if high is None else high)

    def term(weight: float, t: float, lam: float) -> float:
        x = lam * t
        if x > 700.0:  # e^x overflows: the term is 0, as numpy's inf divisor makes it
            return 0.0
        denominator = math.expm1(x)
        if denominator == 0.0:
            return math.inf if weight * t > 0 else math.nan
        return weight * t / denominator

    for _ in range(iterations):
        mid = (lo + hi) / 2
        lam = math.exp(mid)
        total = sum(term(count, t, lam) for count, t in bins) + term(0.5, mean_t, lam)
        if total > target:  # λ still too small (a NaN compares False, as in numpy)
            lo = mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)


class RateEstimate:
    """One page's change-rate statistics, kept in its metadata between fetches."""

    def __init__(self, state: dict | None = None) -> None:
        state = state or {}
        self.visits = float(state.get("n", 0))
        self.unchanged = float(state.get("u", 0.0))
        self.counts = np.zeros(RATE_BINS)
        self.sums = np.zeros(RATE_BINS)
        for key, (count, total) in state.get("c", {}).items():
            self.counts[int(key)] = count
            self.sums[int(key)] = total

    def to_state(self) -> dict:
        return {
            "n": round(self.visits, 6),
            "u": round(self.unchanged, 3),
            "c": {
                str(b): [round(float(self.counts[b]), 6), round(float(self.sums[b]), 3)]
                for b in np.flatnonzero(self.counts)
            },
        }

    def add(self, elapsed: float, changed: bool, memory: float) -> None:
        if elapsed <= 0:
            return
        if memory and self.visits >= memory:  # forget slowly: pages change their habits
            keep = 1 - 1 / memory
            self.visits *= keep
            self.unchanged *= keep
            self.counts *= keep
            self.sums *= keep
        self.visits += 1
        if changed:
            b = int(rate_bin(elapsed))
            self.counts[b] += 1
            self.sums[b] += elapsed
        else:
            self.unchanged += elapsed

    def rate(self) -> float:
        if self.visits <= 0:
            return 0.0
        return float(
            mle_rates(
                self.counts[None, :], self.sums[None, :],
                np.array([self.unchanged]), np.array([self.visits]),
            )[0]
        )  # fmt: skip


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
    mu: float | None = None
    name = "change-rate"

    @property
    def needs_corpus(self) -> bool:  # type: ignore[override]
        return self.policy == "optimal"

    def __post_init__(self) -> None:
        if not 0 < self.target < 1:
            raise InvalidArgument(f"target must be between 0 and 1, not {self.target}")
        if self.policy not in ("optimal", "uniform"):
            raise InvalidArgument(f"policy must be optimal or uniform, not {self.policy!r}")
        self._x_target = x_for_freshness(self.target)

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
        return self._x_target / rate

    def adapt(self, page: ScheduleInput, change: Change) -> tuple[float, datetime, dict | None]:
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

    def rate_of(self, state: dict | None) -> float | None:
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


# -- score tiers --------------------------------------------------------------------------


@dataclass(kw_only=True)
class ScoreTiers:
    """Wraps a schedule: the best-scored pages are never left alone for long.

    Pages in the top 1 % by score get at most ``top1`` (1 day), the top 10 % at most
    ``top10`` (7 days); everything else is the wrapped schedule's decision.
    """

    base: BaseSchedule
    top1: float = DAY
    top10: float = 7 * DAY
    cut1: float = math.inf
    cut10: float = math.inf
    name = "score-tiers"
    needs_corpus = True

    def __getattr__(self, item: str) -> Any:
        # everything else (bounds, should_fetch, force_refetch...) is the base's
        if item == "base":
            raise AttributeError(item)
        return getattr(self.base, item)

    def prepare(self, corpus: Corpus) -> None:
        self.base.prepare(corpus)
        if corpus.scores.size:
            self.cut1 = _tier_cut(corpus.scores, 0.01)
            self.cut10 = _tier_cut(corpus.scores, 0.10)

    def _cap(self, page: ScheduleInput, decision: Decision) -> Decision:
        cap = (
            self.top1
            if page.score >= self.cut1
            else self.top10
            if page.score >= self.cut10
            else None
        )
        if cap is None or decision.interval <= cap or fixed_override(page) is not None:
            return decision
        return Decision(
            cap,
            min(decision.next_fetch, next_fetch_time(page.fetched_at, cap, page.fetched_at)),
            decision.metadata,
            decision.change_rate,
        )

    def initial_interval(self) -> float:
        return self.base.initial_interval()

    def after_fetch(self, page: ScheduleInput, change: Change) -> Decision:
        return self._cap(page, self.base.after_fetch(page, change))

    def after_gone(self, page: ScheduleInput) -> Decision:
        return self.base.after_gone(page)

    def after_retry(self, page: ScheduleInput) -> Decision:
        return self.base.after_retry(page)


def _tier_cut(scores: np.ndarray, share: float) -> float:
    """The lowest score inside the top ``share`` of pages, by rank.

    Ties at the boundary are left out when including them would overfill the tier (with
    in-link counts most pages tie), and a page scoring nothing is never in a tier.
    """
    ranked = np.sort(scores)[::-1]
    k = max(1, math.ceil(share * len(ranked)))
    cut = float(ranked[k - 1])
    if np.count_nonzero(ranked >= cut) > k:  # the tie spills over: only strictly above
        above = ranked[ranked > cut]
        cut = float(above[-1]) if above.size else math.inf
    return cut if cut > 0 else math.inf


SCHEDULES: dict[str, type] = {
    "fixed": FixedSchedule,
    "aronsson": AronssonSchedule,
    "nutch-adaptive": NutchAdaptiveSchedule,
    "change-rate": ChangeRateSchedule,
}
DEFAULT_SCHEDULE = "aronsson"


def schedule_names() -> list[str]:
    return [*SCHEDULES, "score-tiers"]


def make_schedule(name: str = DEFAULT_SCHEDULE, **params: Any) -> Any:
    """Build a schedule by name; ``score-tiers`` wraps ``base`` (default aronsson)."""
    if name == "score-tiers":
        tier_keys = {"top1", "top10"}
        tiers = {k: float(v) for k, v in params.items() if k in tier_keys}
        base_name = params.get("base", DEFAULT_SCHEDULE)
        rest = {k: v for k, v in params.items() if k not in tier_keys | {"base"}}
        return ScoreTiers(base=make_schedule(base_name, **rest), **tiers)
    try:
        cls = SCHEDULES[name]
    except KeyError:
        raise InvalidArgument(
            f"unknown schedule {name!r} (known: {', '.join(schedule_names())})"
        ) from None
    known = {f.name for f in fields(cls)} - {"mu"}
    unknown = set(params) - known
    if unknown:
        raise InvalidArgument(
            f"schedule {name!r} has no parameter {', '.join(sorted(unknown))} "
            f"(it has: {', '.join(sorted(known))})"
        )
    return cls(**params)
