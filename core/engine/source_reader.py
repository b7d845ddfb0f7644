"""Reading the due sitemaps and feeds of a crawl, before each round (docs/design.md §11).

A source is fetched like a page (its host's politeness and robots rules, the crawl's
connection limit) but conditionally and following redirects, up to
``sources.max_bytes``; gzip sitemaps are unpacked up to the same bound. It is parsed on
a thread of its own (a 50 MB sitemap takes seconds; the loop keeps serving the other
hosts), and its reading is one store transaction (:func:`recrawl.core.store.record_reading`).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from recrawl.core import store
from recrawl.core.clock import Clock
from recrawl.core.config import CrawlSettings
from recrawl.core.content.published import EARLIEST
from recrawl.core.engine.commits import CommitPipeline
from recrawl.core.engine.controls import Controls
from recrawl.core.engine.events import EventQueue, LogMessage
from recrawl.core.engine.links import LinkDiscoverer
from recrawl.core.engine.offline import Unreached
from recrawl.core.engine.robots_gate import RobotsGate
from recrawl.core.engine.source_parser import Listing, parse_feed, parse_sitemap, unpacked
from recrawl.core.engine.sources import FEED, FUTURE_SLACK, SITEMAP, SourceFinder, next_interval
from recrawl.core.engine.stats import CrawlStats
from recrawl.core.net.fetch import Fetcher, FetchResult
from recrawl.core.net.http import parse_http_date
from recrawl.core.net.politeness import HostSlot, HostSlots
from recrawl.core.net.urls import host_of
from recrawl.core.store.models import DiscoveredVia

#: The parser of each kind of source: (body, URL, max entries) → listing.
PARSERS: dict[str, Callable[[bytes, str, int], Listing]] = {
    SITEMAP: parse_sitemap,
    FEED: parse_feed,
}
VIA = {SITEMAP: DiscoveredVia.SITEMAP, FEED: DiscoveredVia.FEED}


class SourceReader:
    """One crawl's source readings; :meth:`close` when the crawl ends."""

    def __init__(
        self,
        settings: CrawlSettings,
        clock: Clock,
        controls: Controls,
        events: EventQueue,
        stats: CrawlStats,
        hosts: HostSlots,
        links: LinkDiscoverer,
        fetcher: Fetcher,
        connections: asyncio.Semaphore,
        commits: CommitPipeline,
        robots: RobotsGate | None,
        finder: SourceFinder,
    ) -> None:
        self.settings = settings.sources
        #: A worker's name: only the sources of the hosts it leased are read (§12).
        self.leased_by: str | None = None
        self.politeness = settings.politeness
        self.clock = clock
        self.controls = controls
        self.events = events
        self.stats = stats
        self.hosts = hosts
        self.links = links
        self.fetcher = fetcher
        self.connections = connections
        self.commits = commits
        self.robots = robots
        self.finder = finder
        self._thread: ThreadPoolExecutor | None = None

    def note_pages(self, pages: list[store.DuePage]) -> None:
        """The hosts of a round's pages get their ``/sitemap.xml`` as a source."""
        found = self.finder.default_sitemaps(pages)
        if found:
            self.commits.write(store.add_sources, found, self.clock.now())

    async def read_due(self) -> int:
        """Read the sources due now (and those their readings find: an index's
        sitemaps, a robots.txt's), at most ``max_reads_per_round``; returns how many."""
        read = 0
        # each pass reads what the one before found; an index nests max_index_depth deep
        for _ in range(self.settings.max_index_depth + 2):
            await self.commits.drain()  # what was found so far is in the store
            room = self.settings.max_reads_per_round - read
            if self.controls.stopped or room <= 0:
                break
            due = store.due_sources(self.clock.now(), room, self.leased_by)
            if not due:
                break
            by_host: dict[str, list[store.DueSource]] = defaultdict(list)
            for source in due:
                by_host[source.host].append(source)
            await asyncio.gather(*(self._read_host(self.hosts[h], s) for h, s in by_host.items()))
            read += len(due)
        await self.commits.drain()
        return read

    def close(self) -> None:
        if self._thread is not None:
            self._thread.shutdown(wait=True, cancel_futures=True)
            self._thread = None

    async def _read_host(self, slot: HostSlot, sources: list[store.DueSource]) -> None:
        for source in sources:
            if self.controls.stopped:
                return
            await self.controls.until_resumed()
            await self._read(source, slot)

    async def _read(self, source: store.DueSource, slot: HostSlot) -> None:
        lane = slot.lane
        if self.robots is not None:
            denied_by = await self.robots.denial(source.url, slot, lane)
            if isinstance(denied_by, Unreached):
                return  # offline, maybe: it stays due
            if denied_by is not None:  # the robots gate has said why in the log
                why = denied_by.failure or "denied by robots.txt"
                self._failed(source, self.clock.now(), None, why, quiet=True)
                return
        wait = slot.reserve()
        if wait > self.politeness.max_retry_after:
            return  # the host asked for a long break: the source waits with its pages
        if wait > 0:
            await asyncio.sleep(wait)
        now = self.clock.now()
        async with self.connections:
            result = await self.fetcher.fetch(
                source.url,
                now,
                etag=source.etag,
                last_modified=source.last_modified,
                max_bytes=self.settings.max_bytes,
                follow_redirects=True,
                lane=lane,
            )
        slot.finished()
        status = result.status
        if result.error is not None or status is None:
            self._failed(source, now, None, result.error or "no answer")
        elif status in (429, 503):
            # not the host's back-off: that is its pages' to meet (and record), a source
            # only waits twice as long
            self._failed(source, now, status, f"HTTP {status}")
        elif status == 304:
            slot.answered()
            self._unchanged(source, now)
        elif not 200 <= status < 300:
            slot.answered()
            self._failed(source, now, status, f"HTTP {status}", missing=400 <= status < 500)
        else:
            slot.answered()
            await self._listed(source, now, result)

    async def _listed(self, source: store.DueSource, now: datetime, result: FetchResult) -> None:
        settings = self.settings
        problems: list[str] = []
        if result.truncated or result.decode_error:
            size = len(result.decoded or b"")
            problems.append(
                f"cut at {size:,} bytes ({result.decode_error or result.truncated}; "
                f"sources.max_bytes is {settings.max_bytes:,})"
            )
        body, problem = unpacked(result.decoded or b"", settings.max_bytes)
        if problem is not None:
            problems.append(problem)
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="recrawl-sources")
        parse = PARSERS[source.kind]
        loop = asyncio.get_running_loop()
        try:
            listing = await loop.run_in_executor(
                self._thread, parse, body, source.url, settings.max_entries
            )
        except Exception as exc:  # a parser's bug or absurd input: this source's failure
            self._failed(source, now, result.status, f"unreadable ({type(exc).__name__}: {exc})")
            return
        problems += listing.problems
        if listing.skipped:
            problems.append(
                f"lists {listing.skipped:,} more than {settings.max_entries:,} entries: "
                "the first read (sources.max_entries)"
            )
        if listing.malformed:
            problems.append(f"{listing.malformed:,} of its entries are no URL")
        reading = store.SourceReading(source.id, {})
        self._entries(source, listing, now, reading, problems)
        if listing.sitemaps:
            self._children(source, listing.sitemaps, reading, problems)
        known = store.page_ids(page.url for page in reading.new_pages)
        reading.new_pages = [page for page in reading.new_pages if page.url not in known]
        reading.listed = list(known.values())  # an embed among them becomes a page
        found_new = bool(reading.new_pages or reading.children)
        interval = next_interval(source.fetch_interval, found_new, settings)
        reading.fields = self._fields(now, interval, result.status, problems)
        reading.fields.update(
            etag=result.header("etag"),
            last_modified=parse_http_date(result.header("last-modified")),
            entries=len(listing.entries) + len(listing.sitemaps),
        )
        self.commits.write(store.record_reading, reading, now, done=self._added)
        if problems:
            self._say("warning", source, "; ".join(problems))
        if reading.new_pages or reading.children:
            found = [f"{len(reading.new_pages):,} new pages"] if reading.new_pages else []
            if reading.children:
                found.append(f"{len(reading.children):,} new sitemaps")
            listed = len(listing.entries) + len(listing.sitemaps)
            self._say("info", source, f"{listed:,} listed, {' and '.join(found)}")

    def _entries(
        self,
        source: store.DueSource,
        listing: Listing,
        now: datetime,
        reading: store.SourceReading,
        problems: list[str],
    ) -> None:
        latest = now + FUTURE_SLACK
        future = 0
        dated: list[tuple[str, datetime | None]] = []
        for entry in listing.entries:
            modified = entry.modified
            if modified is not None and modified > latest:
                future += 1
                modified = None
            published = entry.published or modified
            if published is not None and not EARLIEST <= published <= latest:
                published = None  # the future, or a generator's placeholder (1970, year 1)
            dated.append((entry.url, published))
            if modified is not None:
                reading.modified.append((entry.url, modified))
            if published is not None:
                reading.dates.append((entry.url, published))
        if future:
            entries = "1 entry" if future == 1 else f"{future:,} entries"
            problems.append(f"{entries} changed in the future, it says: dates ignored")
        self.links.from_source(source.url, VIA[source.kind], dated, reading)

    def _children(
        self,
        source: store.DueSource,
        sitemaps: list[str],
        reading: store.SourceReading,
        problems: list[str],
    ) -> None:
        depth = self._index_depth(source)
        if depth >= self.settings.max_index_depth:
            problems.append(
                f"an index {depth + 1} deep (sources.max_index_depth is "
                f"{self.settings.max_index_depth}): its {len(sitemaps):,} sitemaps are not read"
            )
            return
        elsewhere = 0
        for url in sitemaps:
            if url == source.url:
                problems.append("lists itself")
                continue
            if host_of(url) != source.host:
                elsewhere += 1  # sitemaps.org: an index lists sitemaps of its own host
                continue
            child = self.finder.found(url, SITEMAP, "index", source.url)
            if child is not None:
                reading.children.append(child)
        if elsewhere:
            problems.append(f"{elsewhere:,} of its sitemaps are on other hosts: not read")

    @staticmethod
    def _index_depth(source: store.DueSource) -> int:
        """How many indexes lead to ``source`` (0: it was found otherwise)."""
        depth, via, parent, seen = 0, source.found_via, source.found_from, {source.url}
        while via == "index" and parent is not None and parent not in seen and depth < 100:
            seen.add(parent)
            depth += 1
            found = store.source_parent(parent)
            if found is None:
                break
            via, parent = found
        return depth

    def _unchanged(self, source: store.DueSource, now: datetime) -> None:
        interval = next_interval(source.fetch_interval, False, self.settings)
        fields = self._fields(now, interval, 304, [])
        self.commits.write(store.record_reading, store.SourceReading(source.id, fields), now)

    def _failed(
        self,
        source: store.DueSource,
        now: datetime,
        status: int | None,
        reason: str,
        *,
        missing: bool = False,
        quiet: bool = False,
    ) -> None:
        """A reading that failed; ``missing`` (4xx): there is none, ask again rarely;
        ``quiet``: said already, an info line only."""
        interval = next_interval(source.fetch_interval, None, self.settings)
        if missing:
            interval = self.settings.max_interval
        fields = self._fields(now, interval, status, [reason])
        self.commits.write(store.record_reading, store.SourceReading(source.id, fields), now)
        # a host without /sitemap.xml is the common case, not worth a warning
        level = "info" if quiet or (missing and source.found_via == "default") else "warning"
        self._say(level, source, reason)

    @staticmethod
    def _fields(
        now: datetime, interval: float, status: int | None, problems: list[str]
    ) -> dict[str, Any]:
        return {
            "last_fetched": now,
            "http_status": status,
            "error": "; ".join(problems) or None,
            "fetch_interval": interval,
            "next_fetch": now + timedelta(seconds=interval),
        }

    def _added(self, added: int) -> None:
        self.stats.new_urls += added

    def _say(self, level: str, source: store.DueSource, text: str) -> None:
        self.events.emit(LogMessage(level, f"{source.kind} {source.url}: {text}"))
