"""The watcher: crawl rounds as pages come due, sleeping in between (docs/design.md §10).

:class:`Watcher` holds the project lock (purpose "watch": the lock file says "watch, pid
N") for as long as it runs, and runs the engine's :class:`~recrawl.core.engine.Crawler`
inside it whenever pages are due. Between rounds it sleeps until the earliest
``next_fetch`` (plus the last crawl's length, so what that crawl fetched comes due
together and is fetched in one round), at least :attr:`~recrawl.core.config.WatchSettings.round_gap` after the
last round's start; :meth:`wake` (or :func:`~.wake.wake_watcher` from another process:
new seeds, another chain, schedule or settings) makes it look again at once.

- **Network loss.** Its crawls hold connect failures (engine/offline.py): a round in
  which no host answered records nothing, so the pages stay due with their intervals and
  retries untouched, and the watcher tries again after a growing wait
  (``offline_wait`` doubling up to ``offline_max_wait``). Once a host answers, the due
  pages are fetched.
- **A full disk** (docs/design.md §18). A crawl the full disk stops ends with what it
  committed; the watcher says so in one line and tries again after a growing wait
  (``disk_wait`` doubling up to ``disk_max_wait``), so freeing space is all it takes.
- **Suspend.** A sleep's timer does not run while the machine is suspended; the watcher
  sleeps at most ``wake_check`` at a time and compares the wall clock after each, so on
  resume what fell due meanwhile is fetched within that. Idle, it wakes once a
  ``wake_check`` (a minute) to read the clock: no polling, no store query.
- **Stop.** :meth:`stop` (any thread; SIGINT/SIGTERM in ``recrawl watch``) finishes the
  fetches in flight as a crawl's stop does and ends the watch.
- **Workers** (docs/design.md §12). With a :class:`~recrawl.core.engine.worker.WorkerSession`
  (``recrawl worker``), and always on a shared (PostgreSQL) store, the watcher is a
  worker: its crawls fetch the hosts it leases. On SQLite it takes the project lock (one
  worker at a time). On PostgreSQL a worker takes none; a plain watch takes it (and its
  wake channel, for the app) only if it is free, and runs as one more worker if not, so
  any number watch one project. Due work on hosts other workers hold is
  looked at again when their first lease runs out, at most a lease later; while other
  workers hold leases, a worker looks at least every third of a lease (they make pages
  due). ``until_idle``: the watch ends once nothing is due and no other worker holds a
  lease.

:meth:`pause`, :meth:`resume`, :meth:`wake`, :meth:`stop` and :attr:`paused` are
thread-safe. Events to the observer (on the watcher's thread): the crawl's own (a crawl
runs at each wake that finds pages due, so a CrawlFinished follows each), then a
:class:`~recrawl.core.engine.events.WatchRound` after each ``RoundFinished``, and a
:class:`~recrawl.core.engine.events.WatchSleeping` when it goes to sleep.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial

from recrawl.core import store
from recrawl.core.archive.compaction import auto as auto_compaction
from recrawl.core.archive.search_build import ensure_search_index
from recrawl.core.clock import Clock, human_duration
from recrawl.core.config import CrawlSettings
from recrawl.core.disk import disk_full, is_full
from recrawl.core.engine import Crawler
from recrawl.core.engine.compaction import compact_one
from recrawl.core.engine.events import (
    Event,
    EventQueue,
    LogMessage,
    Observer,
    RoundFinished,
    RoundStarted,
    WatchRound,
    WatchSleeping,
)
from recrawl.core.engine.worker import WorkerSession
from recrawl.core.errors import DiskFull, ProjectLocked
from recrawl.core.policy.crawl_settings import project_crawl_settings
from recrawl.core.project import Project
from recrawl.core.store.search import search_state
from recrawl.core.watch.wake import WakeChannel


@dataclass(frozen=True)
class WatchSummary:
    """What a watch did, all rounds together."""

    rounds: int
    fetched: int
    new_pages: int
    changed_pages: int
    errors: int
    elapsed_s: float
    #: Ended by stop() (a signal, the app, ``stop_watcher``), not by ``for_seconds`` or a
    #: limit.
    stopped: bool
    #: Pages that went and came back (docs/design.md §10), and pages archived by their host's
    #: first crawl (§15).
    gone_pages: int = 0
    back_pages: int = 0
    baseline_pages: int = 0


class Watcher:
    """Watches a project: runs crawl rounds whenever pages are due, until stopped."""

    def __init__(
        self,
        project: Project,
        settings: CrawlSettings | Callable[[], CrawlSettings] | None = None,
        *,
        observer: Observer | None = None,
        clock: Clock | None = None,
        for_seconds: float | None = None,
        worker: WorkerSession | None = None,
        until_idle: bool = False,
    ) -> None:
        self.project = project
        self.worker = worker
        self.until_idle = until_idle
        #: Read before each crawl, so settings changed meanwhile (and the watcher woken)
        #: hold from the next round; ``rounds`` and ``max_pages`` bound the whole watch.
        self._settings = settings if settings is not None else project_crawl_settings
        with project.active():
            self.settings = self._current_settings()
        self.clock = clock or Clock()
        self.for_seconds = for_seconds
        self.events = EventQueue(observer)
        self._stop = threading.Event()
        self._expired = threading.Event()  # for_seconds are up
        self._pause = threading.Event()
        #: Set by wake(), resume() and stop(): a sleep ends, the next look is at once.
        self._wake = threading.Event()
        self._guard = threading.Lock()
        self._crawler: Crawler | None = None
        self._rounds = self._fetched = self._errors = self._new = self._changed = 0
        self._gone = self._back = self._baseline = 0
        self._round_start: datetime | None = None
        self._leased_out = False  # the last crawl left due work on others' hosts
        #: Folds (by period) the next round's start stopped, in a row (:meth:`_compact`).
        self._fold_stops: dict[str, int] = {}
        #: Folds that failed (a damaged segment): said once, not tried again this watch.
        self._fold_failed: set[tuple[str, ...]] = set()

    # -- thread-safe controls --------------------------------------------------------

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        with self._guard:
            if self._crawler is not None:
                self._crawler.stop()

    def pause(self) -> None:
        """Pause the round in flight (what it fetched is committed) and start no other;
        a sleeping watcher says at once that it sleeps until resumed (WatchSleeping(None))."""
        self._pause.set()
        with self._guard:
            if self._crawler is not None:
                self._crawler.pause()
        self._wake.set()

    def resume(self) -> None:
        self._pause.clear()
        with self._guard:
            if self._crawler is not None:
                self._crawler.resume()
        self._wake.set()

    def wake(self) -> None:
        """Look at what is due now, not at the next due page (seeds, chain, ... changed)."""
        self._wake.set()

    @property
    def paused(self) -> bool:
        return self._pause.is_set()

    # -- facade ----------------------------------------------------------------------

    def run(self) -> WatchSummary:
        """Watch until stop(), ``for_seconds`` or the settings' rounds/max_pages (on the
        project's store, whichever thread runs it)."""
        with self.project.active():
            return self._run()

    def _run(self) -> WatchSummary:
        started = time.monotonic()
        timer = None
        if self.for_seconds is not None:
            # time up: the crawl in flight stops as for stop(), but the watch was not stopped
            timer = threading.Timer(self.for_seconds, self._time_up)
            timer.daemon = True
            timer.start()
        channel = None
        shared = store.is_server_store()
        # on PostgreSQL a plain watch is a worker too, and holds the lock only if it is free
        # (the app shows and stops that one); a `recrawl worker` there never takes it
        wants_lock = not shared or self.worker is None
        if shared and self.worker is None:
            self.worker = WorkerSession(None, self.settings.workers)
        try:
            with contextlib.ExitStack() as held:
                if wants_lock:
                    try:
                        held.enter_context(self.project.locked("watch"))
                    except ProjectLocked:
                        if not shared:
                            raise
                        wants_lock = False  # another watch has it: this one is one more worker
                if wants_lock:
                    channel = self._channel()
                if channel is not None:
                    held.callback(channel.close)  # the file goes while the lock is still held
                held.enter_context(self._working())
                self._watch()
        finally:
            if timer is not None:
                timer.cancel()
            if channel is not None:
                channel.release_stoppers()
            self.events.flush()
        return WatchSummary(
            rounds=self._rounds,
            fetched=self._fetched,
            new_pages=self._new,
            changed_pages=self._changed,
            errors=self._errors,
            elapsed_s=time.monotonic() - started,
            stopped=self._stop.is_set(),
            gone_pages=self._gone,
            back_pages=self._back,
            baseline_pages=self._baseline,
        )

    def _channel(self) -> WakeChannel | None:
        """The wake channel; none on a full disk (no room for its file), said once."""
        try:
            return WakeChannel(
                self.project.path, wake=self.wake, stop=self.stop, since=self.clock.now()
            )
        except OSError as exc:
            if not is_full(exc):
                raise
        then = "this watch runs without its wake channel: other commands cannot wake or stop it"
        self._say("warning", str(disk_full(self.project.path, then)))
        return None

    @contextlib.contextmanager
    def _working(self) -> Iterator[None]:
        """The worker's session for the whole watch (none: a plain watch of SQLite)."""
        worker = self.worker
        if worker is None:
            yield
            return
        worker.start()
        try:
            yield
        finally:
            worker.end()

    def _current_settings(self) -> CrawlSettings:
        given = self._settings
        return given if isinstance(given, CrawlSettings) else given()

    # -- the loop --------------------------------------------------------------------

    def _time_up(self) -> None:
        self._expired.set()
        self._wake.set()
        with self._guard:
            if self._crawler is not None:
                self._crawler.stop()

    def _ended(self) -> bool:
        return self._stop.is_set() or self._expired.is_set() or self._limits_reached()

    def _watch(self) -> None:
        last_start: datetime | None = None
        # How long the last crawl took: the pages it fetched come due spread over as long,
        # so a timed wake waits that much past the earliest of them and takes them in one
        # round (one segment) instead of a round for the first and another for the rest.
        last_length = timedelta(0)
        backoff = 0.0  # seconds, after offline rounds
        disk_backoff = 0.0  # seconds, after crawls a full disk stopped
        retry_at: datetime | None = None  # not before this after an offline round
        # a worker's: due work waits on hosts other workers hold; look again then
        blocked_until: datetime | None = None
        woken = True  # the first look is at once
        while not self._ended():
            if self._pause.is_set():
                woken = self._sleep(None)
                continue
            self.settings = self._current_settings()
            watch = self.settings.watch
            gap = timedelta(seconds=watch.round_gap)
            now = self.clock.now()
            earliest = store.earliest_next_fetch()
            if self.settings.sources.enabled:  # sitemaps and feeds fall due too (§11)
                sources = store.earliest_source_fetch()
                if sources is not None and (earliest is None or sources < earliest):
                    earliest = sources
            due = earliest is not None and earliest <= now
            # seconds until another worker's first lease runs out (None: none holds one)
            others = store.others_lease_wait(self.worker.name) if self.worker else None
            if retry_at is not None and not woken and now < retry_at:
                until: datetime | None = retry_at
            elif due and blocked_until is not None and not woken and now < blocked_until:
                until = blocked_until
            elif due and (
                woken or blocked_until is not None or last_start is None or now >= last_start + gap
            ):
                last_start = now
                try:
                    offline = self._crawl()
                except DiskFull as full:
                    disk_backoff = min(disk_backoff * 2 or watch.disk_wait, watch.disk_max_wait)
                    retry_at = self.clock.now() + timedelta(seconds=disk_backoff)
                    self._say("warning", f"{full}; trying again in {human_duration(disk_backoff)}")
                    store.close_database()  # the next try connects anew: for writing, if it can
                    woken = False
                    continue
                disk_backoff = 0.0
                blocked_until = self._blocked_until()
                last_length = self.clock.now() - now
                if offline:
                    backoff = min(backoff * 2 or watch.offline_wait, watch.offline_max_wait)
                    retry_at = self.clock.now() + timedelta(seconds=backoff)
                    self._say(
                        "warning",
                        f"no host answered: offline? Trying again in {human_duration(backoff)}; "
                        "the due pages wait, their schedule untouched",
                    )
                else:
                    backoff, retry_at = 0.0, None
                woken = False
                continue
            elif due:
                until = last_start + gap if last_start is not None else now
            else:
                if self.until_idle and others is None:
                    break  # nothing due, and no other worker that could make some due
                until = earliest
                if until is not None and last_start is not None:
                    until = max(until + last_length, last_start + gap)
            if others is not None and self.worker is not None:
                # other workers' rounds make pages due (new links): look now and then
                look = now + timedelta(seconds=self.worker.lease_seconds / 3)
                until = look if until is None else min(until, look)
            self._compact(until)
            self._index(until)
            woken = self._sleep(until)

    def _crawl(self) -> bool:
        """One crawl of what is due now (rounds until none is); whether it was offline."""
        settings = self.settings
        if settings.rounds is not None:
            settings = replace(settings, rounds=settings.rounds - self._rounds)
        if settings.max_pages is not None:
            attempts = self._fetched + self._errors
            settings = replace(settings, max_pages=settings.max_pages - attempts)
        crawler = Crawler(
            self.project,
            settings,
            observer=self._relay,
            clock=self.clock,
            take_lock=False,  # the watch holds it (or, a worker on PostgreSQL, none)
            offline_rounds=True,
            worker=self.worker,
            compact_after=False,  # between rounds, by self._compact
        )
        with self._guard:
            self._crawler = crawler
            if self._stop.is_set() or self._expired.is_set():
                crawler.stop()
            if self._pause.is_set():
                crawler.pause()
        try:
            crawler.run()
        finally:
            with self._guard:
                self._crawler = None
        self._leased_out = crawler.leased_out and not crawler.controls.stopped
        return crawler.offline

    def _compact(self, until: datetime | None) -> None:
        """Fold what is due (docs/design.md §18) while the watch would sleep: one fold at a
        time, a fold not committed by ``until`` (the next round's start) or a wake
        (stop, pause, new seeds...) rolled back, and no other started.

        A fold stopped so twice runs to its end the next time, whatever falls due: a
        fold copies what a few rounds wrote at the disk's speed, far quicker than a
        round, which waits on the network and each host's politeness; a large one
        rolled back at every round would never be done. A fold that failed (a damaged
        segment) is said once and not tried again while this watch runs; one a full disk
        stopped is tried again after the next round, until there is room."""
        if self._pause.is_set():
            return

        def stopping(patient: bool) -> bool:
            if self._wake.is_set() or self._ended():
                return True
            return not patient and until is not None and self.clock.now() >= until

        for due in auto_compaction.due(self.settings.compaction, self.clock.now()):
            if due.names in self._fold_failed:
                continue
            if stopping(False):
                break
            stop = partial(stopping, self._fold_stops.get(due.period, 0) >= 2)
            result = compact_one(self.project.path, due, stop, self.events.emit)
            self.events.flush()
            if result.outcome == auto_compaction.STOPPED:
                if not self._wake.is_set() and not self._ended():  # the round came due
                    self._fold_stops[due.period] = self._fold_stops.get(due.period, 0) + 1
                break
            self._fold_stops.pop(due.period, None)
            if result.disk_full:
                break  # tried again between the next rounds: space may be freed by then
            if result.outcome == auto_compaction.FAILED:
                self._fold_failed.add(due.names)
            elif result.outcome == auto_compaction.BUSY:
                break

    def _index(self, until: datetime | None) -> None:
        """Go on with the search index's build (docs/design.md §19) while the watch would
        sleep, a batch at a time, until the next round is due or a wake: what each batch
        indexed stays, and the next pause between rounds goes on from there."""
        if self._pause.is_set() or not self.settings.search.index:
            return
        if search_state().complete:
            return

        def stopping() -> bool:
            if self._wake.is_set() or self._ended():
                return True
            return until is not None and self.clock.now() >= until

        if stopping():
            return
        report = ensure_search_index(self.project.path, should_stop=stopping)
        if report.line is not None and report.complete:
            self._say("info", f"search index complete: {report.done:,} page versions indexed")

    def _blocked_until(self) -> datetime | None:
        """After a worker's crawl that left due work on hosts other workers hold: when to
        look again (their first lease's end, within [lease/30, lease/3] from now)."""
        worker = self.worker
        if worker is None or not self._leased_out:
            return None
        lease = worker.lease_seconds
        wait = store.others_lease_wait(worker.name)
        wait = min(max(wait if wait is not None else 0.0, lease / 30), lease / 3)
        return self.clock.now() + timedelta(seconds=wait)

    def _relay(self, batch: Sequence[Event]) -> None:
        """The crawl's events to the observer, each RoundFinished followed by a WatchRound."""
        for event in batch:
            self.events.emit(event)
            if isinstance(event, RoundStarted):
                self._round_start = event.at
            elif isinstance(event, RoundFinished):
                self._rounds += 1
                self._fetched += event.fetched
                self._errors += event.errors
                self._new += event.new_pages
                self._changed += event.changed_pages
                self._gone += event.gone_pages
                self._back += event.back_pages
                self._baseline += event.baseline_pages
                self.events.emit(
                    WatchRound(
                        started_at=self._round_start or self.clock.now(),
                        fetched=event.fetched,
                        new_pages=event.new_pages,
                        changed_pages=event.changed_pages,
                        errors=event.errors,
                        next_due_at=store.earliest_next_fetch(),
                        embeds_fetched=event.embeds_fetched,
                        gone_pages=event.gone_pages,
                        back_pages=event.back_pages,
                        baseline_pages=event.baseline_pages,
                        baselines_done=event.baselines_done,
                    )
                )
        self.events.flush()

    def _sleep(self, until: datetime | None) -> bool:
        """Sleep until the clock says ``until`` (None: until woken) or a wake; whether a
        wake (or stop, resume, time up) ended it."""
        self.events.emit(WatchSleeping(until))
        self.events.flush()
        check = max(self.settings.watch.wake_check, 0.001)
        while True:
            wait = check
            if until is not None:
                left = (until - self.clock.now()).total_seconds()
                if left <= 0:
                    return False
                wait = min(wait, left)
            if self._wake.wait(wait):
                self._wake.clear()
                return True

    def _limits_reached(self) -> bool:
        settings = self.settings
        if settings.rounds is not None and self._rounds >= settings.rounds:
            return True
        attempts = self._fetched + self._errors
        return settings.max_pages is not None and attempts >= settings.max_pages

    def _say(self, level: str, text: str) -> None:
        self.events.emit(LogMessage(level, text))
        self.events.flush()
