"""Re-planning: a changed schedule reaches the pages already known.

A schedule decides a page's interval at each fetch, so without re-planning a new
``max=1d`` would wait for every page's next fetch, 12 days away, before it showed.
Re-planning gives each page whose interval lies outside the new schedule's range
(:meth:`~recrawl.core.policy.schedule.FetchSchedule.interval_range`, per host) the
nearest interval inside it, and counts its next fetch from when the schedule last
decided it: within a day of its last fetch for ``max=1d``, or now when that is past.
Pages inside the range do not move; nor do those whose interval the user fixed
(``metadata.fixed_interval``), nor filtered ones. A page due already stays due, one
never fetched keeps its turn, and one waiting to retry a failed fetch keeps its retry
time: only their interval is brought within bounds.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from recrawl.core import store
from recrawl.core.policy.schedule import FetchSchedule
from recrawl.core.store.models import PageStatus

#: Pages whose next fetch is not counted from an interval: kept where they are.
_KEEP_TURN = (PageStatus.UNFETCHED, PageStatus.RETRY)


@dataclass(frozen=True)
class Replanned:
    """What re-planning did."""

    #: Pages whose next fetch moved (their interval with it).
    moved: int = 0
    #: Pages whose interval alone changed (due now, never fetched, or retrying).
    intervals: int = 0


def replan(schedule: FetchSchedule, now: datetime) -> Replanned:
    """Bring the known pages' intervals and next fetches within ``schedule``'s range;
    inside the caller's transaction (the schedule's choice is saved in the same one)."""
    groups: dict[tuple[float, float], list[str]] = defaultdict(list)
    for host in store.crawled_hosts():
        groups[schedule.interval_range(host)].append(host)
    moved = intervals = 0
    for (low, high), hosts in groups.items():
        for block in store.intervals_outside(hosts, low, high):
            plans: list[tuple[int, float, datetime | None]] = []
            for page in block:
                if page.metadata.get("fixed_interval") is not None:
                    continue  # the user's own interval: no schedule decides it
                interval = max(min(page.interval, high), low)  # as the schedule clamps: min wins
                due = _next_fetch(page, interval, now)
                if due == page.next_fetch:
                    plans.append((page.id, interval, None))
                    intervals += 1
                else:
                    plans.append((page.id, interval, due))
                    moved += 1
            store.plan_pages(plans)
    return Replanned(moved, intervals)


def _next_fetch(page: store.PlannedPage, interval: float, now: datetime) -> datetime:
    if page.status in _KEEP_TURN or page.next_fetch <= now:
        return page.next_fetch
    # when the schedule counted the wait from: the last fetch, or the last attempt a
    # refusal by robots.txt left no fetch time for
    since = page.next_fetch - timedelta(seconds=page.interval)
    if page.last_fetched is not None:
        since = max(since, page.last_fetched)
    return max(since + timedelta(seconds=interval), now)
