"""Link discovery: links of fetched pages through the filter chain, to new pages.

Each link target is checked once per crawl by the compiled chain (docs/design.md §6), then by
the trap limits (:mod:`.traps`); an accepted one becomes a link row and, if new, a page;
a rejected one a rejected-link row (answering "why was X never crawled") and a
:class:`LinkRejected` event. The chain's verdicts are remembered so a link met on every
page of a site costs one check. A link that is no URL at all (malformed, 10 kB long, not
http) is a rejected link too, named for what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from recrawl.core import store
from recrawl.core.clock import Clock
from recrawl.core.config import ParseSettings
from recrawl.core.engine.events import EventQueue, LinkRejected, LogMessage
from recrawl.core.engine.parse import ParseResult, bounded
from recrawl.core.engine.traps import SEQUENCE_KEY, Admitted, TrapGuard
from recrawl.core.errors import InvalidUrl
from recrawl.core.filters import Chain
from recrawl.core.filters.compiled import CompiledChain, compile_chain
from recrawl.core.net.urls import canonical, host_of
from recrawl.core.policy.schedule import FetchSchedule
from recrawl.core.store.models import DiscoveredVia, Page
from recrawl.core.store.rejected import NOT_URLS

LINK, REDIRECT = DiscoveredVia.LINK, DiscoveredVia.REDIRECT


class LinkDiscoverer:
    """One crawl's link discovery, with its memory of the link targets it has checked."""

    def __init__(
        self,
        compiled_chain: CompiledChain,
        schedule: FetchSchedule,
        clock: Clock,
        events: EventQueue,
        traps: TrapGuard,
        *,
        seen_limit: int,
        follow_nofollow: bool,
        embed_rules: CompiledChain | None = None,
    ) -> None:
        self.compiled_chain = compiled_chain
        #: The chain's embed rules (docs/design.md §14), which decide what pages embed.
        self.embed_rules = embed_rules or compile_chain(Chain([]))
        self.schedule = schedule
        self.clock = clock
        self.events = events
        self.traps = traps
        self.seen_limit = seen_limit
        self.follow_nofollow = follow_nofollow
        self._seen: set[str] = set()  # targets checked (and queued pages)
        self._rejected: set[str] = set()  # the ones of them the chain rejected

    def use_chain(self, compiled_chain: CompiledChain, embed_rules: CompiledChain) -> None:
        """Judge links (and embeds) by another chain from now on (the project's was
        applied anew); the verdicts remembered were the old chain's."""
        self.compiled_chain = compiled_chain
        self.embed_rules = embed_rules
        self._seen.clear()
        self._rejected.clear()

    @property
    def remembered(self) -> int:
        """How many URLs the memory holds (at most ``seen_limit`` plus one round's queue)."""
        return len(self._seen)

    def in_scope(self, url: str) -> bool:
        """Whether the chain accepts ``url`` (a feed a page advertises, say)."""
        return self.compiled_chain.check(url).accepted

    def remember(self, url: str) -> None:
        """A page queued for fetching: links to it need no check."""
        self._seen.add(url)

    def from_html(self, page: Page, parsed: ParseResult, batch: store.CommitBatch) -> list[str]:
        """The targets of the page's followable links that are (or become) pages; its
        links that are no URL, as rejected links."""
        for invalid in parsed.invalid:
            self._reject(page, invalid.url, f"{NOT_URLS[0]}{invalid.reason}", batch)
        if parsed.malformed > len(parsed.invalid):
            self.events.emit(
                LogMessage(
                    "warning",
                    f"{page.url}: {parsed.malformed:,} links are no URL to fetch; "
                    f"the first {ParseSettings.max_invalid_links} distinct ones are recorded as rejected links",
                )
            )
        now = self.clock.now()  # one instant for the page's links (one object, not 100,000)
        return [
            link.url
            for link in parsed.links
            if (self.follow_nofollow or not link.nofollow)
            and self._discovered(page, link.url, batch, now)
        ]

    def from_redirect(self, page: Page, location: str, batch: store.CommitBatch) -> list[str]:
        """The redirect's target, if it is (or becomes) a page."""
        try:
            target = canonical(location, page.url)
        except InvalidUrl as exc:
            self.events.emit(
                LogMessage("warning", f"{page.url}: bad redirect Location {bounded(location)!r}")
            )
            self._reject(page, bounded(location), f"{NOT_URLS[1]}{exc.reason}", batch)
            return []
        now = self.clock.now()
        return [target] if self._discovered(page, target, batch, now, REDIRECT) else []

    def from_source(
        self,
        source_url: str,
        via: str,
        entries: Sequence[tuple[str, datetime | None]],
        reading: store.SourceReading,
    ) -> None:
        """The pages a sitemap or feed lists (``via``), with the date it gives each,
        through the chain into ``reading``: new pages (one hop from their source, as a
        seed's links), rejected links. Known pages are left to the store."""
        now = self.clock.now()
        for url, published in entries:
            if url in self._seen:
                continue  # checked already: a page, or rejected and recorded
            if not self._chain_admits(url, source_url, reading.rejected):
                continue
            reading.new_pages.append(
                store.NewPage(
                    url=url,
                    host=host_of(url),
                    next_fetch=now,
                    fetch_interval=self.schedule.initial_interval(),
                    depth=1,
                    discovered_from=source_url,
                    discovered_via=via,
                    published_at=published,
                )
            )

    def _discovered(
        self, page: Page, url: str, batch: store.CommitBatch, now: datetime, via: str = LINK
    ) -> bool:
        """Filter a link into ``batch``; returns whether its target is (or becomes) a page."""
        if url == page.url:
            return False
        if url in self._seen:
            if url in self._rejected:
                return False
            batch.links.append((page.id, url))
            return True
        if not self._chain_admits(url, page.url, batch.rejected):
            return False
        admitted = self.traps.admit(page, url)
        if not isinstance(admitted, Admitted):
            # not remembered: a link from a page nearer a seed may yet be followed
            self._seen.discard(url)
            self._reject(page, url, admitted, batch)
            return False
        batch.new_pages.append(
            store.NewPage(
                url=url,
                host=host_of(url),
                next_fetch=now,
                fetch_interval=self.schedule.initial_interval(),
                depth=admitted.depth,
                discovered_from=page.url,
                discovered_via=via,
                metadata={SEQUENCE_KEY: admitted.sequence} if admitted.sequence else None,
            )
        )
        batch.links.append((page.id, url))
        return True

    def _chain_admits(
        self, url: str, found_in: str, rejected: list[tuple[str, str, int | None]]
    ) -> bool:
        """Remember ``url`` as checked; whether the chain accepts it (if not, the rejection
        goes into ``rejected`` with its filter and line, and out as an event)."""
        if len(self._seen) >= self.seen_limit:
            # a long crawl meets more URLs than memory should hold: start over (the store
            # ignores pages it has, so forgetting only costs checking again)
            self._seen.clear()
            self._rejected.clear()
        self._seen.add(url)
        verdict = self.compiled_chain.check(url)
        if verdict.accepted:
            return True
        self._rejected.add(url)
        rejected.append((url, verdict.filter_name or "", verdict.line))
        self.events.emit(
            LinkRejected(url, found_in, verdict.filter, verdict.filter_name, verdict.line)
        )
        return False

    def _reject(self, page: Page, url: str, reason: str, batch: store.CommitBatch) -> None:
        """A link held back by no filter of the chain: recorded with ``reason`` as the
        filter's name (no rule line)."""
        batch.rejected.append((url, reason, None))
        self.events.emit(LinkRejected(url, page.url, None, reason, None))
