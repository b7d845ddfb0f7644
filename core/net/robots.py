"""robots.txt per RFC 9309, parsed by protego; a cached answer (the engine keeps it in the store)
holds 24 h.

What each answer means (every policy names it in :attr:`RobotsPolicy.note`):

- 2xx: the rules. An HTML page is not a robots.txt (a site answering every path with
  its home page): without any ``User-agent`` line it allows everything; with one, its
  tags are stripped and the rules in it apply (crawler-commons, and so Nutch, do both).
  HTML is told by the body alone, so the cached copy (the body) reads the same; a plain
  robots.txt mislabelled ``text/html`` is read as the rules it is.
- 4xx, more than 5 redirects or a redirect to a URL that cannot be requested: no
  robots.txt, everything allowed (§2.3.1.2–3).
- 5xx or unreachable (connection refused, timeout, reset): robots.txt is unavailable.
  RFC 9309 §2.3.1.4 says to assume complete disallow, so nothing is requested, but that
  is a failure to reach the site, not the site's wish: the engine records each page as a
  failed attempt, names why, and tries again (:attr:`RobotsPolicy.unavailable`). The
  cache keeps such an answer for an hour only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from protego import Protego
from recrawl.core.net.fetch import BAD_REDIRECT, TOO_MANY_REDIRECTS

#: Retry an unreachable robots.txt sooner than a good one.
ERROR_TTL = timedelta(hours=1)

_USER_AGENT_LINE = re.compile(r"^\s*user-agent\s*:", re.IGNORECASE | re.MULTILINE)
_HTML = re.compile(r"<(?:!doctype|html|head|body|pre)\b", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class RobotsPolicy:
    """What robots.txt allows on one origin."""

    mode: str  # "rules", "allow-all", "unavailable"
    parser: Protego | None = None
    #: What was found and what is done about it, for the crawl's log.
    note: str | None = None
    #: Why robots.txt is unavailable (mode "unavailable"), as a page's fetch records it.
    failure: str | None = None

    @property
    def unavailable(self) -> bool:
        """robots.txt could not be read (5xx, network): nothing may be requested for now."""
        return self.mode == "unavailable"

    def allowed(self, url: str, agent: str) -> bool:
        if self.mode == "allow-all":
            return True
        if self.mode == "unavailable":
            return False
        assert self.parser is not None
        return bool(self.parser.can_fetch(url, agent))

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """The URLs of its ``Sitemap:`` lines (docs/design.md §11), as written."""
        if self.parser is None:
            return ()
        return tuple(self.parser.sitemaps)

    def crawl_delay(self, agent: str) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(agent)
        return float(delay) if delay is not None else None


def policy_from(status: int | None, body: str | None, error: str | None) -> RobotsPolicy:
    if error is not None and error.startswith((TOO_MANY_REDIRECTS, BAD_REDIRECT)):
        # a robots.txt that cannot be followed is "unavailable" (§2.3.1.2), like a 404
        return RobotsPolicy("allow-all", note=f"robots.txt cannot be followed ({error}): allow all")
    if error is not None or status is None:
        return _unavailable(f"robots.txt unreachable ({error})")
    if status >= 500:
        return _unavailable(f"robots.txt answered HTTP {status}")
    if status >= 400:
        return RobotsPolicy("allow-all", note=f"robots.txt answered {status}: allow all")
    if status >= 300:
        return RobotsPolicy("allow-all", note="robots.txt redirects too often: allow all")
    text = (body or "").lstrip("\ufeff")  # a byte-order mark would hide the first line
    if not _HTML.search(text):
        return RobotsPolicy("rules", Protego.parse(text))
    stripped = "\n".join(_TAG.sub("", line) for line in text.splitlines())
    if not _USER_AGENT_LINE.search(stripped):
        return RobotsPolicy(
            "allow-all", note="robots.txt is an HTML page without robots rules: allow all"
        )
    return RobotsPolicy(
        "rules",
        Protego.parse(stripped),
        note="robots.txt is an HTML page: its tags are ignored and the rules in it apply",
    )


def _unavailable(failure: str) -> RobotsPolicy:
    note = f"{failure}: nothing requested from this origin; its pages are retried later"
    return RobotsPolicy("unavailable", note=note, failure=failure)


class CachedAnswer(Protocol):
    """An origin's robots.txt answer as a cache keeps it (the store's robots row)."""

    @property
    def fetched_at(self) -> datetime: ...
    @property
    def http_status(self) -> int | None: ...
    @property
    def body(self) -> str | None: ...
    @property
    def error(self) -> str | None: ...


def cached_policy(entry: CachedAnswer | None, now: datetime, ttl: float) -> RobotsPolicy | None:
    """The policy of a cached answer still fresh at ``now`` (``ttl``: seconds a good one
    holds); None: nothing cached, or too old."""
    if entry is None:
        return None
    failed = entry.error is not None or (entry.http_status or 0) >= 500
    max_age = ERROR_TTL if failed else timedelta(seconds=ttl)
    if entry.fetched_at + max_age < now or entry.fetched_at > now + timedelta(days=1):
        return None
    return policy_from(entry.http_status, entry.body, entry.error)
