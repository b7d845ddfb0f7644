"""Per-host politeness slots: they compute when the next request may start, never sleep.

One slot per origin (scheme, host, port): a queue of pages, a jittered delay between
request starts, back-off after 429/503 (``Retry-After`` honoured), and the origin's
robots.txt policy once known.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime

from core.config import PolitenessSettings
from core.fetch import parse_http_date
from core.models import Page
from core.robots import RobotsPolicy


@dataclass
class HostSlot:
    origin: str
    settings: PolitenessSettings
    queue: deque[Page] = field(default_factory=deque)
    delay: float = 0.0
    next_start: float = 0.0  # time.monotonic() before which no request may start
    backoff: float = 0.0
    attempts: dict[int, int] = field(default_factory=dict)  # page id -> throttled tries
    robots: RobotsPolicy | None = None
    robots_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

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

    def throttled(self, retry_after: str | None) -> float:
        """The host said 429/503: back off. Returns the back-off in seconds."""
        wait = retry_after_seconds(retry_after)
        if wait is None:
            self.backoff = self.backoff * 2 if self.backoff else self.settings.backoff
            wait = self.backoff
        self.next_start = max(self.next_start, time.monotonic() + wait)
        return wait


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = parse_http_date(value)
    if when is None:
        return None
    return max(0.0, (when - datetime.now(UTC).replace(tzinfo=None)).total_seconds())
