"""Discovery benchmark (issue 14), part (a): how soon new pages are first seen, at equal cost.

    python bench/discovery_bench.py [--pages 10000] [--days 365] [--seed 0]

Simulates docs/design.md §11's corpus (``recrawl.core.policy.simulate_discovery``): N hubs whose
new links arrive as Poisson processes with rates spread log-normally from hours to months,
visited for D days by ``aronsson``, ``change-rate`` and ``discovery``. Each row gives the
fetches per page per day, the mean discovery delay (first seen − published, over every new
link), the least delay any schedule could reach with the same number of fetches knowing
the rates ((Σ√λ)² / (2·B·Σλ)) and the ratio to it.

Equal budget: aronsson has no budget knob, so its defaults set the budget B (what it
spends on this corpus); ``change-rate``'s ``target`` (freshness; policy ``optimal``, its
default, and again with policy ``uniform``) and
``discovery``'s ``budget`` (fetches a day per hub) are each bisected on a small corpus
(every k-th hub of the full corpus by rate, so it has the same rate distribution) until
that corpus's cost is within ``--tolerance`` of B, and the full corpus is run once with
the value found. The schedules that know only "changed" (aronsson, change-rate) see a
visit as changed when it found at least one new link (the ``outlinks`` signature).

Targets (exit status 1 if one fails): discovery's delay ≤ 1.10 × the optimum at its
cost, and at least 2 × shorter than aronsson's at equal cost.

Part (b), a real crawl of a loopback site over a simulated month (hubs, a sitemap and a
feed), is bench/discovery_crawl.py.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from recrawl.core.policy.schedules import make_schedule
from recrawl.core.policy.simulate import corpus_rates
from recrawl.core.policy.simulate_discovery import DiscoveryResult, simulate_discovery

OPTIMUM_TARGET = 1.10
ARONSSON_TARGET = 2.0


@dataclass(frozen=True)
class Knob:
    schedule: str
    name: str
    low: float
    high: float
    #: Bisect on log(value) (a scale) rather than on value.
    log: bool
    #: Parameters set beside the knob.
    fixed: tuple[tuple[str, str], ...] = ()

    def params(self, value: float) -> dict[str, float | str]:
        return {**dict(self.fixed), self.name: value}

    def label(self, value: float) -> str:
        return " ".join([*(f"{k}={v}" for k, v in self.fixed), f"{self.name}={value:.4g}"])


KNOBS = (
    Knob("discovery", "budget", 0.01, 100.0, log=True),
    Knob("change-rate", "target", 0.05, 0.99, log=False),
    # not the default policy: every page gets the same freshness, fast hubs included
    Knob("change-rate", "target", 0.05, 0.99, log=False, fixed=(("policy", "uniform"),)),
)


def stratified_sample(rates: np.ndarray, n: int) -> np.ndarray:
    """Every k-th hub by rate: a small corpus with the full one's distribution."""
    if n >= len(rates):
        return rates
    step = len(rates) / n
    return np.sort(rates)[(np.arange(n) * step + step / 2).astype(int)]


def run(
    name: str, params: dict[str, float | str], rates: np.ndarray, days: float, seed: int
) -> DiscoveryResult:
    # a fresh schedule every time: change-rate and discovery learn corpus state
    return simulate_discovery(make_schedule(name, **params), rates, days, seed=seed, label=name)


def tune(
    knob: Knob,
    cost: Callable[[float], float],
    budget: float,
    tolerance: float,
    max_steps: int,
) -> tuple[float, float, int]:
    """Bisect the knob until ``cost`` is within ``tolerance`` of ``budget`` (cost rises
    with the knob for both knobs here). Returns (value, cost, steps)."""
    low, high = knob.low, knob.high
    value, spent = math.nan, math.nan
    for step in range(1, max_steps + 1):
        value = math.sqrt(low * high) if knob.log else (low + high) / 2
        spent = cost(value)
        if abs(spent - budget) <= tolerance * budget:
            return value, spent, step
        if spent < budget:
            low = value
        else:
            high = value
    return value, spent, max_steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--days", type=float, default=365.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tune-pages", type=int, default=1_000)
    parser.add_argument("--tolerance", type=float, default=0.02)
    parser.add_argument("--max-steps", type=int, default=14)
    args = parser.parse_args(argv)

    rates = corpus_rates(args.pages, args.seed)
    small = stratified_sample(rates, args.tune_pages)
    print(
        f"{args.pages:,} hubs, {args.days:g} days, seed {args.seed}; new links every "
        f"{np.median(1 / rates) / 3600:.1f} h (median), "
        f"{np.quantile(1 / rates, 0.025) / 3600:.1f} h to "
        f"{np.quantile(1 / rates, 0.975) / 86400:.0f} d (middle 95 %)"
    )
    rows: list[tuple[DiscoveryResult, str]] = []
    aronsson = run("aronsson", {}, rates, args.days, args.seed)
    budget = aronsson.fetches_per_page_per_day
    rows.append((aronsson, "defaults (they set the budget B)"))
    print(f"budget B = {budget:.4f} fetches/page/day (aronsson's defaults)")
    for knob in KNOBS:

        def cost(value: float, knob: Knob = knob) -> float:
            result = run(knob.schedule, knob.params(value), small, args.days, args.seed)
            return result.fetches_per_page_per_day

        value, spent, steps = tune(knob, cost, budget, args.tolerance, args.max_steps)
        result = run(knob.schedule, knob.params(value), rates, args.days, args.seed)
        rows.append(
            (result, f"{knob.label(value)} (tuned in {steps} steps, {spent:.4f} on the small)")
        )
    defaults = run("discovery", {}, rates, args.days, args.seed)
    rows.append((defaults, "defaults (not at B)"))

    print()
    print(
        f"{'schedule':<12} {'fetches/page/day':>16} {'delay h':>9} {'optimum h':>10} "
        f"{'ratio':>6} {'sim s':>6}  tuning"
    )
    for result, how in rows:
        ratio = result.mean_discovery_delay_hours / result.optimal_delay_hours
        print(
            f"{result.schedule:<12} {result.fetches_per_page_per_day:>16.4f} "
            f"{result.mean_discovery_delay_hours:>9.3f} {result.optimal_delay_hours:>10.3f} "
            f"{ratio:>6.3f} {result.seconds:>6.1f}  {how}"
        )
    discovery = rows[1][0]
    to_optimum = discovery.mean_discovery_delay_hours / discovery.optimal_delay_hours
    over_aronsson = aronsson.mean_discovery_delay_hours / discovery.mean_discovery_delay_hours
    ok_optimum = to_optimum <= OPTIMUM_TARGET
    ok_aronsson = over_aronsson >= ARONSSON_TARGET
    print()
    print(
        f"discovery at B: {to_optimum:.3f} x the optimum (target <= {OPTIMUM_TARGET}): "
        f"{'ok' if ok_optimum else 'FAILED'}"
    )
    print(
        f"aronsson / discovery delay at B: {over_aronsson:.2f} x (target >= {ARONSSON_TARGET}): "
        f"{'ok' if ok_aronsson else 'FAILED'}"
    )
    return 0 if ok_optimum and ok_aronsson else 1


if __name__ == "__main__":
    sys.exit(main())
