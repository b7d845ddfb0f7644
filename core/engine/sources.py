"""Sitemaps and feeds, read before each round for the pages they list (docs/design.md §11).

Sources are found by the crawl (:class:`SourceFinder`): ``/sitemap.xml`` of every host
with pages, robots.txt ``Sitemap:`` lines, the sitemaps an index lists, the feeds pages
advertise; or injected (``recrawl inject --feed/--sitemap``). Each falls due on its own
schedule (:func:`next_interval`) and is read (:class:`SourceReader`) with its host's
politeness and robots rules, conditionally (ETag, Last-Modified). What it lists goes
through the chain like a link; a ``lastmod`` newer than a known page's last fetch makes
the page due now. Whatever is wrong with a source (malformed, huge, an HTML page, a loop
of indexes) is one line in the crawl's log and its ``error``; the crawl goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from recrawl.core import store
from recrawl.core.clock import Clock
from recrawl.core.config import SourceSettings
from recrawl.core.engine.events import EventQueue, LogMessage
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.robots import RobotsPolicy
from recrawl.core.net.urls import canonical, host_of, origin_of
from recrawl.core.store.models import SourceKind

SITEMAP, FEED = SourceKind.SITEMAP, SourceKind.FEED
#: A lastmod this far past the reading is a site's clock or template gone wrong.
FUTURE_SLACK = timedelta(days=1)


def next_interval(interval: float, found_new: bool | None, settings: SourceSettings) -> float:
    """A source's next interval: halved when its reading found new pages, half as long
    again when it found none (or a 304), doubled when the reading failed (None)."""
    factors = {None: 2.0, True: 0.5, False: 1.5}
    factor = factors[found_new]
    return min(max(interval * factor, settings.min_interval), settings.max_interval)


class SourceFinder:
    """New sources as the crawl meets them, within the per-host bounds, said once each."""

    def __init__(self, settings: SourceSettings, clock: Clock, events: EventQueue) -> None:
        self.settings = settings
        self.clock = clock
        self.events = events
        self._known: set[str] = set()
        #: Sources of each (host, kind) known to exist (store + this crawl's finds).
        self._counts: dict[str, dict[str, int]] = {}
        self._full: set[tuple[str, str]] = set()
        #: Hosts whose ``/sitemap.xml`` is known to be a source.
        self._hosts: set[str] = set()

    def found(
        self, url: str, kind: str, found_via: str, found_from: str | None
    ) -> store.NewSource | None:
        """The new source ``url`` if it is one to read (not known, its host not full)."""
        if url in self._known:
            return None
        self._known.add(url)
        host = host_of(url)
        counts = self._counts.get(host)
        if counts is None:
            counts = self._counts[host] = store.source_counts(host)
        cap = (
            self.settings.max_sitemaps_per_host
            if kind == SITEMAP
            else self.settings.max_feeds_per_host
        )
        if counts.get(kind, 0) >= cap:
            if (host, kind) not in self._full:
                self._full.add((host, kind))
                setting = "max_sitemaps_per_host" if kind == SITEMAP else "max_feeds_per_host"
                self.events.emit(
                    LogMessage(
                        "warning",
                        f"{host} has {cap:,} {kind}s already (sources.{setting}): "
                        f"{url} and any more are not read",
                    )
                )
            return None
        counts[kind] = counts.get(kind, 0) + 1
        now = self.clock.now()
        return store.NewSource(
            url, kind, host, found_via, found_from, now, self.settings.initial_interval
        )

    def feeds(self, page_url: str, feeds: Sequence[str]) -> list[store.NewSource]:
        """The feeds a page advertises that are new sources."""
        found = (self.found(feed, FEED, "page", page_url) for feed in feeds)
        return [source for source in found if source is not None]

    def robots_sitemaps(self, origin: str, policy: RobotsPolicy) -> list[store.NewSource]:
        """The sitemaps of an origin's robots.txt ``Sitemap:`` lines that are new sources."""
        robots_url = origin + "/robots.txt"
        found: list[store.NewSource] = []
        for written in policy.sitemaps:
            try:
                url = canonical(written, robots_url)
            except InvalidUrl as exc:
                self.events.emit(
                    LogMessage("warning", f"{robots_url}: Sitemap: {written!r} is no URL ({exc})")
                )
                continue
            source = self.found(url, SITEMAP, "robots", robots_url)
            if source is not None:
                found.append(source)
        return found

    def default_sitemaps(self, pages: Sequence[store.DuePage]) -> list[store.NewSource]:
        """``/sitemap.xml`` of the hosts of ``pages`` that have none yet."""
        if not self.settings.default_sitemaps:
            return []
        urls: dict[str, str] = {}
        for page in pages:
            if page.host not in self._hosts:
                self._hosts.add(page.host)
                urls[page.host] = origin_of(page.url) + "/sitemap.xml"
        known = store.known_sources(urls.values())
        found = (
            self.found(url, SITEMAP, "default", None) for url in urls.values() if url not in known
        )
        return [source for source in found if source is not None]
