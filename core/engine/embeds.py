"""What pages embed, fetched in the round that fetches the page (docs/design.md §14).

A page capture (a 2xx, or a 304 whose stored embeds still hold) names what it embeds;
each is looked up once a round: decided by the chain's embed rules, then fetched in this
round if it was never fetched or its own interval has passed (wherever it is hosted,
with that host's robots.txt and politeness: the round queues it on its host, ahead of
that host's pages), else taken as archived by its earlier capture. What an embed embeds
in turn (a stylesheet's imports and fonts, a frame's images) is followed up to
``embeds.max_hops`` from the page; a redirect's target stands in for it at its own hop.

When all of a capture's embeds are decided, fetched or failed, what it found (how many
are archived, which are missing and why) goes onto its fetch event with the next commit.
A round that ends before an embed's turn (stopped, a host that asked to wait, offline)
says so as that embed's reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from recrawl.core import store
from recrawl.core.clock import Clock
from recrawl.core.config import CrawlSettings
from recrawl.core.engine.commits import CommitPipeline
from recrawl.core.engine.events import EventQueue, LinkRejected
from recrawl.core.engine.parse import EmbedList, header_embeds
from recrawl.core.filters.compiled import CompiledChain
from recrawl.core.net.fetch import TOO_MANY_REDIRECTS
from recrawl.core.net.urls import host_of
from recrawl.core.store.models import DiscoveredVia, PageKind, PageStatus

if TYPE_CHECKING:
    from recrawl.core.net.fetch import FetchResult

_ARCHIVED = (PageStatus.FETCHED, PageStatus.NOTMODIFIED)
_REDIRECTS = (PageStatus.REDIRECT_PERM, PageStatus.REDIRECT_TEMP)
#: A page whose latest capture replaced its 2xx payload (update._REPLACING's outcomes).
_GONE = (PageStatus.GONE, *_REDIRECTS)
_NO_REFS = store.Refs()


@dataclass(frozen=True, slots=True)
class Found:
    """What the round found of one embedded URL."""

    archived: bool
    #: Why it is missing (None when archived).
    reason: str | None = None
    #: What it embeds in turn; for a redirect, its target.
    refs: store.Refs = _NO_REFS
    #: A redirect: its target (``refs.urls[0]``) is what the page gets.
    redirect: bool = False
    #: What it embeds past the per-page limit: counted, not kept.
    dropped: int = 0


@dataclass(frozen=True, slots=True)
class Embedded:
    """What one capture embeds, as its analysis (or its stored row) says."""

    refs: store.Refs
    #: References that are no URL (as written, why).
    invalid: Sequence[tuple[str, str]] = ()
    #: Distinct references past the per-page limit, not kept.
    dropped: int = 0


def refs_of(found: EmbedList | None, extra: Sequence[str] = ()) -> store.Refs:
    """An analysis's embeds (and ``extra`` ones) as the store keeps them."""
    if found is None:
        return store.Refs(tuple(dict.fromkeys(extra)))
    urls = tuple(dict.fromkeys([*found.urls, *extra]))
    return store.Refs(urls, frozenset(found.imports), frozenset(found.guesses))


def page_embeds(found: EmbedList | None, result: FetchResult, url: str, limit: int) -> Embedded:
    """What a page capture embeds: what its HTML names, and its ``Link`` header's
    preloads and stylesheets (RFC 8288), each once, at most ``limit``."""
    urls = list(found.urls) if found is not None else []
    dropped = found.dropped if found is not None else 0
    header = result.header("link")
    if header:
        have = set(urls)
        for extra in header_embeds(header, url):
            if extra in have:
                continue
            have.add(extra)
            if len(urls) < limit:
                urls.append(extra)
            else:
                dropped += 1
    invalid = [(item.url, item.reason) for item in found.invalid] if found is not None else []
    return Embedded(refs_of(found, urls), invalid, dropped)


def embed_row(url: str, page_url: str, now: datetime, interval: float) -> store.NewPage:
    """The row of an embed the store does not know yet, due now (fetched with its page)."""
    return store.NewPage(
        url=url,
        host=host_of(url),
        next_fetch=now,
        fetch_interval=interval,
        discovered_from=page_url,
        discovered_via=DiscoveredVia.EMBED,
        kind=PageKind.EMBED,
    )


def failure_reason(status: int | None, error: str | None) -> str:
    """Why a fetch got nothing to show: its error, else its HTTP status."""
    if error:
        return error
    return f"HTTP {status}" if status is not None else "no answer"


class RoundEmbeds:
    """One round's embeds: decided once each, fetched by the round's host queues.

    ``enqueue(state)`` puts an embed to fetch on its host's queue; ``batch()`` is the
    round's current commit batch.
    """

    def __init__(
        self,
        settings: CrawlSettings,
        clock: Clock,
        events: EventQueue,
        commits: CommitPipeline,
        rules: Callable[[], CompiledChain],
        initial_interval: float,
        enqueue: Callable[[store.EmbedState], None],
        batch: Callable[[], store.CommitBatch],
    ) -> None:
        self.enabled = settings.embeds.enabled
        self.max_hops = settings.embeds.max_hops
        self.max_redirects = settings.fetch.max_redirects
        self.limit = settings.parse.max_embeds
        self.clock = clock
        self.events = events
        self.commits = commits
        self.rules = rules
        self.initial_interval = initial_interval
        self.enqueue = enqueue
        self.batch = batch
        #: Each embedded URL's finding this round, by URL (one lookup and fetch a round).
        self._found: dict[str, asyncio.Future[Found]] = {}
        #: Embeds queued for fetching and not yet fetched, by URL.
        self._queued: set[str] = set()
        #: Captures whose embeds are being gathered.
        self.tasks: set[asyncio.Task[None]] = set()

    # -- from the round -------------------------------------------------------------

    def captured(self, page_id: int, page_url: str, at: datetime, embedded: Embedded) -> None:
        """A page capture at ``at``: gather its embeds, then record what it found."""
        if not self.enabled:
            return
        task = asyncio.create_task(self._complete(page_id, page_url, at, embedded))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def fetched(self, url: str, found: Found) -> None:
        """An embed's fetch was recorded."""
        self._queued.discard(url)
        future = self._found.get(url)
        if future is not None and not future.done():
            future.set_result(found)

    def not_fetched(self, url: str, reason: str) -> None:
        """A queued embed will not be fetched this round (its host asked to wait)."""
        self.fetched(url, Found(False, reason))

    def orphaned(self, reason: str) -> None:
        """No host queue is served any more: the embeds still queued are not fetched."""
        for url in list(self._queued):
            self.not_fetched(url, reason)

    def cancel(self) -> None:
        for task in self.tasks:
            task.cancel()

    # -- one capture ----------------------------------------------------------------

    async def _complete(
        self, page_id: int, page_url: str, at: datetime, embedded: Embedded
    ) -> None:
        missing: list[tuple[str, str]] = [
            (url, f"not a URL: {reason}") for url, reason in embedded.invalid
        ]
        past_limit = embedded.dropped
        archived = 0
        seen = {page_url}
        taken = 0
        # guesses (from scripts' text) count when they are there, never as missing
        guesses = set(embedded.refs.guesses)
        # (url, hop, redirects that led to it)
        wave = [(url, 1, 0) for url in embedded.refs.urls]
        while wave:
            take: list[tuple[str, int, int]] = []
            for url, hop, redirects in wave:
                if url in seen:
                    continue
                seen.add(url)
                if taken >= self.limit:
                    past_limit += url not in guesses
                    continue
                if hop > self.max_hops:
                    if url not in guesses:
                        missing.append((url, self._too_deep))
                    continue
                taken += 1
                take.append((url, hop, redirects))
            futures = await self._look_up([url for url, _, _ in take], page_url)
            wave = []
            for url, hop, redirects in take:
                found = await futures[url]
                refs = found.refs
                # at most fetch.max_redirects (as for robots.txt) from one embedded URL:
                # a server redirecting /r/1 to /r/2 and on would keep the round fetching
                if found.redirect and redirects >= self.max_redirects:
                    if url not in guesses:
                        too_many = f"{TOO_MANY_REDIRECTS} (more than {self.max_redirects})"
                        missing.append((url, too_many))
                    continue
                if found.redirect:  # its target stands in for it, at the same hop
                    taken -= 1
                    if url in guesses:
                        guesses.update(refs.urls)
                    wave.extend((target, hop, redirects + 1) for target in refs.urls)
                    continue
                if found.archived:
                    archived += 1
                elif url in guesses:
                    taken -= 1  # a wrong guess: neither archived nor missing
                else:
                    missing.append((url, found.reason or "not archived"))
                past_limit += found.dropped
                guesses |= refs.guesses
                wave.extend((ref, hop if ref in refs.imports else hop + 1, 0) for ref in refs.urls)
        # those past the limit are counted, not listed: their URLs were not all kept
        kept = tuple(missing[: store.MISSING_KEPT])
        completeness = store.Completeness(page_id, at, archived, kept, len(missing) + past_limit)
        self.batch().completeness.append(completeness)

    @property
    def _too_deep(self) -> str:
        return f"more than {self.max_hops} embed hops from the page (embeds.max_hops)"

    # -- deciding -------------------------------------------------------------------

    async def _look_up(
        self, urls: Sequence[str], page_url: str
    ) -> dict[str, asyncio.Future[Found]]:
        """Each URL's finding (a future: an embed to fetch is found once fetched)."""
        loop = asyncio.get_running_loop()
        futures: dict[str, asyncio.Future[Found]] = {}
        new: list[str] = []
        for url in urls:
            future = self._found.get(url)
            if future is None:
                future = self._found[url] = loop.create_future()
                new.append(url)
            futures[url] = future
        if new:
            try:
                await self._decide(new, page_url)
            except BaseException as exc:  # a store failure: these URLs fail, here and later
                for url in new:
                    if not self._found[url].done():
                        self._found[url].set_result(Found(False, f"not looked up: {exc}"))
                raise
        return futures

    async def _decide(self, urls: list[str], page_url: str) -> None:
        rules = self.rules()
        accepted: list[str] = []
        batch = self.batch()
        for url in urls:
            verdict = rules.check(url)
            if verdict.accepted:
                accepted.append(url)
                continue
            name = verdict.filter_name or ""
            batch.rejected.append((url, f"{store.EMBED_RULE}{name}", verdict.line))
            self.events.emit(
                LinkRejected(url, page_url, verdict.filter, store.EMBED_RULE + name, verdict.line)
            )
            line = f"line {verdict.line}" if verdict.line is not None else "no rule matched"
            self._set(url, Found(False, f"embed rule {verdict.filter} ({name}), {line}"))
        if not accepted:
            return
        states = store.embed_states(accepted)  # a quick read, as a round reads its pages
        new = [url for url in accepted if url not in states]
        if new:
            # a link of a page in this batch, not yet committed: a page to be (§14), not
            # an embed to fetch as one (its links unfollowed, its first fetch no news)
            linked = {page.url for page in batch.new_pages}
            for url in [url for url in new if url in linked]:
                self._set(url, Found(False, "a page of the crawl, not fetched yet"))
            new = [url for url in new if url not in linked]
            accepted = [url for url in accepted if url not in linked]
        if new:
            now = self.clock.now()
            rows = [embed_row(url, page_url, now, self.initial_interval) for url in new]
            states.update(await self.commits.run(store.add_embeds, rows, now))
        now = self.clock.now()
        failed: list[store.EmbedState] = []
        for url in accepted:
            state = states.get(url)
            if state is None:  # gone from the store meanwhile
                self._set(url, Found(False, "not in the store"))
            elif state.kind == PageKind.EMBED and (
                state.status == PageStatus.UNFETCHED or state.next_fetch <= now
            ):
                self._queued.add(url)
                self.enqueue(state)
            elif state.status in _ARCHIVED or (
                # a page's payload is its last 2xx, unless a 404 or redirect replaced it
                state.kind == PageKind.PAGE and state.archived and state.status not in _GONE
            ):
                self._set(url, Found(True, refs=state.refs))
            elif state.status in _REDIRECTS and state.refs.urls:
                target = store.Refs(state.refs.urls[:1])
                self._set(url, Found(False, refs=target, redirect=True))
            elif state.kind == PageKind.PAGE and state.status == PageStatus.UNFETCHED:
                self._set(url, Found(False, "a page of the crawl, not fetched yet"))
            elif state.kind == PageKind.PAGE and state.status == PageStatus.FILTERED:
                self._set(url, Found(False, "a page the chain's filters turn away"))
            else:
                failed.append(state)
        if failed:
            reasons = store.last_failures([state.id for state in failed])
            for state in failed:
                if state.status == PageStatus.ROBOTS_DENIED:
                    reason = "denied by robots.txt"
                else:
                    reason = failure_reason(*reasons.get(state.id, (None, None)))
                self._set(state.url, Found(False, f"{reason} (at its last fetch)"))

    def _set(self, url: str, found: Found) -> None:
        future = self._found[url]
        if not future.done():
            future.set_result(found)
