"""Trap-guard benchmark (issue 25): what the trap limits cost per discovered link.

    python bench/traps_bench.py [--links 300000] [--seed 0]

Every link a crawl discovers, once past the filter chain, goes through
:meth:`recrawl.core.engine.traps.TrapGuard.admit`: its depth, its place in a sequence
and, since issue 25, its pattern's lattice. The links are a news site's mix, as a
crawl meets them: stories under their day with a slug (a pattern each), stories by
number, day archives linking the day before and after, sections' pages, album photos,
plain pages without numbers, and an endless calendar on a host of its own. Each is
admitted from a page linking it (pages of the same pattern link each other, as they
do).

It prints microseconds per link (the best of ``--repeat`` runs) for the pattern alone
(``pattern_of``, which the sequence check made for every link before issue 25), for
the guard without its lattice finder (as it was) and with it, and the finder alone on
the same links (the guard's two differ by less than a shared machine's noise). Target
(exit status 1 if it fails): the lattice finder adds under 5 µs a link (100,000 links of a large page,
0.5 s at most, beside parsing them).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta

from recrawl.core.config import TrapSettings
from recrawl.core.engine.events import EventQueue
from recrawl.core.engine.lattices import LatticeFinder
from recrawl.core.engine.traps import TrapGuard, pattern_of
from recrawl.core.store.models import Page

TARGET_US = 5.0
NEWS = "http://news.example"
CALENDAR = "http://events.example"


def links(count: int, rng: random.Random) -> list[tuple[str, str]]:
    """(linking page, link) pairs of the mix."""
    first = date(2020, 1, 1)
    words = ["council", "budget", "river", "festival", "vote", "study", "bridge", "storm"]
    pairs: list[tuple[str, str]] = []
    for i in range(count):
        day = first + timedelta(days=rng.randrange(2000))
        kind = i % 8
        if kind == 0:
            slug = "-".join(rng.sample(words, 3)) + f"-{rng.randrange(100)}"
            pairs.append((f"{NEWS}/{day:%Y/%m/%d}/", f"{NEWS}/{day:%Y/%m/%d}/{slug}"))
        elif kind == 1:
            pairs.append((f"{NEWS}/", f"{NEWS}/{day:%Y/%m/%d}/{1_000_000 + i}.html"))
        elif kind == 2:
            pairs.append((f"{NEWS}/{day:%Y/%m/%d}/", f"{NEWS}/{day + timedelta(days=1):%Y/%m/%d}/"))
        elif kind == 3:
            page = rng.randrange(1, 40)
            pairs.append(
                (f"{NEWS}/section/politics?page={page}", f"{NEWS}/section/politics?page={page + 1}")
            )
        elif kind == 4:
            album, photo = rng.randrange(5000), rng.randrange(1, 30)
            pairs.append(
                (f"{NEWS}/album/{album}/photo/{photo}", f"{NEWS}/album/{album}/photo/{photo + 1}")
            )
        elif kind in (5, 6):
            pairs.append((f"{NEWS}/", f"{NEWS}/{rng.choice(words)}/{rng.choice(words)}"))
        else:  # the next day, or the same day of the next month
            step = timedelta(days=1 if i % 16 < 8 else 31)
            a, b = (f"{CALENDAR}/cal/{d:%Y/%m/%d}" for d in (day, day + step))
            pairs.append((a, b))
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pairs = links(args.links, random.Random(args.seed))
    pages: dict[str, Page] = {}
    for source, _ in pairs:
        if source not in pages:
            pages[source] = Page(id=len(pages) + 1, url=source, host="h", depth=1)

    def pattern_only() -> None:
        for _, url in pairs:
            pattern_of(url)

    def guarded(lattices: bool) -> TrapGuard:
        guard = TrapGuard(TrapSettings(max_depth=10_000), EventQueue(None))
        if not lattices:  # the guard as it was before issue 25
            guard._lattices.add = lambda *args: None  # type: ignore[method-assign]
        for source, url in pairs:
            guard.admit(pages[source], url)
        return guard

    inputs = []
    for source, url in pairs:
        target, linked = pattern_of(url), pattern_of(source)
        same = linked.numbers if linked.text == target.text else None
        inputs.append((target.text, target.numbers, same))

    def lattices_only() -> None:
        finder = LatticeFinder(TrapSettings())
        for text, numbers, linked_from in inputs:
            finder.add(text, numbers, linked_from)

    # the best of a few runs of each, interleaved (a shared machine's noise is one way)
    runs: dict[str, Callable[[], object]] = {
        "pattern_of": pattern_only,
        "guard before issue 25": lambda: guarded(False),
        "guard": lambda: guarded(True),
        "lattice finder alone": lattices_only,
    }
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(args.repeat):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], (time.perf_counter() - started) / len(pairs) * 1e6)
    guard = guarded(True)
    print(f"{len(pairs):,} links; held back: {guard.held}")
    for name, us in best.items():
        print(f"{name:<22} {us:6.2f} µs a link")
    added = best["lattice finder alone"]
    ok = added < TARGET_US
    verdict = "met" if ok else "MISSED"
    print(f"the lattice finder: {added:.2f} µs a link; target under {TARGET_US:.0f} µs {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
