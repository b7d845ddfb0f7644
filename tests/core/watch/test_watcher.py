"""The watcher in process, with a clock the test can move: a suspended machine, pause and
resume, stop, and the wake channel (core/watch/)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from recrawl.core.clock import Clock, utcnow
from recrawl.core.config import CrawlSettings, WatchSettings
from recrawl.core.engine import Event, inject
from recrawl.core.engine.events import LogMessage, WatchRound, WatchSleeping
from recrawl.core.layout import WAKE_FILE
from recrawl.core.policy import choices
from recrawl.core.project import Project
from recrawl.core.watch.wake import stop_watcher, wake_watcher, watcher_of
from recrawl.core.watch.watcher import Watcher, WatchSummary

from tests.support.crawling import fast_settings, page
from tests.support.interrupted import recrawl
from tests.support.small_disk import fill, small_disk

PATIENCE = 60.0
HOUR = timedelta(hours=1)


class MovableClock(Clock):
    """Wall time that a test can move forward at once, as a machine back from suspend
    finds it: the watcher's sleeps (monotonic) did not see the time go by."""

    def __init__(self) -> None:
        super().__init__()
        self.ahead = timedelta(0)

    def now(self) -> datetime:
        return super().now() + self.ahead


class Seen:
    """The watcher's events, waited on."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._changed = threading.Condition()

    def __call__(self, batch: list[Event]) -> None:
        with self._changed:
            self.events.extend(batch)
            self._changed.notify_all()

    def of(self, kind: type) -> list[Event]:
        with self._changed:
            return [e for e in self.events if isinstance(e, kind)]

    def wait(self, found: Callable[[], bool], what: str) -> None:
        with self._changed:
            assert self._changed.wait_for(found, PATIENCE), f"no {what}: {self.events}"


class Running:
    """A watcher run on a thread; its summary once it ended."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher
        self.summary: WatchSummary | None = None
        self.thread = threading.Thread(target=self._run)
        self.thread.start()

    def _run(self) -> None:
        self.summary = self.watcher.run()

    def end(self) -> WatchSummary:
        self.watcher.stop()
        self.thread.join(PATIENCE)
        assert not self.thread.is_alive() and self.summary is not None
        return self.summary


def watch_settings(**watch: float) -> CrawlSettings:
    return replace(fast_settings(), watch=WatchSettings(**{"round_gap": 0.0, **watch}))


@pytest.fixture
def hourly(project: Project, server) -> str:
    """One page, fetched every hour (the fixed schedule)."""
    server.html("/", "<p>hello</p>")
    choices.set_schedule("fixed", ["initial=1h"])
    inject([server.url("/")], utcnow())
    return server.url("/")


@pytest.fixture
def running() -> Iterator[list[Running]]:
    started: list[Running] = []
    yield started
    for run in started:  # a failed test leaves none running
        if run.thread.is_alive():
            run.end()


def test_after_a_suspend_what_fell_due_is_fetched(project, server, hourly, running):
    clock = MovableClock()
    seen = Seen()
    watcher = Watcher(project, watch_settings(wake_check=0.2), observer=seen, clock=clock)
    running.append(Running(watcher))
    seen.wait(lambda: bool(seen.of(WatchSleeping)), "sleep after the first round")
    (first,) = seen.of(WatchRound)
    assert first.fetched == 1 and server.hits_for("/") == 1
    (sleep,) = seen.of(WatchSleeping)
    # asleep until the page is due in an hour
    assert sleep.until is not None and sleep.until - clock.now() > 0.9 * HOUR
    clock.ahead = 2 * HOUR  # the lid was closed for two hours
    seen.wait(lambda: len(seen.of(WatchRound)) == 2, "round after the resume")
    assert server.hits_for("/") == 2
    assert page(hourly).last_fetched >= utcnow() + 2 * HOUR - timedelta(minutes=5)
    summary = running[0].end()
    assert summary.rounds == 2 and summary.fetched == 2 and summary.stopped


def test_on_a_full_disk_it_waits_longer_each_time_and_crawls_once_space_is_freed(
    tmp_path, server, running
):
    with small_disk(tmp_path / "disk", "4M") as disk:
        project = Project.init(disk / "proj")
        try:
            server.html("/", "<p>hello</p>")
            inject([server.url("/")], utcnow())
            filler = fill(disk)
            clock = MovableClock()
            seen = Seen()
            settings = watch_settings(wake_check=0.2, disk_wait=300.0, disk_max_wait=600.0)
            running.append(Running(Watcher(project, settings, observer=seen, clock=clock)))

            def full() -> list[str]:
                return [e.text for e in seen.of(LogMessage) if "trying again in" in e.text]

            def retried(count: int, wait: str) -> None:
                seen.wait(lambda: len(full()) == count, f"disk full line {count}")
                said = full()[-1]
                assert said.startswith("disk full: ") and f"free on {disk}" in said, said
                assert said.endswith(f"; nothing committed is lost; trying again in {wait}")
                seen.wait(lambda: len(seen.of(WatchSleeping)) >= count, "a sleep")
                until = seen.of(WatchSleeping)[-1].until
                assert until is not None and until - clock.now() > timedelta(seconds=240)

            retried(1, "5 min")
            clock.ahead += timedelta(minutes=5, seconds=1)
            retried(2, "10 min")  # doubled
            clock.ahead += timedelta(minutes=10, seconds=1)
            retried(3, "10 min")  # at most disk_max_wait
            assert not seen.of(WatchRound) and server.hits_for("/") == 0

            filler.unlink()  # space freed: the next try crawls
            clock.ahead += timedelta(minutes=10, seconds=1)
            seen.wait(lambda: bool(seen.of(WatchRound)), "a round once space was freed")
            (round_,) = seen.of(WatchRound)
            assert round_.fetched == 1 and server.hits_for("/") == 1
            assert len(full()) == 3
            (no_channel,) = [e.text for e in seen.of(LogMessage) if "wake channel" in e.text]
            assert no_channel.startswith("disk full: ")  # no room for its file, said once
            summary = running[0].end()
            assert summary.rounds == 1 and summary.stopped
        finally:
            project.close()


def test_paused_it_fetches_nothing_until_resumed(project, server, hourly, running):
    seen = Seen()
    watcher = Watcher(project, watch_settings(), observer=seen)
    watcher.pause()
    assert watcher.paused
    running.append(Running(watcher))
    seen.wait(lambda: bool(seen.of(WatchSleeping)), "paused sleep")
    assert seen.of(WatchSleeping)[0].until is None  # until resumed
    assert server.hits_for("/") == 0 and page(hourly).last_fetched is None
    watcher.resume()
    seen.wait(lambda: bool(seen.of(WatchRound)), "round once resumed")
    assert server.hits_for("/") == 1 and not watcher.paused
    seen.wait(lambda: seen.of(WatchSleeping)[-1].until is not None, "sleep till due")
    watcher.pause()  # asleep: it says at once that it now waits to be resumed
    seen.wait(lambda: seen.of(WatchSleeping)[-1].until is None, "paused sleep")


def test_the_wake_channel_wakes_names_and_stops_the_watcher(project, server, hourly, running):
    assert watcher_of(project.path) is None and not wake_watcher(project.path)
    seen = Seen()
    watcher = Watcher(project, watch_settings(round_gap=86400.0), observer=seen)
    running.append(Running(watcher))
    seen.wait(lambda: bool(seen.of(WatchSleeping)), "sleep after the first round")
    info = watcher_of(project.path)
    assert info is not None and info.pid == os.getpid()
    assert abs(info.since - utcnow()) < HOUR
    assert (project.path / WAKE_FILE).stat().st_mode & 0o777 == 0o600
    # a new seed: due now, but the round gap is a day; only the wake brings it in now
    server.html("/new", "<p>new</p>")
    inject([server.url("/new")], utcnow())
    assert wake_watcher(project.path)
    seen.wait(lambda: len(seen.of(WatchRound)) == 2, "round after the wake")
    assert server.hits_for("/new") == 1
    assert stop_watcher(project.path, wait=PATIENCE)
    running[0].thread.join(PATIENCE)
    assert running[0].summary is not None and running[0].summary.stopped
    assert not (project.path / WAKE_FILE).exists() and watcher_of(project.path) is None


def test_a_file_left_by_a_killed_watcher_is_ignored(project):
    (project.path / WAKE_FILE).write_text(
        '{"pid": 1, "port": 9, "token": "x", "since": "2027-01-01T00:00:00Z"}'
    )
    assert watcher_of(project.path) is None
    assert not wake_watcher(project.path) and not stop_watcher(project.path)


def test_for_seconds_ends_the_watch(project, hourly):
    watcher = Watcher(project, watch_settings(), for_seconds=0.5)
    summary = watcher.run()  # returns by itself
    assert summary.rounds == 1 and not summary.stopped
    assert not (project.path / WAKE_FILE).exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ("settings", "--set", "politeness.delay=0.5s"),
        ("schedule", "--param", "initial=2h"),
        ("signature", "--set", "md5"),
    ],
    ids=["settings", "schedule", "signature"],
)
def test_commands_that_change_what_it_waits_on_wake_it(project, hourly, running, command):
    seen = Seen()
    watcher = Watcher(project, watch_settings(round_gap=86400.0), observer=seen)
    running.append(Running(watcher))
    seen.wait(lambda: len(seen.of(WatchSleeping)) == 1, "sleep after the first round")
    name, *args = command
    recrawl(name, project.path, *args)  # another process, as a user in another terminal
    seen.wait(lambda: len(seen.of(WatchSleeping)) == 2, "a look again after the change")
