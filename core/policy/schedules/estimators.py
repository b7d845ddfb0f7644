"""Change-rate estimation and the freshness it buys (Cho & Garcia-Molina), on arrays.

A page whose content changes as a Poisson process of rate λ, refreshed every I seconds,
is fresh a share ``(1 − e^(−λI))/(λI)`` of the time (:func:`freshness`). The
``change-rate`` schedule estimates λ from irregular visits (:func:`mle_rates`, kept per
page as a :class:`RateEstimate`) and picks the interval; :func:`optimal_intervals` is the
budget split that maximises mean freshness. The simulator uses the same functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np


def freshness(rate: float | np.ndarray, interval: float | np.ndarray) -> np.ndarray:
    """Expected fraction of time a copy refreshed every ``interval`` equals the page."""
    x = np.asarray(rate, dtype=float) * np.asarray(interval, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value: np.ndarray = np.where(
            x > 1e-9, -np.expm1(-x) / np.where(x > 1e-9, x, 1.0), 1.0 - x / 2
        )
    return value


def _solve_increasing(
    func: Callable[[np.ndarray], np.ndarray], target: np.ndarray, high: float = 60.0
) -> np.ndarray:
    """Vectorised bisection for ``func(x) = target`` with func increasing on [0, high]."""
    low = np.zeros_like(target)
    top = np.full_like(target, high)
    for _ in range(60):
        mid = (low + top) / 2
        below = func(mid) < target
        low = np.where(below, mid, low)
        top = np.where(below, top, mid)
    root: np.ndarray = (low + top) / 2
    return root


def x_for_freshness(target: float) -> float:
    """The λ·I at which a page's freshness is ``target``."""
    return float(_solve_increasing(lambda x: -freshness(1.0, x), np.array(-target))[()])


def _marginal(x: np.ndarray) -> np.ndarray:
    # d(freshness)/d(fetch frequency) times λ, as a function of x = λ·I:
    # 1 − (1 + x)·e^(−x); Cho & Garcia-Molina's optimum equalises it across pages.
    gain: np.ndarray = -np.expm1(-x) - x * np.exp(-x)
    return gain


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
    bins: np.ndarray = np.clip(np.floor(value) - 4, 0, RATE_BINS - 1).astype(int)
    return bins


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
    rates: np.ndarray = np.exp((lo + hi) / 2)
    return rates


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

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        state = state or {}
        self.visits = float(state.get("n", 0))
        self.unchanged = float(state.get("u", 0.0))
        self.counts = np.zeros(RATE_BINS)
        self.sums = np.zeros(RATE_BINS)
        for key, (count, total) in state.get("c", {}).items():
            self.counts[int(key)] = count
            self.sums[int(key)] = total

    def to_state(self) -> dict[str, Any]:
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
