"""One crawl round: its pages fetched by host tasks into one segment (docs/design.md §3).

Each host with due pages gets ``per_host`` host tasks that take its pages in turn, with the
host's politeness (:class:`~recrawl.core.net.politeness.HostSlot`), the robots gate, and
the crawl's connection limit. Every ``commit_every`` fetches (or ``commit_seconds``) the
round hands its batch to the commit pipeline. A stopped round leaves its unfetched pages
due; a paused one commits what it has and sends nothing until resumed.

What a fetched page embeds joins the round (:mod:`.embeds`): each embed to fetch is
queued on its host, ahead of that host's pages, and a host with no pages in the round
gets host tasks of its own when its first embed comes; the round ends once every queue is
empty and every page capture knows what it found of its embeds.

Memory: a round queues its pages as ids and URLs, and reads each page's row when its
turn is near (:data:`LOAD_AHEAD` at a time); no more than :data:`MAX_PENDING_COMMITS`
batches wait for the store, so a round of 50,000 pages robots.txt denies (handled
faster than they are committed) holds a few batches, not all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import partial
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.segments import allocate_name
from recrawl.core.clock import HOUR, Clock, human_duration
from recrawl.core.config import CrawlSettings
from recrawl.core.disk import is_full
from recrawl.core.engine.analysis import (
    Analysis,
    Asked,
    PageAnalyser,
    ToArchive,
    signing,
    unsigned_payload,
)
from recrawl.core.engine.browser_pages import (
    BrowserSession,
    Loaded,
    PageLoad,
    RoundLoads,
    rendered_result,
)
from recrawl.core.engine.capture_writer import CaptureWriter, archived_whole
from recrawl.core.engine.commits import CommitPipeline
from recrawl.core.engine.controls import Controls
from recrawl.core.engine.embeds import Embedded, Found, RoundEmbeds, embed_row, page_embeds
from recrawl.core.engine.events import BaselineDone, EventQueue, LogMessage, RoundStarted
from recrawl.core.engine.links import LinkDiscoverer
from recrawl.core.engine.offline import HeldFailure, Reachability, Unreached
from recrawl.core.engine.parse import HTML_TYPES, media_type
from recrawl.core.engine.record import FetchRecorder
from recrawl.core.engine.robots_gate import RobotsGate
from recrawl.core.engine.stats import CrawlStats
from recrawl.core.engine.update import Outcome, classify, never_fetched
from recrawl.core.engine.worker import WorkerSession
from recrawl.core.filters.compiled import CompiledChain
from recrawl.core.net.fetch import CONNECTIONS_PER_LANE, Fetcher, FetchResult
from recrawl.core.net.politeness import HostSlot, HostSlots
from recrawl.core.store.models import NewsKind, Page, PageKind, PageStatus

#: Page rows read in one query when a host's next page is not yet read.
LOAD_AHEAD = 64
#: Commit batches handed to the store thread and not yet committed, at most.
MAX_PENDING_COMMITS = 4
#: How long a browser host's pages wait when there is no browser to load them.
NO_BROWSER_WAIT = HOUR
#: Outcomes whose capture becomes the page's payload in place of its last 2xx.
_REPLACING = (Outcome.GONE, Outcome.REDIRECT_PERM, Outcome.REDIRECT_TEMP)


@dataclass(frozen=True)
class CrawlParts:
    """What the rounds of one crawl share; made inside the crawl's event loop."""

    project_dir: Path
    settings: CrawlSettings
    clock: Clock
    controls: Controls
    events: EventQueue
    stats: CrawlStats
    hosts: HostSlots
    links: LinkDiscoverer
    recorder: FetchRecorder
    #: Parses and signs 2xx pages off the event loop.
    analyser: PageAnalyser
    fetcher: Fetcher
    #: Requests in flight at once, all hosts together (``politeness.concurrency``).
    connections: asyncio.Semaphore
    commits: CommitPipeline
    #: None when the crawl ignores robots.txt.
    robots: RobotsGate | None
    #: Holds connect failures until a host answers (.offline); None: recorded at once.
    reach: Reachability | None = None
    #: The worker whose leased hosts the round fetches (docs/design.md §12); None: no worker.
    worker: WorkerSession | None = None
    #: The chain's embed rules as they are now (docs/design.md §14); None: no rules.
    embed_rules: Callable[[], CompiledChain] | None = None
    #: New embeds' first interval (the schedule's initial one).
    initial_interval: float = 10 * 86400.0
    #: The browser of hosts captured in ``browser`` mode (docs/design.md §16).
    browser: BrowserSession | None = None


class HostQueue:
    """A host's turns in a round: the embeds of pages already fetched first (so a capture
    and its embeds are close in time), then the host's due pages."""

    def __init__(self) -> None:
        self.embeds: deque[store.DuePage] = deque()
        self.pages: deque[store.DuePage] = deque()

    def _of(self, ref: store.DuePage) -> deque[store.DuePage]:
        return self.embeds if ref.kind == PageKind.EMBED else self.pages

    def append(self, ref: store.DuePage) -> None:
        self._of(ref).append(ref)

    def appendleft(self, ref: store.DuePage) -> None:
        self._of(ref).appendleft(ref)

    def popleft(self) -> store.DuePage:
        return self.embeds.popleft() if self.embeds else self.pages.popleft()

    def clear(self) -> None:
        self.embeds.clear()
        self.pages.clear()

    def __bool__(self) -> bool:
        return bool(self.embeds or self.pages)

    def __len__(self) -> int:
        return len(self.embeds) + len(self.pages)

    def __iter__(self) -> Iterator[store.DuePage]:
        yield from self.embeds
        yield from self.pages


class Round:
    """One round's segment, commit batch and counts, and the host tasks that fill them."""

    def __init__(self, parts: CrawlParts, pages: list[store.DuePage]) -> None:
        self.parts = parts
        start = parts.clock.now()
        worker = parts.worker
        name = allocate_name(parts.project_dir, start, worker.tag if worker else None)
        self.writer = SegmentWriter(
            parts.project_dir,
            name,
            start,
            {"operator": parts.settings.fetch.user_agent},
            worker.name if worker else None,
        )
        self.captures = CaptureWriter(self.writer)
        self.batch = store.CommitBatch(segment=name)
        #: The WARC's size the store knows of: what the segment keeps when it closes.
        self.committed_bytes = 0
        self.last_commit = time.monotonic()
        #: Pages whose in-link counts are recounted when the round ends (inlinks scoring).
        self.rescore: set[str] = set()
        self.stats = parts.stats.start_round(name, len(pages))
        parts.events.emit(RoundStarted(self.stats.number, name, len(pages), start))
        #: The slots of the hosts that have pages in this round, in order of first page,
        #: and each host's pages (and embeds) still to fetch.
        self.slots: list[HostSlot] = []
        self.queues: dict[str, HostQueue] = {}
        for page in pages:
            queue = self.queues.get(page.host)
            if queue is None:
                self.slots.append(parts.hosts[page.host])
                queue = self.queues[page.host] = HostQueue()
            queue.append(page)
            parts.links.remember(page.url)
        parts.recorder.start_round(self.queues)  # their baselines tell a first fetch's news
        #: The host tasks, and how many of each host's are still taking turns.
        self.host_tasks: list[asyncio.Task[None]] = []
        self.serving: dict[str, int] = {}
        #: The ids queued as embeds (docs/design.md §14), until recorded.
        self.embed_jobs: set[int] = set()
        #: Hosts that take no more turns this round, and why (said to their embeds).
        self.closed: dict[str, str] = {}
        #: Set when an embed is queued (and its host maybe given host tasks): _until_done
        #: waits for those tasks too, and says "not fetched" if none will run.
        self.requeued = asyncio.Event()
        self.embeds = RoundEmbeds(
            parts.settings,
            parts.clock,
            parts.events,
            parts.commits,
            parts.embed_rules or (lambda: parts.links.embed_rules),
            parts.initial_interval,
            self._enqueue_embed,
            lambda: self.batch,
        )
        #: What the round's browser page loads fetched (.browser_pages).
        self.loads = RoundLoads()
        #: Rows read ahead of their turn (LOAD_AHEAD), or put back in a queue.
        self.loaded: dict[int, Page] = {}
        #: No host answered and some failed to connect: nothing of it was recorded (.offline).
        self.offline = False
        if parts.reach is not None:
            parts.reach.start_round()

    async def run(self) -> None:
        parts = self.parts
        for slot in self.slots:
            self._serve(slot)
        watcher = asyncio.create_task(self._cancel_on_stop())
        try:
            await self._until_done()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            # a round that failed (a full disk) drops its fetches in flight; one that
            # ended has none left
            for task in self.host_tasks:
                task.cancel()
            await asyncio.gather(*self.host_tasks, return_exceptions=True)
            self.embeds.cancel()
            await asyncio.gather(*self.embeds.tasks, return_exceptions=True)
            for queue in self.queues.values():
                queue.clear()  # a stopped round leaves its pages due
            self._settle_held()
            self._commit()
            await parts.commits.drain()
            kept = self.committed_bytes
            lost = parts.worker is not None and parts.worker.lost
            if lost or parts.commits.failed:  # batches refused, or one failed: cut off
                kept = store.committed_bytes(self.writer.name)
            self.writer.close(parts.clock.now(), kept)
            if self.rescore:  # a kill before this only leaves some scores a round old
                store.retried(store.rescore_inlinks, self.rescore)
        name = self.writer.name
        if store.segment_names() & {name}:
            parts.stats.segments.append(name)
        # the hosts left nothing unfetched: their first crawl is done (docs/design.md §15)
        done = store.retried(store.complete_baselines, parts.clock.now())
        parts.events.emit(self.stats.finished(BaselineDone(d.host, d.url, d.pages) for d in done))

    async def _until_done(self) -> None:
        """Wait for the host tasks, those embeds start included, and the page captures
        gathering their embeds; a host task's error (a bug) ends the round."""
        while True:
            self.requeued.clear()
            running = [task for task in self.host_tasks if not task.done()]
            if not running:
                # nothing will fetch what is still queued: said as those embeds' reason
                self.embeds.orphaned(self._unfetched_reason())
            waiting = set(running) | self.embeds.tasks
            if not waiting:
                break
            # a capture's embeds queued from now on may start host tasks this wait would
            # not know of, or none (stopped): it looks again then
            requeued = asyncio.ensure_future(self.requeued.wait())
            try:
                done, _ = await asyncio.wait(
                    waiting | {requeued}, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                requeued.cancel()
            for task in done:
                if task is requeued or task.cancelled():
                    continue
                error = task.exception()
                if error is not None and (
                    task in self.host_tasks or not isinstance(error, Exception) or is_full(error)
                ):
                    raise error
                if error is not None:  # a capture's embeds could not be gathered
                    self.parts.events.emit(
                        LogMessage("error", f"embeds of a page not gathered: {error}")
                    )
        for task in self.host_tasks:
            if not task.cancelled() and (error := task.exception()) is not None:
                raise error

    def _unfetched_reason(self) -> str:
        if self.parts.controls.stopped:
            return "not fetched: the crawl stopped first"
        if self.offline:
            return "not fetched: no host answered (offline?)"
        return "not fetched: its host's turn ended first"

    def _serve(self, slot: HostSlot) -> None:
        """Start the host's tasks (a host's tasks share few client lanes, so
        connections get reused: fetch.py)."""
        count = max(1, self.parts.settings.politeness.per_host)
        self.serving[slot.host] = self.serving.get(slot.host, 0) + count
        for number in range(count):
            lane = slot.lane + number // CONNECTIONS_PER_LANE
            self.host_tasks.append(asyncio.create_task(self._host_task(slot, lane)))

    def _enqueue_embed(self, state: store.EmbedState) -> None:
        """Queue an embed to fetch on its host, which gets host tasks if it has none."""
        closed = self.closed.get(state.host)
        if closed is not None:  # the host asked for a break, or could not be reached
            self.embeds.not_fetched(state.url, closed)
            return
        self.embed_jobs.add(state.id)
        self.requeued.set()
        queue = self.queues.get(state.host)
        if queue is None:
            queue = self.queues[state.host] = HostQueue()
        queue.append(store.DuePage(state.id, state.url, state.host, PageKind.EMBED))
        if self.parts.controls.stopped:
            return  # orphaned, said as stopped
        if not self.serving.get(state.host):
            slot = self.parts.hosts[state.host]
            if slot not in self.slots:
                self.slots.append(slot)
            self._serve(slot)

    async def _cancel_on_stop(self) -> None:
        await self.parts.controls.until_stopped()
        await asyncio.sleep(self.parts.settings.stop_grace)
        for task in self.host_tasks:
            task.cancel()

    # -- per host --------------------------------------------------------------------

    async def _host_task(self, slot: HostSlot, lane: int) -> None:
        # A 2xx page is analysed while its lane fetches the next one: analysis is no
        # request, so the host still gets one request at a time per lane, and the
        # connection is not left idle meanwhile. One page per lane is analysed at a time.
        analysing: list[asyncio.Task[None]] = []
        try:
            try:
                await self._fetch_pages(slot, lane, analysing)
            finally:
                # no await since its queue was last seen empty: an embed queued from now
                # on starts host tasks of its own
                self.serving[slot.host] -= 1
        except BaseException:  # stopped (cancelled), or a bug: its page is not recorded
            for task in analysing:
                task.cancel()
            await asyncio.gather(*analysing, return_exceptions=True)
            raise
        for task in analysing:
            await task

    async def _fetch_pages(
        self, slot: HostSlot, lane: int, analysing: list[asyncio.Task[None]]
    ) -> None:
        parts = self.parts
        politeness = parts.settings.politeness
        controls = parts.controls
        queue = self.queues[slot.host]
        while queue and not controls.stopped:
            if controls.paused and analysing:  # recorded before the pause's commit
                await analysing.pop()
            await self._wait_while_paused()
            if controls.stopped or not queue:
                return
            if parts.worker is not None and not parts.worker.fetching():
                return  # its leases may have run out: the host may be another's (§12)
            page = self._next_page(queue)
            if page is None:
                continue  # gone from the store meanwhile
            embed = page.id in self.embed_jobs
            if parts.robots is not None:
                denied_by = await parts.robots.denial(page.url, slot, lane)
                if isinstance(denied_by, Unreached):
                    self._hold(slot.host, partial(parts.recorder.robots_denied, page, denied_by))
                    return
                if denied_by is not None:
                    outcome = parts.recorder.robots_denied(page, denied_by, self.batch)
                    if embed:
                        self.batch.embed_fetches.add(page.id)  # whatever its host's lease
                        self.stats.count_embed(outcome)
                        reason = denied_by.failure if denied_by.unavailable else None
                        self.embeds.fetched(
                            page.url, Found(False, reason or "denied by robots.txt")
                        )
                    else:
                        self.stats.count(outcome)
                    await self._maybe_commit()
                    await asyncio.sleep(0)  # nothing was awaited: let the other hosts run
                    continue
            wait = slot.reserve()
            if wait > politeness.max_retry_after:  # the host asked for a long break
                self._put_back(queue, page)
                self._defer_host(slot, wait)
                return
            if wait > 0:
                await asyncio.sleep(wait)
            if controls.paused or controls.stopped:
                self._put_back(queue, page)  # paused while waiting its turn: not sent
                continue
            # a page archived before embeds were keeps no list of them: a 304 would tell
            # none, so it is asked for whole once (unchanged: an identical-payload revisit)
            conditional = embed or not self._embeds_unknown(page)
            load: Loaded | None = None
            if not embed and self._in_browser(page.host):
                load = await self._load(page, slot, lane)
                if load is None:  # no browser: the host's pages wait (said once)
                    slot.finished()
                    self._put_off(page, queue)
                    continue
                result = load.result
            else:
                async with parts.connections:
                    result = await parts.fetcher.fetch(
                        page.url,
                        parts.clock.now(),
                        etag=page.etag if conditional else None,
                        last_modified=page.server_last_modified if conditional else None,
                        lane=lane,
                    )
            slot.finished()
            if parts.reach is not None and parts.reach.holds(result):
                self._hold(slot.host, partial(self._held_failure, page, result, embed))
                return
            outcome = classify(result)
            asked_wait = None
            if outcome is Outcome.THROTTLED:
                backoff = slot.throttled(result.header("retry-after"))
                wait = backoff.wait
                if backoff.note:
                    parts.events.emit(LogMessage("warning", f"{page.url}: {backoff.note}"))
                tries = slot.attempts.get(page.id, 0) + 1
                slot.attempts[page.id] = tries
                if tries <= politeness.inround_retries and wait <= politeness.max_retry_after:
                    parts.events.emit(
                        LogMessage(
                            "info",
                            f"{page.url}: HTTP {result.status}, retrying in {human_duration(wait)}",
                        )
                    )
                    self._put_back(queue, page, last=True)
                    continue
                if wait > politeness.max_retry_after:
                    self._defer_host(slot, wait)
                    asked_wait = wait
            else:
                slot.answered()
            if outcome is Outcome.OK:
                asked = self._asked(page, result, browser=load is not None and load.by_dom)
                if analysing:
                    await analysing.pop()
                analysing.append(asyncio.create_task(self._analyse(page, result, asked, load)))
                continue
            analysis = None
            if outcome in _REPLACING and not embed and load is None:
                analysis = await self._sign_replaced(page)
            await self._record(page, result, outcome, asked_wait, analysis, load)

    async def _analyse(
        self, page: Page, result: FetchResult, asked: Asked, load: Loaded | None = None
    ) -> None:
        # a browser page is what it rendered: its signature, text, links are the DOM's
        # (an HTML page's: a PDF's is the browser's viewer)
        seen = result
        if load is not None and load.by_dom:
            seen = rendered_result(result, load.rendering)
        analysis = await self.parts.analyser.analyse(page.url, seen, asked)
        await self._record(page, result, Outcome.OK, None, analysis, load)

    def _in_browser(self, host: str) -> bool:
        return (
            self.parts.browser is not None
            and self.parts.settings.capture.mode_for(host) == "browser"
        )

    async def _load(self, page: Page, slot: HostSlot, lane: int) -> Loaded | None:
        """The page loaded in the browser (one fetch of its host for the politeness
        delay, whatever it loads); None when there is no browser (said once a host)."""
        session = self.parts.browser
        assert session is not None
        if await session.browser() is None:
            session.not_fetched(page.host, NO_BROWSER_WAIT)
            return None
        handler = PageLoad(self, page, slot, lane)
        rendering = await session.load(page.url, handler)
        return Loaded.of(handler, rendering, self.parts.clock.now())

    async def _record(
        self,
        page: Page,
        result: FetchResult,
        outcome: Outcome,
        asked_wait: float | None,
        analysis: Analysis | Exception | None,
        load: Loaded | None = None,
    ) -> None:
        recorder = self.parts.recorder
        if load is not None:
            await self._record_loaded(page, result, outcome, analysis, load)
            return
        if page.id in self.embed_jobs:
            self.embed_jobs.discard(page.id)
            recorded, found = recorder.record_embed_safely(
                page, result, outcome, self.batch, self.captures, analysis
            )
            self.stats.count_embed(recorded)
            self.embeds.fetched(page.url, found)
            await self._maybe_commit()
            return
        embedded = None
        if outcome is Outcome.OK and isinstance(analysis, Analysis):
            embedded = page_embeds(analysis.embeds, result, page.url, self.embeds.limit)
        elif outcome is Outcome.NOT_MODIFIED:
            embedded = Embedded(store.read_refs(page.embed_refs))
        recorded = recorder.record_safely(
            page, result, outcome, self.batch, self.captures, asked_wait, analysis, embedded
        )
        self.stats.count(recorded)
        if embedded is not None and recorded is outcome:
            self.embeds.captured(page.id, page.url, result.started_at, embedded)
        await self._maybe_commit()

    async def _record_loaded(
        self,
        page: Page,
        result: FetchResult,
        outcome: Outcome,
        analysis: Analysis | Exception | None,
        load: Loaded,
    ) -> None:
        """A browser page's fetch: its document and rendering, then what it loaded."""
        handler, rendering = load.handler, load.rendering
        if not load.by_dom:  # the browser's viewer of a PDF: re-signing and diff read its bytes
            rendering = replace(rendering, dom=b"")
        embedded = handler.embedded() if outcome is Outcome.OK else None
        recorded = self.parts.recorder.record_safely(
            page, result, outcome, self.batch, self.captures, None, analysis, embedded,
            rendering if outcome is Outcome.OK else None,
        )  # fmt: skip
        self.stats.count(recorded)
        await self._record_embeds(page, handler)
        if recorded is Outcome.OK and self.embeds.enabled:
            self.batch.completeness.append(handler.completeness())
        await self._maybe_commit()

    async def _record_embeds(self, page: Page, handler: PageLoad) -> None:
        """What a browser page loaded, as its embeds' fetches (revisits when unchanged)."""
        items = handler.to_record()
        if not items:
            return
        parts = self.parts
        urls = [url for url, _ in items]
        states = store.embed_states(urls)
        new = [url for url in dict.fromkeys(urls) if url not in states]
        if new:
            now = parts.clock.now()
            rows = [embed_row(url, page.url, now, parts.initial_interval) for url in new]
            states.update(await parts.commits.run(store.add_embeds, rows, now))
        ids = [s.id for s in states.values() if s.kind == PageKind.EMBED]
        pages = store.pages_by_id(ids)
        for url, fetched in items:
            state = states.get(url)
            row = pages.get(state.id) if state is not None else None
            if row is None:
                # a page of the crawl (a frame of the site): its own fetch archives it
                continue
            outcome = classify(fetched)
            if outcome is Outcome.THROTTLED:
                outcome = Outcome.FAILED
            analysis = Analysis(None, None) if outcome is Outcome.OK else None
            done, _ = parts.recorder.record_embed_safely(
                row, fetched, outcome, self.batch, self.captures, analysis
            )
            self.stats.count_embed(done)

    def _embeds_unknown(self, page: Page) -> bool:
        """Whether the page's HTML was archived before embeds were (docs/design.md §14): its
        row keeps no list of them (NULL; none is an empty list)."""
        return (
            self.embeds.enabled
            and page.embed_refs is None
            and page.status in (PageStatus.FETCHED, PageStatus.NOTMODIFIED)
            and (not page.content_type or media_type(page.content_type) in HTML_TYPES)
        )

    def _held_failure(
        self, page: Page, result: FetchResult, embed: bool, batch: store.CommitBatch
    ) -> Outcome:
        """A held connect failure recorded after all (:mod:`.offline`): some host answered."""
        recorder = self.parts.recorder
        if not embed:
            return recorder.record_safely(page, result, Outcome.FAILED, batch, self.captures)
        outcome, found = recorder.record_embed_safely(
            page, result, Outcome.FAILED, batch, self.captures
        )
        self.embeds.fetched(page.url, found)
        return outcome

    def _asked(self, page: Page, result: FetchResult, *, browser: bool = False) -> Asked:
        """What a 2xx page's analysis is asked for besides its parse (analysis.Asked)."""
        parts = self.parts
        archive = self._to_archive(page, result)
        if page.id in self.embed_jobs:  # its bytes decide whether it changed
            return Asked(sign=False, archive=archive)
        # a page's new version has its text indexed (docs/design.md §19); a revisit's is
        # the one indexed with the payload it repeats
        index = archive is not None and page.kind == PageKind.PAGE and parts.settings.search.index
        if browser:  # its DOM, not its bytes, says whether it changed: always signed
            date_by = result.started_at if never_fetched(page) else None
            return Asked(True, None, archive, date_by, index)
        sign, earlier = signing(
            page,
            result,
            parts.analyser.signature,
            parts.project_dir,
            parts.settings.fetch.max_body_bytes,
        )
        date_by = result.started_at if never_fetched(page) else None
        return Asked(sign, earlier, archive, date_by, index)

    @staticmethod
    def _to_archive(page: Page, result: FetchResult) -> ToArchive | None:
        """The response to build records of with its analysis, when archived whole."""
        if not archived_whole(page, result):
            return None
        assert result.request is not None and result.response is not None
        return ToArchive(
            page.url,
            result.started_at,
            result.request,
            result.response,
            result.truncated,
            result.ip,
        )

    async def _sign_replaced(self, page: Page) -> Analysis | None:
        """The signature of the 2xx payload a redirect's or error's capture replaces,
        when a deferred signature left it unsigned (analysis.unsigned_payload)."""
        parts = self.parts
        earlier = unsigned_payload(
            page,
            parts.analyser.signature,
            parts.project_dir,
            parts.settings.fetch.max_body_bytes,
        )
        if earlier is None:
            return None
        signed = await parts.analyser.sign_archived(page.url, earlier)
        return None if signed is None else Analysis(None, None, earlier_signature=signed)

    def _next_page(self, queue: HostQueue) -> Page | None:
        """The queue's next page, read with the next LOAD_AHEAD if it is not yet."""
        ref = queue.popleft()
        if ref.id not in self.loaded:
            ahead = [ref.id] + [
                queued.id for _, queued in zip(range(LOAD_AHEAD - 1), queue, strict=False)
            ]
            self.loaded.update(store.pages_by_id(ahead))
        return self.loaded.pop(ref.id, None)

    def _put_back(self, queue: HostQueue, page: Page, *, last: bool = False) -> None:
        """Queue a taken page again: first (its turn was not used) or ``last`` (a retry)."""
        self.loaded[page.id] = page
        kind = PageKind.EMBED if page.id in self.embed_jobs else PageKind.PAGE
        ref = store.DuePage(page.id, page.url, page.host, kind)
        if last:
            queue.append(ref)
        else:
            queue.appendleft(ref)

    def _hold(self, host: str, failure: HeldFailure) -> None:
        """Hold a connect failure (.offline); the host's other pages stay due this round,
        and its embeds queued from now on wait too (the held failure says why)."""
        assert self.parts.reach is not None
        self.parts.reach.hold(failure)
        self.queues[host].clear()
        self.closed[host] = "not fetched: its host could not be reached"

    def _settle_held(self) -> None:
        """Record the held failures if some host answered; else the round was offline."""
        reach = self.parts.reach
        if reach is None or not reach.held:
            return
        self.offline = reach.offline
        if self.offline:
            for _ in reach.held:  # attempts that failed and will be made again: errors
                self.stats.count(Outcome.FAILED)
            self.parts.events.emit(
                LogMessage(
                    "info",  # the watcher says what it does about it
                    f"no host answered and {len(reach.held)} could not be reached: offline? "
                    "Nothing of this round is recorded; its pages stay due",
                )
            )
        for outcome in reach.settle(self.batch):
            self.stats.count(outcome)

    async def _wait_while_paused(self) -> None:
        if self.parts.controls.paused and len(self.batch):
            self._commit()  # what is done is saved before the pause, however long
        await self.parts.controls.until_resumed()

    def _put_off(self, page: Page, queue: HostQueue) -> None:
        """A browser host's pages with no browser to load them: tried again after
        :data:`NO_BROWSER_WAIT` (a watcher would otherwise wake for them at once)."""
        later = self.parts.clock.now() + timedelta(seconds=NO_BROWSER_WAIT)
        ids = [page.id, *(ref.id for ref in queue.pages)]
        for page_id in ids:
            self.loaded.pop(page_id, None)
            self.batch.page_updates.append((page_id, {"next_fetch": later}))
        queue.pages.clear()

    def _defer_host(self, slot: HostSlot, wait: float) -> None:
        """The host asked for a long pause: its other pages wait for a later round."""
        resume_at = self.parts.clock.now() + timedelta(seconds=wait)
        queue = self.queues[slot.host]
        self.closed[slot.host] = f"not fetched: {slot.host} asked to wait {human_duration(wait)}"
        for ref in queue.embeds:  # due still: fetched with a page after the break
            self.embed_jobs.discard(ref.id)
            self.loaded.pop(ref.id, None)
            self.embeds.not_fetched(ref.url, self.closed[slot.host])
        queue.embeds.clear()
        for page in queue:
            self.batch.page_updates.append((page.id, {"next_fetch": resume_at}))
            self.loaded.pop(page.id, None)
        if queue:
            self.parts.events.emit(
                LogMessage(
                    "warning",
                    f"{slot.host} asked to wait {human_duration(wait)}; "
                    f"{len(queue)} of its pages are put off until then",
                )
            )
        queue.clear()

    # -- commits ---------------------------------------------------------------------

    async def _maybe_commit(self) -> None:
        settings = self.parts.settings
        if (
            len(self.batch) >= settings.commit_every
            or time.monotonic() - self.last_commit >= settings.commit_seconds
        ):
            self._commit()
            # the store keeps up, or the round waits for it (memory: module docstring)
            await self.parts.commits.wait_below(MAX_PENDING_COMMITS)

    def _commit(self) -> None:
        """Hand the batch to the commit pipeline, which fsyncs the WARC, then commits."""
        batch = self.batch
        self.rescore |= batch.rescore
        self.stats.news(kind for *_, kind in batch.news)
        self.stats.news(NewsKind.BASELINE for _ in batch.baseline)
        batch.committed_bytes = self.committed_bytes = self.writer.written()
        batch.captures = self.writer.take_captures()
        self.batch = store.CommitBatch(segment=batch.segment)
        self.last_commit = time.monotonic()
        self.parts.commits.commit(batch, self.writer, self.parts.clock.now(), self.stats.added)
