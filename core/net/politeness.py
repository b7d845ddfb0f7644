"""Per-host politeness slots: they compute when the next request may start, never sleep.

One slot per host for the whole crawl (http and https, any port: one machine to be
polite to): a jittered delay between request starts, the host's ``Crawl-delay``, and
back-off after 429/503 (``Retry-After`` honoured up to ``retry_after_cap``: a server
asking for a year gets a week, and the crawl's log says so). A round keeps the host's
queue of pages (:mod:`recrawl.core.engine.round`). robots.txt itself is per origin
(RFC 9309) and lives in the engine.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from recrawl.core.clock import DAY
from recrawl.core.config import PolitenessSettings
from recrawl.core.net.http import parse_http_date


@dataclass(frozen=True)
class Backoff:
    """How long a host waits after a 429/503, and what it asked for when that was more."""

    wait: float
    #: The Retry-After in seconds when it was over ``retry_after_cap`` and cut.
    asked: float | None = None

    @property
    def note(self) -> str | None:
        """A line for the crawl's log when the server's wish was cut."""
        if self.asked is None:
            return None
        return (
            f"Retry-After asks for {_days(self.asked)}; waiting {_days(self.wait)} at most "
            "(politeness.retry_after_cap)"
        )


def _days(seconds: float) -> str:
    if seconds == float("inf") or seconds >= 1e6 * DAY:
        return "forever"
    return f"{seconds / DAY:,.1f} days" if seconds >= DAY else f"{seconds:,.0f} s"


@dataclass
class HostSlot:
    host: str
    settings: PolitenessSettings
    lane: int = 0  # which HTTP client pool the host's requests use (fetch.py)
    delay: float = 0.0
    next_start: float = 0.0  # time.monotonic() before which no request may start
    backoff: float = 0.0
    attempts: dict[int, int] = field(default_factory=dict)  # page id -> throttled tries

    def __post_init__(self) -> None:
        self.delay = self.settings.delay

    def honour_crawl_delay(self, crawl_delay: float | None) -> None:
        if crawl_delay is not None and crawl_delay > 0:
            self.delay = max(self.settings.delay, min(crawl_delay, self.settings.max_crawl_delay))

    def _jittered(self) -> float:
        if self.delay <= 0:
            return 0.0
        spread = self.settings.jitter
        return self.delay * random.uniform(1 - spread, 1 + spread)

    def reserve(self) -> float:
        """Claim the next start time; returns seconds to wait before starting."""
        now = time.monotonic()
        start = max(now, self.next_start)
        self.next_start = start + self._jittered()
        return start - now

    def finished(self) -> None:
        """A response came back: keep the delay between it and the next request."""
        if self.delay > 0:
            self.next_start = max(self.next_start, time.monotonic() + self._jittered())

    def throttled(self, retry_after: str | None) -> Backoff:
        """The host said 429/503: back off, at most ``retry_after_cap``."""
        cap = self.settings.retry_after_cap
        asked = retry_after_seconds(retry_after)
        if asked is None:
            self.backoff = min(self.backoff * 2 if self.backoff else self.settings.backoff, cap)
            asked = self.backoff
        backoff = Backoff(cap, asked) if asked > cap else Backoff(asked)
        self.next_start = max(self.next_start, time.monotonic() + backoff.wait)
        return backoff

    def answered(self) -> None:
        """A normal answer: the next 429/503 starts its back-off afresh."""
        self.backoff = 0.0


class HostSlots:
    """The crawl's slot of each host, made on first use; they outlive rounds, so delays
    and back-offs carry over."""

    def __init__(self, settings: PolitenessSettings) -> None:
        self.settings = settings
        self._slots: dict[str, HostSlot] = {}

    def __getitem__(self, host: str) -> HostSlot:
        slot = self._slots.get(host)
        if slot is None:
            # hosts take turns over the fetcher's client lanes
            slot = self._slots[host] = HostSlot(host, self.settings, lane=len(self._slots))
        return slot


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds (uncapped; inf for absurd digit strings): delta-seconds
    or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)  # not int(): thousands of digits would raise
    when = parse_http_date(value)
    if when is None:
        return None
    wait = (when - datetime.now(UTC).replace(tzinfo=None)).total_seconds()
    return max(0.0, wait)
