"""Telling "offline" from "this host is down", one round at a time (docs/design.md §10).

A fetch that fails before any connection is made (the name does not resolve, the
connection is refused, no route, the connect times out: ``FetchResult.unreachable``)
says nothing about the page; whether it says something about the host depends on the
rest of the round:

- as soon as any host answers (any HTTP response, or a connection at least), the network
  is up, and a host that fails to connect is down: its failures are recorded as always
  (``retry``, ``gone`` after ``max_retries``, the schedule's retry interval);
- a round in which no host answered and some failed to connect was **offline**: none of
  its failures is recorded, so the pages keep their status, retries, interval and next
  fetch (still due), and the crawl ends there. The watcher backs off and tries again; an
  outage of any length then costs nothing of the schedule.

A failure is held until the round has heard from some host (then recorded) or has ended
without (then dropped). While nothing has answered yet, a host that failed to connect is
asked nothing more in the round, its other pages stay due: offline, a round costs one
connection attempt per host (and its robots.txt), not one connect timeout per page.

One host alone cannot be told apart from the network: a project whose only due host is
down is taken to be offline (retried with back-off, its pages never go gone for it).

Only crawls that ask for it (``Crawler(..., offline_rounds=True)``: the watcher) hold
failures; a ``recrawl crawl`` records every failure as it always has.
"""

from __future__ import annotations

from collections.abc import Callable

from recrawl.core import store
from recrawl.core.engine.update import Outcome
from recrawl.core.net.fetch import FetchResult
from recrawl.core.net.robots import RobotsPolicy

#: A failure held back: recording it into a commit batch returns its outcome.
HeldFailure = Callable[[store.CommitBatch], Outcome]


class Unreached(RobotsPolicy):
    """The robots gate's answer for an origin it could not reach while no host has
    answered: neither kept nor saved; the origin's pages are held like a failed fetch."""


def unreached(error: str | None) -> Unreached:
    return Unreached("unavailable", failure=f"robots.txt unreachable ({error})")


class Reachability:
    """Whether the current round has heard from any host, and the failures held meanwhile."""

    def __init__(self) -> None:
        self.answered = False
        self.held: list[HeldFailure] = []

    def start_round(self) -> None:
        self.answered = False
        self.held = []

    def holds(self, result: FetchResult) -> bool:
        """Whether ``result`` is held back (and, if not, note that a host answered)."""
        if result.unreachable and not self.answered:
            return True
        if not result.unreachable:
            self.answered = True
        return False

    def hold(self, failure: HeldFailure) -> None:
        self.held.append(failure)

    @property
    def offline(self) -> bool:
        """Some host failed to connect and none answered: the round was offline."""
        return bool(self.held) and not self.answered

    def settle(self, batch: store.CommitBatch) -> list[Outcome]:
        """At the round's end: record the held failures if a host answered; the outcomes
        recorded (none when the round was offline: then they are dropped)."""
        held, self.held = self.held, []
        if not self.answered:
            return []
        return [failure(batch) for failure in held]
