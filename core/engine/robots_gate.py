"""The robots gate: whether robots.txt lets the crawl request a URL (RFC 9309).

The policy is per origin and comes from this crawl's memory, the store's cache (24 h,
an hour for a failed fetch: :mod:`recrawl.core.net.robots`), or a fetch of
``/robots.txt`` made with the host's politeness. Its ``Crawl-delay`` goes to the host's
slot. Whatever the policy decides that is not plain rules (an HTML page, a 4xx, an
unreachable robots.txt) is said once per origin in the crawl's log, as the policy's note.
A crawl that holds connect failures (:mod:`.offline`) gets :class:`~.offline.Unreached` for
an origin not reached while no host has answered yet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

from recrawl.core import store
from recrawl.core.clock import Clock
from recrawl.core.config import PolitenessSettings
from recrawl.core.engine.commits import CommitPipeline
from recrawl.core.engine.events import EventQueue, LogMessage
from recrawl.core.engine.offline import Reachability, unreached
from recrawl.core.net.fetch import Fetcher, FetchResult
from recrawl.core.net.politeness import HostSlot
from recrawl.core.net.robots import RobotsPolicy, cached_policy, policy_from
from recrawl.core.net.urls import origin_of


def robots_agent(user_agent: str) -> str:
    """The product token robots.txt groups name, not the whole User-Agent (RFC 9309 §2.2.1).

    A User-Agent with no name (a store edited by hand) is matched as Recrawl's."""
    words = user_agent.split("/")[0].split()
    return words[0] if words else "Recrawl"


class RobotsGate:
    """One crawl's robots.txt policies, fetched at most once per origin."""

    def __init__(
        self,
        settings: PolitenessSettings,
        user_agent: str,
        clock: Clock,
        fetcher: Fetcher,
        connections: asyncio.Semaphore,
        commits: CommitPipeline,
        events: EventQueue,
        reach: Reachability | None = None,
    ) -> None:
        self.settings = settings
        self.agent = robots_agent(user_agent)
        self.clock = clock
        self.fetcher = fetcher
        self.connections = connections
        self.commits = commits
        self.events = events
        self.reach = reach
        self._policies: dict[str, RobotsPolicy] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        #: Told each origin's policy once a crawl (its ``Sitemap:`` lines: docs/design.md §11).
        self.on_policy: Callable[[str, RobotsPolicy], None] | None = None

    async def denial(self, url: str, slot: HostSlot, lane: int) -> RobotsPolicy | None:
        """The policy that denies ``url``, or None when the crawl may request it."""
        policy = await self.policy(origin_of(url), slot, lane)
        return None if policy.allowed(url, self.agent) else policy

    async def policy(self, origin: str, slot: HostSlot, lane: int) -> RobotsPolicy:
        """The origin's policy: from this crawl, the store's cache, or fetched."""
        policy = self._policies.get(origin)
        if policy is not None:
            return policy
        lock = self._locks.setdefault(origin, asyncio.Lock())
        async with lock:
            policy = self._policies.get(origin)
            if policy is not None:
                return policy
            now = self.clock.now()
            policy = cached_policy(store.robots_entry(origin), now, self.settings.robots_ttl)
            if policy is None:
                wait = slot.reserve()
                if wait > 0:
                    await asyncio.sleep(wait)
                async with self.connections:
                    result = await self.fetcher.fetch(
                        origin + "/robots.txt",
                        now,
                        max_bytes=self.settings.max_robots_bytes,
                        follow_redirects=True,
                        lane=lane,
                    )
                if self.reach is not None and self.reach.holds(result):
                    slot.finished()
                    # neither kept nor saved: offline, maybe (.offline)
                    return unreached(result.error)
                policy = self._fetched(origin, result, now)
                # the Crawl-delay counts from this request already
                slot.honour_crawl_delay(policy.crawl_delay(self.agent))
                slot.finished()
            else:
                slot.honour_crawl_delay(policy.crawl_delay(self.agent))
            self._policies[origin] = policy
            if self.on_policy is not None:
                self.on_policy(origin, policy)
            return policy

    def _fetched(self, origin: str, result: FetchResult, now: datetime) -> RobotsPolicy:
        body = None
        if result.decoded is not None:
            body = result.decoded.decode("utf-8-sig", errors="replace")
        policy = policy_from(result.status, body, result.error)
        self.commits.call(store.save_robots, origin, now, result.status, body, result.error)
        if policy.note:
            self.events.emit(LogMessage("warning", f"{origin}: {policy.note}"))
        return policy
