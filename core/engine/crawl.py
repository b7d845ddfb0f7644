"""The crawl engine: rounds of generate → fetch → parse → filter → update → segment.

:class:`Crawler` is the synchronous facade the CLI, the GUI worker and the tests call. It
owns its asyncio loop, so ``run()`` blocks the calling thread; ``pause()``, ``resume()``
and ``stop()`` may be called from any other thread.

Durability: each fetch's WARC records are written first; every ``commit_every`` fetches
(or ``commit_seconds``) the WARC is fsynced and then one store transaction records the
pages, events and links together with the WARC's committed size. A kill at any point
leaves the store consistent; the next run cuts the WARC back to the committed size, so a
page is neither lost nor captured twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import numpy as np
from recrawl.core import store
from recrawl.core.archive.recovery import recover
from recrawl.core.archive.segments import SegmentWriter, allocate_name
from recrawl.core.archive.warc import (
    IDENTICAL_PAYLOAD,
    SERVER_NOT_MODIFIED,
    Written,
    payload_digest,
)
from recrawl.core.clock import Clock
from recrawl.core.config import CrawlSettings
from recrawl.core.engine.events import (
    CrawlFinished,
    CrawlSummary,
    Event,
    LinkRejected,
    LogMessage,
    Observer,
    PageFetched,
    RoundFinished,
    RoundStarted,
    StatsSnapshot,
)
from recrawl.core.engine.parse import ParseResult, is_html, media_type, parse_html
from recrawl.core.engine.update import Capture, Outcome, classify, update_page
from recrawl.core.errors import InvalidUrl
from recrawl.core.filters import Chain, Verdict
from recrawl.core.filters.compiled import compile_chain
from recrawl.core.net.fetch import CONNECTIONS_PER_LANE, Fetcher, FetchResult
from recrawl.core.net.politeness import HostSlot
from recrawl.core.net.robots import (
    ALLOW_ALL,
    MAX_ROBOTS_BYTES,
    RobotsPolicy,
    cached_policy,
    policy_from,
)
from recrawl.core.net.urls import canonical, host_of, origin_of
from recrawl.core.policy.choices import (
    add_scope_hosts,
    project_chain,
    project_schedule,
    project_scoring,
    project_signature,
)
from recrawl.core.policy.schedule import Change, Corpus, FetchSchedule
from recrawl.core.policy.scoring import Scoring
from recrawl.core.policy.signature import Signature, compare
from recrawl.core.project import Project
from recrawl.core.store.models import Page, PageStatus

STOP_GRACE_S = 2.0  # in-flight fetches get this long to finish after stop()


@dataclass(frozen=True)
class InjectResult:
    added: int
    urls: list[str]  # canonical, in the order given
    rejected: list[tuple[str, Verdict]]  # seeds the chain turned away, and why


def inject(urls: Sequence[str], now: datetime) -> InjectResult:
    """Add seed URLs: canonicalized, their hosts added to the scope, run through the chain.

    Raises InvalidUrl before writing anything; seeds the chain rejects are recorded in
    the rejected-links table (with filter and line), not added.
    """
    canon = list(dict.fromkeys(canonical(u) for u in urls))
    schedule = project_schedule()
    seed = project_scoring().seed_fields()
    with store.transaction():
        add_scope_hosts([host_of(u) for u in canon])
        chain = project_chain()
        verdicts = [(u, chain.check(u)) for u in canon]
        accepted = [u for u, v in verdicts if v.accepted]
        rejected = [(u, v) for u, v in verdicts if not v.accepted]
        pages = [
            store.NewPage(
                url=u,
                host=host_of(u),
                next_fetch=now,
                fetch_interval=schedule.initial_interval(),
                **seed,
            )
            for u in accepted
        ]
        added = store.add_pages(pages, now)
        # re-injecting a known page makes it due now: the user asked for it
        store.make_due(accepted, now)
        store.record_rejected([(u, v.filter_name or "", v.line) for u, v in rejected], now)
    return InjectResult(added, canon, rejected)


class Crawler:
    def __init__(
        self,
        project: Project,
        settings: CrawlSettings | None = None,
        *,
        observer: Observer | None = None,
        clock: Clock | None = None,
        schedule: FetchSchedule | None = None,
        signature: Signature | None = None,
        chain: Chain | None = None,
        scoring: Scoring | None = None,
    ) -> None:
        self.project = project
        self.settings = settings or CrawlSettings()
        self.observer = observer
        self.clock = clock or Clock()
        self.schedule = schedule or project_schedule()
        self.signature = signature or project_signature()
        self.chain = chain or project_chain()
        # the fast path: same verdicts and provenance as chain.check, tested against it
        self.filter = compile_chain(self.chain)
        self.scoring = scoring or project_scoring()
        self._stop = threading.Event()
        self._pause = threading.Event()
        self._pending: list[Event] = []
        self._events_lock = threading.Lock()
        # counters
        self.rounds = 0
        self.fetched = 0
        self.errors = 0
        self.new_urls = 0
        self.segments: list[str] = []
        self._round_queued = 0
        self._seen: set[str] = set()
        #: Pages whose host asked for a break longer than a round waits: page id → seconds.
        self._come_back: dict[int, float] = {}
        self._rejected: set[str] = set()
        self._slots: dict[str, HostSlot] = {}
        self._rescore: set[str] = set()
        self._policies: dict[str, RobotsPolicy] = {}
        self._robots_locks: dict[str, asyncio.Lock] = {}
        # robots.txt groups name a product token, not the whole User-Agent (RFC 9309 §2.2.1)
        self._robots_agent = self.settings.fetch.user_agent.split("/")[0].split()[0]
        self._started = 0.0

    # -- thread-safe controls --------------------------------------------------------

    def pause(self) -> None:
        self._pause.set()

    def resume(self) -> None:
        self._pause.clear()

    def stop(self) -> None:
        self._stop.set()
        self._pause.clear()

    @property
    def paused(self) -> bool:
        return self._pause.is_set()

    # -- facade ----------------------------------------------------------------------

    def run(self) -> CrawlSummary:
        with self.project.locked("crawl"):
            for message in recover(self.project.path, self.clock.now()):
                self._emit(LogMessage("warning", message))
            self._started = time.perf_counter()
            asyncio.run(self._crawl())
        elapsed = time.perf_counter() - self._started
        summary = CrawlSummary(
            rounds=self.rounds,
            fetched=self.fetched,
            new_urls=self.new_urls,
            errors=self.errors,
            elapsed_s=elapsed,
            pages_per_s=self.fetched / elapsed if elapsed > 0 else 0.0,
            segments=list(self.segments),
            stopped=self._stop.is_set(),
        )
        self._emit(CrawlFinished(summary))
        self._flush_events()
        return summary

    # -- events ----------------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        if self.observer is not None:
            with self._events_lock:
                self._pending.append(event)

    def _flush_events(self) -> None:
        if self.observer is None:
            return
        with self._events_lock:
            batch, self._pending = self._pending, []
        if batch:
            self.observer(batch)

    def _snapshot(self) -> StatsSnapshot:
        elapsed = time.perf_counter() - self._started
        return StatsSnapshot(
            round=self.rounds,
            queued=self._round_queued,
            fetched=self.fetched,
            errors=self.errors,
            new_urls=self.new_urls,
            pages_per_s=self.fetched / elapsed if elapsed > 0 else 0.0,
            paused=self.paused,
        )

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self.settings.event_interval)
            self._emit(self._snapshot())
            self._flush_events()

    # -- rounds ----------------------------------------------------------------------

    async def _crawl(self) -> None:
        politeness = self.settings.politeness
        self.fetcher = Fetcher(self.settings.fetch, max_connections=max(politeness.concurrency, 1))
        # One thread writes to the store, in order, while the loop goes on fetching.
        self._committer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recrawl-store")
        self._commits: list[asyncio.Future] = []
        ticker = asyncio.create_task(self._ticker()) if self.observer else None
        try:
            while not self._stop.is_set():
                if self.settings.rounds is not None and self.rounds >= self.settings.rounds:
                    break
                budget = self.settings.round_size
                if self.settings.max_pages is not None:
                    budget = min(budget, self.settings.max_pages - self.fetched)
                if budget <= 0:
                    break
                pages = store.due_pages(self.clock.now(), budget, self.settings.per_host_round_cap)
                if not pages:
                    break
                await self._round(pages)
        finally:
            if ticker is not None:
                ticker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticker
            await self.fetcher.aclose()
            await self._drain_commits()
            self._committer.submit(store.close_database).result()  # its own connection
            self._committer.shutdown()

    async def _round(self, pages: list[Page]) -> None:
        self.rounds += 1
        if getattr(self.schedule, "needs_corpus", False):
            rates, scores = store.corpus_figures()
            self.schedule.prepare(Corpus(np.array(rates, dtype=float), np.array(scores)))
        start = self.clock.now()
        name = allocate_name(self.project.path, start)
        self.writer = SegmentWriter(
            self.project.path, name, start, {"operator": self.settings.fetch.user_agent}
        )
        self.batch = store.CommitBatch(segment=name)
        self._last_commit = time.monotonic()
        self._round_stats = [0, 0, 0]  # fetched, errors, new
        self._round_queued = len(pages)
        self._emit(RoundStarted(self.rounds, name, len(pages), start))
        active: list[HostSlot] = []
        for page in pages:
            slot = self._slot(page.host)
            if not slot.queue:
                active.append(slot)
            slot.queue.append(page)
            self._seen.add(page.url)
        self._semaphore = asyncio.Semaphore(max(1, self.settings.politeness.concurrency))
        # a host's workers share few client lanes, so connections get reused (fetch.py)
        workers = [
            asyncio.create_task(self._host_worker(slot, slot.lane + worker // CONNECTIONS_PER_LANE))
            for slot in active
            for worker in range(max(1, self.settings.politeness.per_host))
        ]
        watcher = asyncio.create_task(self._stop_watcher(workers))
        try:
            await asyncio.gather(*workers, return_exceptions=True)
            for task in workers:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            for slot in active:
                slot.queue.clear()  # a stopped round leaves its pages due
            self._commit()
            await self._drain_commits()
            self.writer.close(self.clock.now(), self._committed_bytes)
            if self._rescore:  # a kill before this only leaves some scores a round old
                store.rescore_inlinks(self._rescore)
                self._rescore = set()
        if store.segment_names() & {name}:
            self.segments.append(name)
        fetched, errors, new = self._round_stats
        self._emit(RoundFinished(self.rounds, name, fetched, errors, new))

    async def _stop_watcher(self, workers: list[asyncio.Task]) -> None:
        while not self._stop.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(STOP_GRACE_S)
        for task in workers:
            task.cancel()

    # -- per host --------------------------------------------------------------------

    def _slot(self, host: str) -> HostSlot:
        """The host's politeness slot; it outlives rounds, so delays carry over."""
        slot = self._slots.get(host)
        if slot is None:
            slot = self._slots[host] = HostSlot(
                host, self.settings.politeness, lane=len(self._slots)
            )
        return slot

    async def _wait_while_paused(self) -> None:
        if self._pause.is_set() and len(self.batch):
            self._commit()  # what is done is saved before the pause, however long
        while self._pause.is_set() and not self._stop.is_set():
            await asyncio.sleep(0.05)

    async def _host_worker(self, slot: HostSlot, lane: int) -> None:
        politeness = self.settings.politeness
        while slot.queue and not self._stop.is_set():
            await self._wait_while_paused()
            if self._stop.is_set() or not slot.queue:
                return
            page = slot.queue.popleft()
            if politeness.obey_robots:
                policy = await self._robots(origin_of(page.url), slot, lane)
                if not policy.allowed(page.url, self._robots_agent):
                    self._robots_denied(page, policy)
                    continue
            wait = slot.reserve()
            if wait > politeness.max_retry_after:  # the host asked for a long break
                slot.queue.appendleft(page)
                self._defer_host(slot, wait)
                return
            if wait > 0:
                await asyncio.sleep(wait)
            if self._pause.is_set() or self._stop.is_set():
                slot.queue.appendleft(page)  # paused while waiting its turn: not sent
                continue
            async with self._semaphore:
                result = await self.fetcher.fetch(
                    page.url,
                    self.clock.now(),
                    etag=page.etag,
                    last_modified=page.server_last_modified,
                    lane=lane,
                )
            slot.finished()
            outcome = classify(result)
            if outcome is Outcome.THROTTLED:
                wait = slot.throttled(result.header("retry-after"))
                tries = slot.attempts.get(page.id, 0) + 1
                slot.attempts[page.id] = tries
                if tries <= politeness.inround_retries and wait <= politeness.max_retry_after:
                    self._emit(
                        LogMessage(
                            "info", f"{page.url}: HTTP {result.status}, retrying in {wait:.0f} s"
                        )
                    )
                    slot.queue.append(page)
                    continue
                if wait > politeness.max_retry_after:
                    self._defer_host(slot, wait)
                    self._come_back[page.id] = wait
            else:
                slot.answered()
            self._process_safely(page, result, outcome)
            self._maybe_commit()

    def _process_safely(self, page: Page, result: FetchResult, outcome: Outcome) -> None:
        """Process one fetch; a bug or absurd input costs that page, not the crawl.

        On an error, the page's WARC records and batch entries are taken back, so the
        segment holds no capture that no page points at, and the page is recorded as
        failed with the reason.
        """
        mark = self.writer.tell()
        saved = self.batch.snapshot()
        try:
            self._process(page, result, outcome)
        except Exception as exc:
            self.writer.rollback(mark)
            self.batch.restore(saved)
            reason = f"internal error processing the response: {type(exc).__name__}: {exc}"
            self._emit(LogMessage("error", f"{page.url}: {reason}"))
            failed = replace(result, response=None, error=reason)
            self._process(page, failed, Outcome.FAILED)

    def _defer_host(self, slot: HostSlot, wait: float) -> None:
        """The host asked for a long pause: its other pages wait for a later round."""
        resume_at = self.clock.now() + timedelta(seconds=wait)
        for page in slot.queue:
            self.batch.page_updates.append((page.id, {"next_fetch": resume_at}))
        if slot.queue:
            self._emit(
                LogMessage(
                    "warning",
                    f"{slot.host} asked to wait {wait:.0f} s; "
                    f"{len(slot.queue)} of its pages are put off until then",
                )
            )
        slot.queue.clear()

    async def _robots(self, origin: str, slot: HostSlot, lane: int) -> RobotsPolicy:
        """The origin's robots.txt policy: from this crawl, the store's cache, or fetched."""
        policy = self._policies.get(origin)
        if policy is not None:
            return policy
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:
            policy = self._policies.get(origin)
            if policy is not None:
                return policy
            now = self.clock.now()
            policy = cached_policy(origin, now, self.settings.politeness.robots_ttl)
            if policy is None:
                wait = slot.reserve()
                if wait > 0:
                    await asyncio.sleep(wait)
                async with self._semaphore:
                    result = await self.fetcher.fetch(
                        origin + "/robots.txt",
                        now,
                        max_bytes=MAX_ROBOTS_BYTES,
                        follow_redirects=True,
                        lane=lane,
                    )
                policy = self._robots_from(origin, result, now)
                # the Crawl-delay counts from this request already
                slot.honour_crawl_delay(policy.crawl_delay(self._robots_agent))
                slot.finished()
            else:
                slot.honour_crawl_delay(policy.crawl_delay(self._robots_agent))
            self._policies[origin] = policy
            return policy

    def _robots_from(self, origin: str, result: FetchResult, now: datetime) -> RobotsPolicy:
        body = None
        if result.decoded is not None:
            body = result.decoded.decode("utf-8-sig", errors="replace")
        policy = policy_from(result.status, body, result.error, result.header("content-type"))
        # through the store thread: a write here would wait for its commit, stalling fetches
        self._committer.submit(store.save_robots, origin, now, result.status, body, result.error)
        if policy.note:
            self._emit(LogMessage("warning", f"{origin}: {policy.note}"))
        return policy

    # -- update ----------------------------------------------------------------------

    def _robots_denied(self, page: Page, policy: RobotsPolicy) -> None:
        now = self.clock.now()
        note = "denied by robots.txt"
        update = update_page(page, Outcome.ROBOTS_DENIED, None, now, self.schedule, note=note)
        if policy.mode == "deny-all" and policy is not ALLOW_ALL:
            # an unreachable robots.txt is temporary: try again in a day, not a month
            update.fields["next_fetch"] = now + timedelta(seconds=self.schedule.retry_interval)
        self.batch.page_updates.append((page.id, update.fields))
        self.batch.events.append(update.event)
        self._emit(PageFetched(page.url, update.status, None, "unknown", 0, 0.0, note))

    def _process(self, page: Page, result: FetchResult, outcome: Outcome) -> None:
        now = result.started_at
        change = Change.UNKNOWN
        capture = None
        signature = None
        note = result.decode_error
        if result.truncated:
            note = f"body cut ({result.truncated}) at {len(result.response.body)} bytes"
        targets: list[str] = []
        if outcome is Outcome.OK:
            parsed = self._parse(page, result, targets)
            body = result.decoded or b""
            new_sig = self.signature.compute(
                body,
                self._text_of(result, parsed),
                tuple(link.url for link in parsed.links) if parsed else (),
            )
            change = compare(self.signature, page.signature, page.signature_kind, new_sig)
            signature = (new_sig, self.signature.kind)
            capture = self._write_ok(page, result, now)
        elif outcome is Outcome.NOT_MODIFIED:
            change = Change.UNCHANGED
            capture = self._write_revisit(page, result, now, SERVER_NOT_MODIFIED)
        elif outcome in (Outcome.REDIRECT_PERM, Outcome.REDIRECT_TEMP):
            capture = self._write_response(page, result, now)
            self._follow_redirect(page, result, targets)
        elif outcome is Outcome.GONE:
            capture = self._write_response(page, result, now)
        update = update_page(
            page,
            outcome,
            result,
            now,
            self.schedule,
            change=change,
            capture=capture,
            signature=signature,
            segment=self.writer.name,
            max_retries=self.settings.max_retries,
            note=note,
        )
        asked = self._come_back.pop(page.id, None)
        if asked is not None and update.status == PageStatus.RETRY:
            # the server named its break (Retry-After): come back then, not after the
            # schedule's retry day, which may be sooner than it asked
            update.fields["next_fetch"] = now + timedelta(seconds=asked)
        if outcome is not Outcome.FAILED and outcome is not Outcome.THROTTLED:
            update.fields.update(self.scoring.on_fetched(page, targets, self.batch))
        self.batch.page_updates.append((page.id, update.fields))
        self.batch.events.append(update.event)
        self.fetched += 1
        self._round_stats[0] += 1
        if outcome in (Outcome.FAILED, Outcome.THROTTLED):
            self.errors += 1
            self._round_stats[1] += 1
        self._emit(
            PageFetched(
                page.url,
                update.status,
                result.status,
                change.value,
                len(result.response.body) if result.response else 0,
                result.elapsed_ms,
                update.event["error"],
            )
        )

    @staticmethod
    def _text_of(result: FetchResult, parsed: ParseResult | None) -> str | None:
        """Text for signatures: HTML's text, None for other text, "" for binary payloads.

        An empty text makes text-based signatures fall back to the payload's hash, so a
        changed image is not mistaken for unchanged garbage "words".
        """
        if parsed is not None:
            return parsed.text
        return None if media_type(result.header("content-type")).startswith("text/") else ""

    def _parse(self, page: Page, result: FetchResult, targets: list[str]) -> ParseResult | None:
        content_type = result.header("content-type")
        body = result.decoded or b""
        if not is_html(content_type, body):
            return None
        parsed = parse_html(body, page.url, content_type)
        for link in parsed.links:
            if link.nofollow and not self.settings.follow_nofollow:
                continue
            if self._discovered(page, link.url):
                targets.append(link.url)
        return parsed

    def _follow_redirect(self, page: Page, result: FetchResult, targets: list[str]) -> None:
        location = result.header("location") or ""
        try:
            target = canonical(location, page.url)
        except InvalidUrl:
            self._emit(LogMessage("warning", f"{page.url}: bad redirect Location {location!r}"))
            return
        if self._discovered(page, target):
            targets.append(target)

    def _discovered(self, page: Page, url: str) -> bool:
        """Filter a link; returns whether its target is (or becomes) a page."""
        if url == page.url:
            return False
        if url in self._seen:
            if url in self._rejected:
                return False
            self.batch.links.append((page.id, url))
            return True
        if len(self._seen) >= self.settings.seen_limit:
            # a long crawl meets more URLs than memory should hold: start over (the store
            # ignores pages it has, so forgetting only costs checking again)
            self._seen.clear()
            self._rejected.clear()
        self._seen.add(url)
        verdict = self.filter.check(url)
        if not verdict.accepted:
            self._rejected.add(url)
            self.batch.rejected.append((url, verdict.filter_name or "", verdict.line))
            self._emit(
                LinkRejected(url, page.url, verdict.filter, verdict.filter_name, verdict.line)
            )
            return False
        self.batch.new_pages.append(
            store.NewPage(
                url=url,
                host=host_of(url),
                next_fetch=self.clock.now(),
                fetch_interval=self.schedule.initial_interval(),
                depth=page.depth + 1,
                discovered_from=page.url,
            )
        )
        self.batch.links.append((page.id, url))
        return True

    # -- segment ---------------------------------------------------------------------

    def _response_capture(self, written: Written, digest: str, now: datetime) -> Capture:
        """A new response: it is both the capture and the payload."""
        seg, rel = self.writer.name, self.writer.relpath
        return Capture(
            seg, rel, written.offset, written.length,
            written.offset, written.length, rel, seg, written.record_id, now, digest,
        )  # fmt: skip

    def _revisit_capture(self, written: Written, page: Page) -> Capture:
        """A revisit: the payload stays the response the page's revisit refers to."""
        return Capture(
            self.writer.name, self.writer.relpath, written.offset, written.length,
            page.payload_offset, page.payload_length, page.payload_file, page.payload_segment,
            page.payload_record_id, page.payload_date, page.payload_digest,
        )  # fmt: skip

    def _write_response(self, page: Page, result: FetchResult, now: datetime) -> Capture:
        assert result.response is not None and result.request is not None
        digest = payload_digest(result.response.body)
        written = self.writer.write_response(
            page.url,
            now,
            result.request,
            result.response,
            digest=digest,
            mime=media_type(result.header("content-type")) or None,
            truncated=result.truncated,
            ip=result.ip,
        )
        self.batch.records += 1
        return self._response_capture(written, digest, now)

    def _write_ok(self, page: Page, result: FetchResult, now: datetime) -> Capture:
        assert result.response is not None
        digest = payload_digest(result.response.body)
        if page.payload_digest == digest and page.payload_record_id and not result.truncated:
            return self._write_revisit(page, result, now, IDENTICAL_PAYLOAD)
        return self._write_response(page, result, now)

    def _write_revisit(
        self, page: Page, result: FetchResult, now: datetime, profile: str
    ) -> Capture:
        assert result.response is not None and result.request is not None
        if not page.payload_record_id:
            # nothing to refer to (the earlier capture never happened): store it whole
            return self._write_response(page, result, now)
        written = self.writer.write_revisit(
            page.url,
            now,
            result.request,
            result.response,
            profile=profile,
            digest=page.payload_digest,
            refers_to_uri=page.url,
            refers_to_date=page.payload_date,
            refers_to_id=page.payload_record_id,
        )
        self.batch.records += 1
        return self._revisit_capture(written, page)

    # -- commit ----------------------------------------------------------------------

    def _maybe_commit(self) -> None:
        if (
            len(self.batch) >= self.settings.commit_every
            or time.monotonic() - self._last_commit >= self.settings.commit_seconds
        ):
            self._commit()

    def _commit(self) -> None:
        """Hand the batch to the store thread: fsync the WARC there, then commit.

        The store learns of a record only after the bytes holding it are durable, so
        a kill at any point leaves no page pointing past the WARC's durable end.
        """
        batch = self.batch
        self._rescore |= batch.rescore
        batch.committed_bytes = self._committed_bytes = self.writer.written()
        self.batch = store.CommitBatch(segment=batch.segment)
        self._last_commit = time.monotonic()
        writer, now = self.writer, self.clock.now()

        def job() -> int:
            writer.sync()
            return store.commit_batch(batch, now)

        future = asyncio.get_running_loop().run_in_executor(self._committer, job)
        future.add_done_callback(self._committed)
        self._commits.append(future)

    def _committed(self, future: asyncio.Future) -> None:
        if future.cancelled() or future.exception() is not None:
            return  # raised by _drain_commits
        self.new_urls += future.result()
        self._round_stats[2] += future.result()

    async def _drain_commits(self) -> None:
        pending, self._commits = self._commits, []
        for future in pending:
            await future  # a store error ends the crawl here, loudly
