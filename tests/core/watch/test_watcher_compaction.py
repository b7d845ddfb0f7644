"""Compaction by policy in a watcher (docs/design.md §18): folds run between rounds, one at a
time; a fold the next round's start catches before its commit is rolled back and the
round runs; one caught twice runs to its end the third time."""

from __future__ import annotations

import base64
import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from recrawl.core.archive.compaction import run as compaction_run
from recrawl.core.clock import Clock, parse_iso
from recrawl.core.config import CompactionSettings, WatchSettings
from recrawl.core.engine import inject
from recrawl.core.engine.events import Compacted, WatchRound
from recrawl.core.policy import choices
from recrawl.core.project import Project
from recrawl.core.store.models import Compaction, Segment
from recrawl.core.watch.watcher import Watcher

from tests.core.watch.test_watcher import Running, Seen
from tests.support.capture_table import check_table_matches_indexes
from tests.support.crawling import crawl, fast_settings
from tests.support.small_disk import fill, small_disk

DAY_ONE = parse_iso("2027-03-01T00:00:00Z")
SIX_HOURS = timedelta(hours=6)


class MovableClock(Clock):
    """A simulated clock (``crawl --now``) the test moves on: a watch over days in seconds."""

    def __init__(self, start: datetime) -> None:
        super().__init__(start)
        self.ahead = timedelta(0)

    def now(self) -> datetime:
        return super().now() + self.ahead


@pytest.fixture
def day_of_rounds(project: Project, server) -> Iterator[list[str]]:
    """Two pages fetched every 5 hours, crawled four times on 2027-03-01 (fast_settings:
    no compaction by policy, four segments of that day)."""
    server.html("/", '<a href="/b">b</a><p>front</p>')
    server.html("/b", "<p>b</p>")
    choices.set_schedule("fixed", ["initial=5h"])
    inject([server.url("/"), server.url("/b")], DAY_ONE)
    for r in range(4):
        server.html("/b", f"<p>b version {r}</p>")
        crawl(project, fast_settings(), clock=Clock(DAY_ONE + r * SIX_HOURS))
    names = sorted(s.name for s in Segment.select())
    assert len(names) == 4
    yield names


@pytest.fixture
def running() -> Iterator[list[Running]]:
    started: list[Running] = []
    yield started
    for run in started:  # a failed test leaves none running
        if run.thread.is_alive():
            run.end()


def settings():
    watch = WatchSettings(round_gap=0.0, wake_check=0.05)
    return replace(fast_settings(), watch=watch, compaction=CompactionSettings())  # auto on


def test_a_watcher_folds_the_finished_day_between_rounds(project, server, day_of_rounds, running):
    clock = MovableClock(DAY_ONE + 4 * SIX_HOURS)  # 2027-03-02T00:00: day one is over
    seen = Seen()
    watcher = Watcher(project, settings(), observer=seen, clock=clock)
    running.append(Running(watcher))
    seen.wait(lambda: bool(seen.of(Compacted)), "fold of 2027-03-01")
    (folded,) = seen.of(Compacted)
    assert folded.segments == tuple(day_of_rounds) and not folded.failed
    assert folded.new_segment == "20270301000001"
    assert folded.text.startswith("compacted 4 segments of 2027-03-01 into 20270301000001 (")
    # the watch's first round came first (the pages were due), the fold after it
    assert [type(e) for e in seen.events if isinstance(e, (WatchRound, Compacted))] == [
        WatchRound,
        Compacted,
    ]
    hits = server.hits_for("/b")
    clock.ahead = SIX_HOURS  # the pages fall due again: the next round fetches them
    seen.wait(lambda: len(seen.of(WatchRound)) == 2, "the round after the fold")
    assert server.hits_for("/b") == hits + 1
    running[0].end()
    names = sorted(s.name for s in Segment.select())
    assert names[0] == "20270301000001" and len(names) == 3  # the fold and today's two rounds


def test_a_round_falling_due_rolls_a_fold_back_and_runs_first(
    project, server, day_of_rounds, running, monkeypatch
):
    clock = MovableClock(DAY_ONE + 4 * SIX_HOURS)
    # as a fold copies, the pages fall due: the next round's start is passed mid-copy
    monkeypatch.setattr(compaction_run, "quiet", lambda report: _later(clock, report))
    seen = Seen()
    watcher = Watcher(project, settings(), observer=seen, clock=clock)
    running.append(Running(watcher))
    seen.wait(lambda: bool(seen.of(Compacted)), "the fold, in the end")
    running[0].end()
    # caught twice before its commit, each time the due round ran; the third ran through
    kinds = [type(e).__name__ for e in seen.events if isinstance(e, (WatchRound, Compacted))]
    assert kinds[:4] == ["WatchRound", "WatchRound", "WatchRound", "Compacted"]
    assert all(r.fetched == 2 for r in seen.of(WatchRound)[:3])
    assert not any(e.failed for e in seen.of(Compacted))
    states = [c.state for c in Compaction.select().order_by(Compaction.id)]
    assert states == ["rolled_back", "rolled_back", "done"]
    names = sorted(s.name for s in Segment.select())
    # (each try took a name of its own: the journal keeps the ones rolled back)
    assert names[0] == "20270301000003" and sum(n.startswith("20270301") for n in names) == 1


def _later(clock: MovableClock, report: object) -> None:
    if getattr(report, "phase", None) == "copy":
        clock.ahead += SIX_HOURS


def test_a_fold_that_fails_is_said_once_and_the_watch_goes_on(
    project, server, day_of_rounds, running
):
    index = next((project.path / "segments").glob(f"{day_of_rounds[1]}/*.cdxj"))
    index.write_bytes(index.read_bytes()[:-7])  # a damaged segment: its fold is refused
    clock = MovableClock(DAY_ONE + 4 * SIX_HOURS)
    seen = Seen()
    watcher = Watcher(project, settings(), observer=seen, clock=clock)
    running.append(Running(watcher))
    seen.wait(lambda: bool(seen.of(Compacted)), "the failed fold")
    clock.ahead = SIX_HOURS
    seen.wait(lambda: len(seen.of(WatchRound)) == 2, "the next round")
    clock.ahead = 2 * SIX_HOURS
    seen.wait(lambda: len(seen.of(WatchRound)) == 3, "the round after")
    running[0].end()
    (failed,) = seen.of(Compacted)  # said once, not at every round
    assert failed.failed and failed.line.startswith(
        "warning: could not compact the 4 segments of 2027-03-01: "
    )
    assert sum(s.name.startswith("20270301") for s in Segment.select()) == 4  # untouched


def test_a_fold_the_full_disk_stopped_is_tried_again_once_space_is_freed(tmp_path, server, running):
    """A full disk is not a damaged segment: the fold waits for space, said at each try,
    and the watch folds the day once there is room, without a restart."""
    with small_disk(tmp_path / "disk", "16M") as disk:
        project = Project.init(disk / "proj")
        try:
            server.html("/", '<a href="/b">b</a><p>front</p>')
            choices.set_schedule("fixed", ["initial=5h"])
            inject([server.url("/"), server.url("/b")], DAY_ONE)
            for r in range(3):  # a day of rounds too large to copy into what is left
                noise = base64.b64encode(random.Random(r).randbytes(400_000)).decode()
                server.html("/b", f"<p>{noise}</p>")
                crawl(project, fast_settings(), clock=Clock(DAY_ONE + r * SIX_HOURS))
            day = tuple(sorted(s.name for s in Segment.select()))
            server.html("/b", "<p>b, short now</p>")
            filler = fill(disk, leave=256 << 10)  # room for a round, not for the fold
            clock = MovableClock(DAY_ONE + 4 * SIX_HOURS)
            seen = Seen()
            running.append(Running(Watcher(project, settings(), observer=seen, clock=clock)))
            seen.wait(lambda: bool(seen.of(Compacted)), "the fold the full disk stopped")
            (failed,) = seen.of(Compacted)
            assert failed.failed and failed.segments == day
            assert "disk full: " in failed.text and "nothing was changed" in failed.text
            filler.unlink()
            clock.ahead = SIX_HOURS  # the next round, then the fold again
            seen.wait(lambda: len(seen.of(WatchRound)) == 2, "the round after")
            seen.wait(lambda: len(seen.of(Compacted)) == 2, "the fold tried again")
            folded = seen.of(Compacted)[-1]
            assert not folded.failed and folded.segments == day
            running[0].end()
            names = sorted(s.name for s in Segment.select())
            assert sum(n.startswith("20270301") for n in names) == 1
            check_table_matches_indexes(project.path)
        finally:
            project.close()
