"""The crawl engine: rounds of generate → fetch → parse → filter → update → segment.

:class:`Crawler` is the synchronous facade the CLI, the app's crawl job and the tests call. It
owns its asyncio loop, so ``run()`` blocks the calling thread; ``pause()``, ``resume()``
and ``stop()`` may be called from any other thread.

A run takes due pages round by round (:class:`~.round.Round`); the parts a round works
with: the robots gate (:mod:`.robots_gate`), the fetch recorder (:mod:`.record`: change
detection, the capture writer of :mod:`.capture_writer`, link discovery of :mod:`.links`) and
the commit pipeline (:mod:`.commits`).

Durability: each fetch's WARC records are written first; every ``commit_every`` fetches
(or ``commit_seconds``) the WARC is fsynced and then one store transaction records the
pages, events and links together with the WARC's committed size. A kill at any point
leaves the store consistent; the next run cuts the WARC back to the committed size, so a
page is neither lost nor captured twice.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial

import numpy as np
from recrawl.core import store
from recrawl.core.archive.recovery import recover
from recrawl.core.clock import Clock
from recrawl.core.config import CrawlSettings
from recrawl.core.disk import raising_disk_full
from recrawl.core.engine.analysis import PageAnalyser
from recrawl.core.engine.browser_pages import BrowserSession
from recrawl.core.engine.commits import CommitPipeline
from recrawl.core.engine.compaction import compact_due
from recrawl.core.engine.controls import Controls
from recrawl.core.engine.events import CrawlFinished, CrawlSummary, EventQueue, LogMessage, Observer
from recrawl.core.engine.gil import quick_handoffs
from recrawl.core.engine.links import LinkDiscoverer
from recrawl.core.engine.offline import Reachability
from recrawl.core.engine.pool import default_processes
from recrawl.core.engine.record import FetchRecorder
from recrawl.core.engine.robots_gate import RobotsGate
from recrawl.core.engine.round import CrawlParts, Round
from recrawl.core.engine.round_news import RoundNews
from recrawl.core.engine.source_reader import SourceReader
from recrawl.core.engine.sources import SourceFinder
from recrawl.core.engine.stats import CrawlStats
from recrawl.core.engine.traps import REASON_PREFIX, TrapGuard
from recrawl.core.engine.worker import WorkerSession
from recrawl.core.filters import Chain, parse_chain
from recrawl.core.filters.compiled import compile_chain
from recrawl.core.net.fetch import Fetcher
from recrawl.core.net.politeness import HostSlots
from recrawl.core.net.robots import RobotsPolicy
from recrawl.core.policy.choices import (
    catch_up,
    chain_text,
    finish_apply,
    project_schedule,
    project_scoring,
    project_signature,
)
from recrawl.core.policy.schedule import Corpus, FetchSchedule
from recrawl.core.policy.scoring import Scoring
from recrawl.core.policy.signature import Signature
from recrawl.core.project import Project


class Crawler:
    """Crawls a project's due pages until nothing is due, a limit is hit, or stop().

    ``take_lock=False``: the caller holds the project lock (a watcher, for as long as it
    watches). ``offline_rounds=True``: connect failures are held until some host answers,
    and a round none answered records nothing and ends the crawl (:mod:`.offline`,
    :attr:`offline`).

    ``worker``: the crawl is that worker's, and fetches only the hosts it leases, a
    round at a time (docs/design.md §12). On a shared (PostgreSQL) store a crawl always is a
    worker's (its own, ``machine-pid``, for as long as it runs): it takes no project
    lock there, so it runs beside other workers.
    """

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
        take_lock: bool = True,
        offline_rounds: bool = False,
        worker: WorkerSession | None = None,
        compact_after: bool = True,
    ) -> None:
        self.project = project
        self.settings = settings or CrawlSettings()
        self.clock = clock or Clock()
        #: The project's chain text as this crawl judges links by it (None: a chain was
        #: given, and stays); a chain applied meanwhile is followed from the next round.
        self._chain_text: str | None = None
        with project.active():  # its own choices, wherever the crawler is made
            self.schedule = schedule or project_schedule()
            self.signature = signature or project_signature()
            if chain is None:
                self._chain_text = chain_text()
                chain = parse_chain(self._chain_text)
            self.scoring = scoring or project_scoring()
        self.chain = chain
        #: False: the caller holds the project lock for this crawl (a watcher's "watch").
        self.take_lock = take_lock
        #: Hold connect failures until a host answers; end at a round none did (.offline).
        self.reach = Reachability() if offline_rounds else None
        #: Whether the crawl ended at an offline round (its pages are still due).
        self.offline = False
        self.worker = worker
        #: Fold the finished periods' segments at the end (docs/design.md §18; a watcher
        #: does it between its rounds instead).
        self.compact_after = compact_after
        #: Whether the crawl ended with work due on hosts other workers held.
        self.leased_out = False
        self.controls = Controls()
        self.events = EventQueue(observer)
        self.stats = CrawlStats()
        #: Per-host politeness; the slots outlive rounds, so delays carry over.
        self.hosts = HostSlots(self.settings.politeness)
        self.traps = TrapGuard(self.settings.traps, self.events)
        self.links = LinkDiscoverer(
            # the fast path: same verdicts and provenance as chain.check, tested against it
            compile_chain(self.chain),
            self.schedule,
            self.clock,
            self.events,
            self.traps,
            seen_limit=self.settings.seen_limit,
            follow_nofollow=self.settings.follow_nofollow,
            embed_rules=compile_chain(self.chain.embed_rules),
        )
        #: New sitemaps and feeds as the crawl meets them (docs/design.md §11).
        self.sources = SourceFinder(self.settings.sources, self.clock, self.events)
        self.recorder = FetchRecorder(
            self.settings,
            self.clock,
            self.schedule,
            self.signature,
            self.scoring,
            self.links,
            self.events,
            self.sources,
        )

    # -- thread-safe controls --------------------------------------------------------

    def pause(self) -> None:
        self.controls.pause()

    def resume(self) -> None:
        self.controls.resume()

    def stop(self) -> None:
        self.controls.stop()

    @property
    def paused(self) -> bool:
        return self.controls.paused

    # -- facade ----------------------------------------------------------------------

    def run(self) -> CrawlSummary:
        """Crawl; every store query of the crawl, its threads' included, goes to the
        project's store."""
        with self.project.active():
            return self._run()

    def _run(self) -> CrawlSummary:
        shared = store.is_server_store()
        own = self.worker is None and shared  # a crawl on a shared store leases as a worker
        if own:
            self.worker = WorkerSession(None, self.settings.workers)
        take_lock = self.take_lock and not shared
        lock = self.project.locked("crawl") if take_lock else contextlib.nullcontext()
        # a lost database server (PostgreSQL) is waited for, and said in the crawl's log
        faults = store.reconnecting(self.settings.database.give_up_after, self._store_fault)
        # a full disk, wherever met, ends the crawl with one line (recrawl.core.disk)
        with raising_disk_full(self.project.path), lock, faults, self._working(own):
            name = self.worker.name if self.worker is not None else None
            for message in recover(self.project.path, self.clock.now(), name):
                self.events.emit(LogMessage("warning", message))
            finished = finish_apply(self.clock.now())  # an apply that died half-way
            if finished is not None:
                self.events.emit(
                    LogMessage("info", f"finished applying the filter chain: {finished.describe()}")
                )
            # a lattice an earlier crawl found stays held back (its rejected links say so)
            self.traps.held_before(store.rejected_filters(REASON_PREFIX))
            self.stats.started()
            run = store.begin_crawl_run(self.clock.now())  # a run never ended was killed
            with quick_handoffs():
                asyncio.run(self._crawl())
            store.end_crawl_run(run, self.clock.now(), _run_counts(self.stats, self.controls))
            # the crawl's figures (its pages/s) are the crawl's, not the compaction's
            summary = replace(
                self.stats.summary(stopped=self.controls.stopped),
                possible_traps=self.traps.possible_traps(),
            )
            if self.settings.search.index and not self.controls.stopped:
                from recrawl.core.store.search import tidy_index
                from recrawl.core.store.sql import writing

                with writing():
                    tidy_index()
            if self.compact_after and not self.controls.stopped:
                # under the crawl's lock (the project's; on PostgreSQL, the store's own)
                compact_due(
                    self.project.path,
                    self.settings.compaction,
                    self.clock.now,
                    lambda: self.controls.stopped,
                    self.events.emit,
                )
        self.events.emit(CrawlFinished(summary))
        self.events.flush()
        return summary

    @contextlib.contextmanager
    def _working(self, own: bool) -> Iterator[None]:
        """The worker's session around the crawl (started and ended here when ``own``),
        counting its pages."""
        worker = self.worker
        if worker is None:
            yield
            return
        if own:
            worker.start()
        worker.crawling(lambda: self.stats.fetched)
        try:
            yield
        finally:
            worker.crawling(None)
            if own:
                worker.end()

    def _store_fault(self, text: str) -> None:
        self.events.emit(LogMessage("warning", text))

    # -- rounds ----------------------------------------------------------------------

    async def _crawl(self) -> None:
        settings = self.settings
        politeness = settings.politeness
        concurrency = max(politeness.concurrency, 1)
        fetcher = Fetcher(settings.fetch, max_connections=concurrency)
        commits = CommitPipeline(self.worker)
        connections = asyncio.Semaphore(concurrency)
        processes = settings.parse.processes
        if processes is None:
            processes = default_processes()
        parse = replace(settings.parse, hash_links=self.schedule.counts_new_links)
        analyser = PageAnalyser(self.signature, parse, processes)
        # started by the first page of a host captured in a browser, if any
        browser = BrowserSession(settings, self.events)
        robots = None
        if politeness.obey_robots:
            robots = RobotsGate(
                politeness,
                settings.fetch.user_agent,
                self.clock,
                fetcher,
                connections,
                commits,
                self.events,
                self.reach,
            )
        parts = CrawlParts(
            self.project.path,
            settings,
            self.clock,
            self.controls,
            self.events,
            self.stats,
            self.hosts,
            self.links,
            self.recorder,
            analyser,
            fetcher,
            connections,
            commits,
            robots,
            self.reach,
            self.worker,
            lambda: self.links.embed_rules,
            self.schedule.initial_interval(),
            browser,
        )
        reader = None
        if settings.sources.enabled:
            reader = SourceReader(
                settings,
                self.clock,
                self.controls,
                self.events,
                self.stats,
                self.hosts,
                self.links,
                fetcher,
                connections,
                commits,
                robots,
                self.sources,
            )
            if self.worker is not None:  # a worker reads the sources of its hosts alone
                reader.leased_by = self.worker.name
            if robots is not None:
                robots.on_policy = partial(self._robots_sitemaps, commits)
        # why each changed page changed, and the news to the archivist's services (§17)
        news = RoundNews(self.project.path, settings.notify, self._say)
        ticker = asyncio.create_task(self._ticker()) if self.events.observer else None
        try:
            while True:
                pages = self._next_pages()
                if reader is not None and self._may_go_on():
                    # sitemaps and feeds first: what they make due joins the next round
                    reader.note_pages(pages)
                    await reader.read_due()
                    if not pages:  # what the sources made due; their hosts' sitemaps next
                        pages = self._next_pages()
                        reader.note_pages(pages)
                if not pages:
                    break
                if self.schedule.needs_corpus:
                    rates, scores, links = store.corpus_figures()
                    self.schedule.prepare(
                        Corpus(
                            np.array(rates, dtype=float),
                            np.array(scores),
                            np.array(links, dtype=float),
                        )
                    )
                this = Round(parts, pages)
                try:
                    await this.run()
                finally:
                    self._release()
                await self._told(news.after_round)
                if this.offline:
                    self.offline = True  # its pages are still due: trying again now is futile
                    break
            await self._told(news.at_end)
        finally:
            if ticker is not None:
                ticker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticker
            self._release()
            await browser.close()
            await fetcher.aclose()
            analyser.close()
            if reader is not None:
                reader.close()
            await commits.drain()
            commits.close()
            for message in self.traps.summary():
                self.events.emit(message)

    async def _told(self, step: Callable[[], None]) -> None:
        """The news committed, told: a round's summaries made, the crawl's message sent
        (bounded by ``notify.timeout``), off the loop."""
        try:
            await asyncio.to_thread(step)
        except Exception as exc:  # the news never fails the crawl that made it
            self._say("warning", f"the crawl's news was not told: {exc}")

    def _say(self, level: str, text: str) -> None:
        self.events.emit(LogMessage(level, text))

    def _robots_sitemaps(self, commits: CommitPipeline, origin: str, policy: RobotsPolicy) -> None:
        """An origin's robots.txt ``Sitemap:`` lines become sources (read before the next
        round, or in the reading under way)."""
        found = self.sources.robots_sitemaps(origin, policy)
        if found:
            commits.write(store.add_sources, found, self.clock.now())

    def _may_go_on(self) -> bool:
        """Whether the crawl may do more: not stopped, not at its round or page limit."""
        settings = self.settings
        if self.controls.stopped:
            return False
        if settings.rounds is not None and self.stats.rounds >= settings.rounds:
            return False
        return settings.max_pages is None or self.stats.attempts < settings.max_pages

    def _next_pages(self) -> list[store.DuePage]:
        """The next round's pages: due ones, within the limits; none when the crawl ends."""
        settings = self.settings
        if self.controls.stopped:
            return []
        self._follow_chain()
        if settings.rounds is not None and self.stats.rounds >= settings.rounds:
            return []
        budget = settings.round_size
        if settings.max_pages is not None:
            budget = min(budget, settings.max_pages - self.stats.attempts)
        if budget <= 0:
            return []
        cap = settings.traps.max_pages_per_host_round
        worker = self.worker
        leased_by = None
        if worker is not None:
            held, due = worker.lease(self.clock.now(), sources=settings.sources.enabled)
            self.leased_out = held < due
            leased_by = worker.name
        pages, waiting = store.due_page_refs(self.clock.now(), budget, cap, leased_by)
        if pages and waiting:
            hosts = sorted(waiting.items(), key=lambda item: -item[1])
            named = ", ".join(f"{host} ({count:,})" for host, count in hosts[:3])
            more = f" and {len(hosts) - 3} more hosts" if len(hosts) > 3 else ""
            self.events.emit(
                LogMessage(
                    "info",
                    f"at most {cap:,} pages of a host a round "
                    f"(traps.max_pages_per_host_round): due pages of {named}{more} "
                    "wait for the next rounds",
                )
            )
        return pages

    def _release(self) -> None:
        """The round's hosts go back to the pool (docs/design.md §12)."""
        worker = self.worker
        if worker is None:
            return
        lost = worker.release()
        if lost is not None:
            self.events.emit(
                LogMessage(
                    "warning",
                    f"{lost}: the round stopped; what it fetched since its last commit "
                    "is fetched again",
                )
            )

    def _follow_chain(self) -> None:
        """Judge links by the project's chain as it is now: one applied during the crawl
        (the app's Filters panel, ``filter set``) has filtered the known pages already."""
        if self._chain_text is None:
            return
        text = chain_text()
        if text != self._chain_text:
            self._chain_text, self.chain = text, parse_chain(text)
            self.links.use_chain(compile_chain(self.chain), compile_chain(self.chain.embed_rules))
            # the pages this crawl added by the chain before, since the apply
            caught = catch_up(self.clock.now())
            self.events.emit(
                LogMessage(
                    "info", f"the filter chain changed: links follow it; {caught.describe()}"
                )
            )

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self.settings.event_interval)
            self.events.emit(self.stats.snapshot(self.controls.paused))
            self.events.flush()


def _run_counts(stats: CrawlStats, controls: Controls) -> store.RunCounts:
    """What the crawl run's record keeps (:func:`recrawl.core.store.end_crawl_run`)."""
    return store.RunCounts(
        stats.rounds, stats.fetched, stats.errors, stats.new_urls, controls.stopped
    )
