"""Schedule benchmark: freshness of each fetch schedule against the optimum, at equal cost.

    python bench/schedule_bench.py [--pages 10000] [--days 365] [--seed 0] [--budget F]

Simulates a corpus (``recrawl.core.policy.simulate.simulate_corpus``: Poisson change rates spread
log-normally from hours to months) under every schedule with its defaults, then again
with one knob of each schedule tuned so that all of them spend the same fetch budget B
(fetches per page per day; default: what change-rate spends at its default target 0.8).
Each row gives the schedule's freshness, mean staleness, the freshness of Cho &
Garcia-Molina's optimal allocation at the same cost (``recrawl.core.policy.simulate.optimum``) and the
ratio to it.

How the budget is matched: each knob is first swept over a coarse grid on a small corpus
(every k-th page of the full corpus sorted by change rate, so its rate distribution is
the full one's) to check that the cost moves monotonically with it and that B lies in
range; then it is bisected between the two grid points around B until the small
corpus's cost is within ``--tolerance`` of B, and the full corpus is run once with it.

Targets (exit status 1 if one fails): change-rate reaches at least 95 % of the optimal
freshness at equal cost, beats aronsson and nutch-adaptive at equal cost (against the
best-tuned knob of each), and one full simulation takes under 10 s for every schedule.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from recrawl.core.clock import DAY, HOUR, MINUTE
from recrawl.core.policy.schedules import make_schedule
from recrawl.core.policy.simulate import CorpusResult, corpus_rates, optimum, simulate_corpus

SCHEDULE_NAMES = ("fixed", "aronsson", "nutch-adaptive", "change-rate")
OPTIMUM_TARGET = 0.95
SECONDS_TARGET = 10.0
#: Relative cost differences below this count as "flat" in the monotonicity check.
FLAT = 0.005
NUTCH_INC_RATE = 0.4  # nutch-adaptive's default inc_rate, kept while the ratio moves


# -- knobs ------------------------------------------------------------------------------------


def fmt_duration(seconds: float) -> str:
    if seconds < 2 * MINUTE:
        return f"{seconds:.0f} s"
    if seconds < 2 * HOUR:
        return f"{seconds / MINUTE:.1f} min"
    if seconds < 2 * DAY:
        return f"{seconds / HOUR:.2f} h"
    return f"{seconds / DAY:.2f} d"


def fmt_number(value: float) -> str:
    return f"{value:.4g}"


@dataclass(frozen=True)
class Knob:
    """One schedule parameter that moves its fetch budget, and the grid to sweep it on."""

    schedule: str
    name: str
    grid: tuple[float, ...]
    #: Bisect on log(value) (scale parameters) rather than on value.
    log: bool
    params: Callable[[float], dict[str, float]]
    fmt: Callable[[float], str] = fmt_number

    def label(self, value: float) -> str:
        return f"{self.name}={self.fmt(value)}"


def _geom(low: float, high: float, n: int = 6) -> tuple[float, ...]:
    return tuple(float(v) for v in np.geomspace(low, high, n))


#: Candidate knobs per schedule, in order of preference; every one that is monotone and
#: reaches the budget is tuned and reported (the verdict uses the best of them).
KNOBS: dict[str, tuple[Knob, ...]] = {
    "fixed": (
        Knob(
            "fixed",
            "initial",
            _geom(HOUR, 30 * DAY),
            log=True,
            params=lambda v: {"initial": v},
            fmt=fmt_duration,
        ),
    ),
    "aronsson": (
        Knob(
            "aronsson",
            "constant",
            _geom(MINUTE, DAY),
            log=True,
            params=lambda v: {"constant": v},
            fmt=fmt_duration,
        ),
        Knob(
            "aronsson",
            "increase",
            _geom(0.01, 3.0),
            log=True,
            params=lambda v: {"increase": v},
        ),
    ),
    "nutch-adaptive": (
        Knob(
            "nutch-adaptive",
            "min",
            _geom(MINUTE, 3 * DAY),
            log=True,
            params=lambda v: {"min": v},
            fmt=fmt_duration,
        ),
        Knob(
            "nutch-adaptive",
            "dec_rate/inc_rate",
            _geom(0.125, 2.4),
            log=True,
            params=lambda v: {"dec_rate": v * NUTCH_INC_RATE, "inc_rate": NUTCH_INC_RATE},
        ),
    ),
    "change-rate": (
        Knob(
            "change-rate",
            "target",
            (0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
            log=False,
            params=lambda v: {"target": v},
        ),
    ),
}


# -- simulation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    schedule: str
    knob: str
    result: CorpusResult
    best: CorpusResult  # the optimum at the same cost

    @property
    def ratio(self) -> float:
        return self.result.freshness / self.best.freshness if self.best.freshness else math.nan


def run(name: str, params: dict[str, float], rates: np.ndarray, days: float, seed: int) -> Row:
    # a fresh schedule every time: change-rate keeps corpus state between rounds
    result = simulate_corpus(make_schedule(name, **params), rates, days, seed=seed, label=name)
    best = optimum(rates, result.fetches_per_page_per_day, days)
    return Row(name, "", result, best)


def stratified_sample(rates: np.ndarray, n: int) -> np.ndarray:
    """Every k-th page by change rate: a small corpus with the full one's distribution.

    (The first ``n`` draws of the same generator are ~3-8 % off in cost for adaptive
    schedules at 2,000 pages: too coarse to tune within 2 %.)
    """
    if n >= len(rates):
        return rates
    step = len(rates) / n
    picks = (np.arange(n) * step + step / 2).astype(int)
    return np.sort(rates)[picks]


# -- tuning -----------------------------------------------------------------------------------


@dataclass
class Tuning:
    knob: Knob
    sweep: list[tuple[float, float]] = field(default_factory=list)
    value: float | None = None
    cost: float = math.nan  # on the small corpus, at ``value``
    steps: int = 0
    problem: str = ""


def monotone_direction(costs: Sequence[float]) -> int:
    """+1 / −1 if the costs rise / fall along the grid (flat steps allowed), else 0."""
    signs = {
        int(np.sign(b - a)) for a, b in itertools.pairwise(costs) if abs(b - a) > FLAT * max(a, b)
    }
    return signs.pop() if len(signs) == 1 else 0


def tune(
    knob: Knob,
    budget: float,
    rates: np.ndarray,
    days: float,
    seed: int,
    tolerance: float,
    max_steps: int,
) -> Tuning:
    tuning = Tuning(knob)

    def cost(value: float) -> float:
        return run(
            knob.schedule, knob.params(value), rates, days, seed
        ).result.fetches_per_page_per_day

    tuning.sweep = [(v, cost(v)) for v in knob.grid]
    values = [v for v, _ in tuning.sweep]
    costs = [c for _, c in tuning.sweep]
    direction = monotone_direction(costs)
    if direction == 0:
        flat = max(costs) - min(costs) <= FLAT * max(costs)
        tuning.problem = "cost does not move with this knob" if flat else "cost is not monotone"
        return tuning
    if not min(costs) <= budget * (1 + tolerance) or not max(costs) >= budget * (1 - tolerance):
        tuning.problem = (
            f"budget out of reach: cost only spans {min(costs):.4g}..{max(costs):.4g} "
            f"over {knob.label(values[0])}..{knob.fmt(values[-1])}"
        )
        return tuning
    closest = min(range(len(values)), key=lambda i: abs(costs[i] - budget))
    tuning.value, tuning.cost = values[closest], costs[closest]
    if abs(tuning.cost / budget - 1) <= tolerance:
        return tuning
    # the grid interval around the budget
    i = next(
        i for i in range(len(values) - 1) if (costs[i] - budget) * (costs[i + 1] - budget) <= 0
    )
    low, high = values[i], values[i + 1]  # cost(low) - budget has the sign of -direction
    for _ in range(max_steps):
        mid = math.sqrt(low * high) if knob.log else (low + high) / 2
        spent = cost(mid)
        tuning.steps += 1
        if not min(costs[i], costs[i + 1]) <= spent <= max(costs[i], costs[i + 1]):
            tuning.problem = f"cost not monotone between grid points ({knob.label(mid)})"
        if abs(spent - budget) < abs(tuning.cost - budget):
            tuning.value, tuning.cost = mid, spent
        if abs(spent / budget - 1) <= tolerance:
            break
        if (spent < budget) == (direction > 0):
            low = mid
        else:
            high = mid
    if abs(tuning.cost / budget - 1) > tolerance and not tuning.problem:
        tuning.problem = f"not within {tolerance:.0%} of the budget after {max_steps} steps"
    return tuning


# -- output -----------------------------------------------------------------------------------


HEADER = (
    f"{'schedule':<15} {'knob':<28} {'fetch/p/d':>9} {'fresh':>6} {'stale h':>8} "
    f"{'opt fresh':>9} {'ratio':>6} {'sim s':>6}"
)


def print_row(row: Row, budget: float | None = None) -> None:
    r = row.result
    line = (
        f"{row.schedule:<15} {row.knob:<28} {r.fetches_per_page_per_day:>9.4f} "
        f"{r.freshness:>6.4f} {r.mean_staleness_hours:>8.2f} {row.best.freshness:>9.4f} "
        f"{row.ratio:>6.1%} {r.seconds:>6.2f}"
    )
    if budget is not None:
        line += f"  ({r.fetches_per_page_per_day / budget - 1:+.1%} vs B)"
    print(line, flush=True)


def verdict(ok: bool, text: str) -> bool:
    print(f"  [{'PASS' if ok else 'FAIL'}] {text}")
    return ok


# -- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=10_000, help="pages in the corpus (10000)")
    parser.add_argument("--days", type=float, default=365.0, help="simulated days (365)")
    parser.add_argument("--seed", type=int, default=0, help="rates and changes seed (0)")
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="fetches/page/day to compare at (default: change-rate's at its defaults)",
    )
    parser.add_argument(
        "--tune-pages", type=int, default=2000, help="pages in the tuning corpus (2000)"
    )
    parser.add_argument(
        "--tolerance", type=float, default=0.02, help="relative budget tolerance (0.02)"
    )
    parser.add_argument("--max-steps", type=int, default=10, help="bisection steps per knob (10)")
    args = parser.parse_args(argv)
    if args.pages < 1 or args.tune_pages < 1:
        parser.error("--pages and --tune-pages must be at least 1")
    if args.days <= 0:
        parser.error("--days must be positive")
    if args.budget is not None and args.budget <= 0:
        parser.error("--budget must be positive")
    if not 0 < args.tolerance < 1 or args.max_steps < 0:
        parser.error("--tolerance must be in (0, 1) and --max-steps at least 0")

    started = time.perf_counter()
    rates = corpus_rates(args.pages, args.seed)
    size = f"{args.pages:,} pages x {args.days:g} days"
    gaps = np.sort(1 / rates / HOUR)
    print(
        f"corpus: {size}, seed {args.seed}; mean time between changes: median "
        f"{np.median(gaps):.1f} h, middle 95 % {np.quantile(gaps, 0.025):.2f} h .. "
        f"{np.quantile(gaps, 0.975) / 24:.0f} d"
    )
    seconds: dict[str, list[float]] = {name: [] for name in SCHEDULE_NAMES}
    full_runs: dict[tuple[str, tuple[tuple[str, float], ...]], Row] = {}

    def full(name: str, params: dict[str, float], knob: str) -> Row:
        key = (name, tuple(sorted(params.items())))
        if key not in full_runs:
            full_runs[key] = run(name, params, rates, args.days, args.seed)
            seconds[name].append(full_runs[key].result.seconds)
        row = full_runs[key]
        return Row(row.schedule, knob, row.result, row.best)

    print(f"\n== defaults ({size}) ==")
    print(HEADER)
    defaults = {name: full(name, {}, "defaults") for name in SCHEDULE_NAMES}
    for row in defaults.values():
        print_row(row)

    budget = args.budget or defaults["change-rate"].result.fetches_per_page_per_day
    small = stratified_sample(rates, args.tune_pages)
    print(
        f"\n== tuning to B = {budget:.4f} fetches/page/day on {len(small):,} pages "
        f"(every {len(rates) / len(small):.3g}th page by change rate), "
        f"within {args.tolerance:.0%}, <= {args.max_steps} bisection steps =="
    )
    tunings: list[Tuning] = []
    for name in SCHEDULE_NAMES:
        for knob in KNOBS[name]:
            tuning = tune(knob, budget, small, args.days, args.seed, args.tolerance, args.max_steps)
            tunings.append(tuning)
            sweep = ", ".join(f"{knob.fmt(v)}: {c:.3g}" for v, c in tuning.sweep)
            direction = {1: "rises", -1: "falls", 0: "neither rises nor falls steadily"}[
                monotone_direction([c for _, c in tuning.sweep])
            ]
            print(f"{name} {knob.name}: cost {direction} [{sweep}]")
            if tuning.value is not None:
                print(
                    f"    -> {knob.label(tuning.value)}: {tuning.cost:.4f} on the small "
                    f"corpus ({tuning.cost / budget - 1:+.1%}), {tuning.steps} bisection steps"
                )
            if tuning.problem:
                print(f"    !! {tuning.problem}")

    print(f"\n== equal cost: B = {budget:.4f} fetches/page/day ({size}) ==")
    print(HEADER)
    equal: dict[str, list[Row]] = {name: [] for name in SCHEDULE_NAMES}
    for tuning in tunings:
        if tuning.value is None:
            continue
        knob = tuning.knob
        row = full(knob.schedule, knob.params(tuning.value), knob.label(tuning.value))
        print_row(row, budget)
        if abs(tuning.cost / budget - 1) <= args.tolerance:
            equal[knob.schedule].append(row)
        else:
            print("    (off budget: left out of the verdicts)")

    print("\n== targets ==")
    passed = True
    best = {
        name: max(rows, key=lambda r: r.result.freshness) if rows else None
        for name, rows in equal.items()
    }
    change_rate = best["change-rate"]
    if change_rate is None:
        passed = verdict(False, "change-rate could not be tuned to the budget")
    else:
        cr = change_rate.result
        passed &= verdict(
            change_rate.ratio >= OPTIMUM_TARGET,
            f"change-rate >= {OPTIMUM_TARGET:.0%} of the optimum at equal cost: "
            f"{change_rate.ratio:.1%} ({cr.freshness:.4f} vs {change_rate.best.freshness:.4f} "
            f"at {cr.fetches_per_page_per_day:.4f} fetches/page/day)",
        )
        for rival in ("aronsson", "nutch-adaptive"):
            other = best[rival]
            if other is None:
                passed = verdict(False, f"{rival} could not be tuned to the budget")
                continue
            o = other.result
            passed &= verdict(
                cr.freshness > o.freshness,
                f"change-rate beats {rival} at equal cost: {cr.freshness:.4f} vs "
                f"{o.freshness:.4f} ({rival} best of its knobs: {other.knob}, "
                f"{o.fetches_per_page_per_day:.4f} fetches/page/day)",
            )
    for name in SCHEDULE_NAMES:
        slowest = max(seconds[name])
        passed &= verdict(
            slowest < SECONDS_TARGET,
            f"{name}: one {size} simulation < {SECONDS_TARGET:g} s: slowest {slowest:.2f} s "
            f"of {len(seconds[name])}",
        )
    print(f"\ntotal wall time {time.perf_counter() - started:.1f} s")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
