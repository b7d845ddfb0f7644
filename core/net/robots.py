"""robots.txt per RFC 9309, parsed by protego, cached in the store for 24 h.

Status rules: 2xx → the rules; 4xx → allow everything; 5xx or unreachable → disallow
everything (until the cache entry expires). Redirects are followed (up to 5 hops).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from protego import Protego
from recrawl.core import store
from recrawl.core.net.fetch import TOO_MANY_REDIRECTS

MAX_ROBOTS_BYTES = 500 * 1024  # RFC 9309 §2.5: parse at least 500 KiB
#: Retry an unreachable robots.txt sooner than a good one.
ERROR_TTL = timedelta(hours=1)


@dataclass(frozen=True)
class RobotsPolicy:
    """What robots.txt allows on one origin."""

    mode: str  # "rules", "allow-all", "deny-all"
    parser: Protego | None = None
    note: str | None = None

    def allowed(self, url: str, agent: str) -> bool:
        if self.mode == "allow-all":
            return True
        if self.mode == "deny-all":
            return False
        assert self.parser is not None
        return bool(self.parser.can_fetch(url, agent))

    def crawl_delay(self, agent: str) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(agent)
        return float(delay) if delay is not None else None


def policy_from(
    status: int | None, body: str | None, error: str | None, content_type: str | None = None
) -> RobotsPolicy:
    if error == TOO_MANY_REDIRECTS:
        return RobotsPolicy("allow-all", note="robots.txt redirects too often: allow all")
    if error is not None or status is None:
        return RobotsPolicy("deny-all", note=f"robots.txt unreachable ({error}): disallow all")
    if status >= 500:
        return RobotsPolicy("deny-all", note=f"robots.txt answered {status}: disallow all")
    if status >= 400:
        return RobotsPolicy("allow-all", note=f"robots.txt answered {status}: allow all")
    if status >= 300:
        return RobotsPolicy("allow-all", note="robots.txt redirects too often: allow all")
    text = (body or "").lstrip("\ufeff")  # a byte-order mark would hide the first line
    note = None
    if _looks_like_html(text, content_type):
        # Servers that answer every path with an HTML page: no rule applies (RFC 9309 §2.2).
        note = "robots.txt is an HTML page, not rules: allow all"
    return RobotsPolicy("rules", Protego.parse(text), note)


def _looks_like_html(text: str, content_type: str | None) -> bool:
    head = text.lstrip()[:200].lower()
    return (content_type or "").startswith("text/html") or head.startswith(("<!doctype", "<html"))


def cached_policy(origin: str, now: datetime, ttl: float) -> RobotsPolicy | None:
    entry = store.robots_entry(origin)
    if entry is None:
        return None
    failed = entry.error is not None or (entry.http_status or 0) >= 500
    max_age = ERROR_TTL if failed else timedelta(seconds=ttl)
    if entry.fetched_at + max_age < now or entry.fetched_at > now + timedelta(days=1):
        return None
    return policy_from(entry.http_status, entry.body, entry.error)
