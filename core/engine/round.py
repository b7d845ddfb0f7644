"""One crawl round: its pages fetched by per-host workers into one segment (DESIGN.md §3).

Each host with due pages gets ``per_host`` workers that take its pages in turn, with the
host's politeness (:class:`~recrawl.core.net.politeness.HostSlot`), the robots gate, and
the crawl's connection limit. Every ``commit_every`` fetches (or ``commit_seconds``) the
round hands its batch to the commit pipeline. A stopped round leaves its unfetched pages
due; a paused one commits what it has and sends nothing until resumed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.segments import allocate_name
from recrawl.core.clock import Clock
from recrawl.core.config import CrawlSettings
from recrawl.core.engine.captures import CaptureWriter
from recrawl.core.engine.commits import CommitPipeline
from recrawl.core.engine.controls import Controls
from recrawl.core.engine.events import EventQueue, LogMessage, RoundStarted
from recrawl.core.engine.links import LinkDiscoverer
from recrawl.core.engine.record import FetchRecorder
from recrawl.core.engine.robots_gate import RobotsGate
from recrawl.core.engine.stats import CrawlStats
from recrawl.core.engine.update import Outcome, classify
from recrawl.core.net.fetch import CONNECTIONS_PER_LANE, Fetcher
from recrawl.core.net.politeness import HostSlot, HostSlots
from recrawl.core.store.models import Page

STOP_GRACE_S = 2.0  # in-flight fetches get this long to finish after stop()


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
    fetcher: Fetcher
    #: Requests in flight at once, all hosts together (``politeness.concurrency``).
    connections: asyncio.Semaphore
    commits: CommitPipeline
    #: None when the crawl ignores robots.txt.
    robots: RobotsGate | None


class Round:
    """One round's segment, commit batch and counts, and the workers that fill them."""

    def __init__(self, parts: CrawlParts, pages: list[Page]) -> None:
        self.parts = parts
        start = parts.clock.now()
        name = allocate_name(parts.project_dir, start)
        self.writer = SegmentWriter(
            parts.project_dir, name, start, {"operator": parts.settings.fetch.user_agent}
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
        #: The slots of the hosts that have pages in this round, in order of first page.
        self.slots: list[HostSlot] = []
        for page in pages:
            slot = parts.hosts[page.host]
            if not slot.queue:
                self.slots.append(slot)
            slot.queue.append(page)
            parts.links.remember(page.url)

    async def run(self) -> None:
        parts = self.parts
        # a host's workers share few client lanes, so connections get reused (fetch.py)
        workers = [
            asyncio.create_task(self._host_worker(slot, slot.lane + worker // CONNECTIONS_PER_LANE))
            for slot in self.slots
            for worker in range(max(1, parts.settings.politeness.per_host))
        ]
        watcher = asyncio.create_task(self._cancel_on_stop(workers))
        try:
            await asyncio.gather(*workers, return_exceptions=True)
            for task in workers:
                if not task.cancelled() and (error := task.exception()) is not None:
                    raise error
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            for slot in self.slots:
                slot.queue.clear()  # a stopped round leaves its pages due
            self._commit()
            await parts.commits.drain()
            self.writer.close(parts.clock.now(), self.committed_bytes)
            if self.rescore:  # a kill before this only leaves some scores a round old
                store.rescore_inlinks(self.rescore)
        name = self.writer.name
        if store.segment_names() & {name}:
            parts.stats.segments.append(name)
        parts.events.emit(self.stats.finished())

    async def _cancel_on_stop(self, workers: list[asyncio.Task[None]]) -> None:
        await self.parts.controls.until_stopped()
        await asyncio.sleep(STOP_GRACE_S)
        for task in workers:
            task.cancel()

    # -- per host --------------------------------------------------------------------

    async def _host_worker(self, slot: HostSlot, lane: int) -> None:
        parts = self.parts
        politeness = parts.settings.politeness
        controls = parts.controls
        while slot.queue and not controls.stopped:
            await self._wait_while_paused()
            if controls.stopped or not slot.queue:
                return
            page = slot.queue.popleft()
            if parts.robots is not None:
                denied_by = await parts.robots.denial(page.url, slot, lane)
                if denied_by is not None:
                    self.stats.count(parts.recorder.robots_denied(page, denied_by, self.batch))
                    continue
            wait = slot.reserve()
            if wait > politeness.max_retry_after:  # the host asked for a long break
                slot.queue.appendleft(page)
                self._defer_host(slot, wait)
                return
            if wait > 0:
                await asyncio.sleep(wait)
            if controls.paused or controls.stopped:
                slot.queue.appendleft(page)  # paused while waiting its turn: not sent
                continue
            async with parts.connections:
                result = await parts.fetcher.fetch(
                    page.url,
                    parts.clock.now(),
                    etag=page.etag,
                    last_modified=page.server_last_modified,
                    lane=lane,
                )
            slot.finished()
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
                            "info", f"{page.url}: HTTP {result.status}, retrying in {wait:.0f} s"
                        )
                    )
                    slot.queue.append(page)
                    continue
                if wait > politeness.max_retry_after:
                    self._defer_host(slot, wait)
                    asked_wait = wait
            else:
                slot.answered()
            recorded = parts.recorder.record_safely(
                page, result, outcome, self.batch, self.captures, asked_wait
            )
            self.stats.count(recorded)
            self._maybe_commit()

    async def _wait_while_paused(self) -> None:
        if self.parts.controls.paused and len(self.batch):
            self._commit()  # what is done is saved before the pause, however long
        await self.parts.controls.until_resumed()

    def _defer_host(self, slot: HostSlot, wait: float) -> None:
        """The host asked for a long pause: its other pages wait for a later round."""
        resume_at = self.parts.clock.now() + timedelta(seconds=wait)
        for page in slot.queue:
            self.batch.page_updates.append((page.id, {"next_fetch": resume_at}))
        if slot.queue:
            self.parts.events.emit(
                LogMessage(
                    "warning",
                    f"{slot.host} asked to wait {wait:.0f} s; "
                    f"{len(slot.queue)} of its pages are put off until then",
                )
            )
        slot.queue.clear()

    # -- commits ---------------------------------------------------------------------

    def _maybe_commit(self) -> None:
        settings = self.parts.settings
        if (
            len(self.batch) >= settings.commit_every
            or time.monotonic() - self.last_commit >= settings.commit_seconds
        ):
            self._commit()

    def _commit(self) -> None:
        """Hand the batch to the commit pipeline, which fsyncs the WARC, then commits."""
        batch = self.batch
        self.rescore |= batch.rescore
        batch.committed_bytes = self.committed_bytes = self.writer.written()
        self.batch = store.CommitBatch(segment=batch.segment)
        self.last_commit = time.monotonic()
        self.parts.commits.commit(batch, self.writer, self.parts.clock.now(), self.stats.added)
