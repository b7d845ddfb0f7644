"""The Crawl panel's progress model: a current rate, a whole-crawl plot, real round counts."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.engine import (
    Compacted,
    CrawlSummary,
    LinkRejected,
    LogMessage,
    PageFetched,
    RoundFinished,
    RoundStarted,
    StatsSnapshot,
)
from recrawl.gui.common.formatting import stopwatch
from recrawl.gui.crawl.crawl_progress import LOG_KINDS, CrawlProgress, Downsampled, LogTail
from recrawl.gui.crawl.crawl_view import LOG_LINES, CrawlProgressView, nice_ceiling, time_unit


def snap(fetched: int, *, round_done: int = 0, queued: int = 10, paused: bool = False):
    return StatsSnapshot(
        round=1,
        queued=queued,
        round_done=round_done,
        fetched=fetched,
        errors=0,
        new_urls=0,
        pages_per_s=0.0,
        paused=paused,
    )


def test_the_rate_is_over_the_last_window_so_a_pause_drops_to_zero():
    progress = CrawlProgress(window_s=5.0)
    progress.start(100.0)
    fetched = 0
    for tick in range(1, 101):  # 20 s at 10 pages/s, snapshots every 0.2 s
        fetched += 2
        progress.snapshot(100.0 + tick * 0.2, snap(fetched))
    assert progress.rate() == pytest.approx(10.0)
    for tick in range(101, 131):  # then 6 s paused: nothing more fetched
        progress.snapshot(100.0 + tick * 0.2, snap(fetched, paused=True))
    assert progress.rate() == 0.0  # an average since the start would still read 7.7
    assert progress.paused
    assert progress.elapsed(126.0) == pytest.approx(26.0)


def test_the_plot_keeps_the_whole_crawl_in_a_bounded_number_of_points():
    progress = CrawlProgress(window_s=5.0, max_points=100)
    progress.start(0.0)
    for tick in range(1, 5001):  # 1000 s
        progress.snapshot(tick * 0.2, snap(tick))
    points = progress.rates.points()
    assert 50 <= len(points) <= 101
    assert points[0][0] < 10.0  # the first seconds are still drawn...
    assert points[-1][0] > 990.0  # ...as are the last
    assert all(a[0] < b[0] for a, b in itertools.pairwise(points))


@given(st.lists(st.floats(0, 1000), min_size=1, max_size=500), st.integers(2, 40))
def test_downsampling_keeps_time_order_bounds_and_the_mean(values, limit):
    series = Downsampled(limit)
    for t, value in enumerate(values):
        series.add(float(t), value)
    points = series.points()
    assert len(points) <= limit + 1
    assert [t for t, _ in points] == sorted(t for t, _ in points)
    lowest, highest = min(values), max(values)
    assert all(lowest - 1e-9 <= y <= highest + 1e-9 for _, y in points)


def test_a_stopped_round_shows_what_it_did_not_its_size():
    progress = CrawlProgress()
    progress.start(0.0)
    at = datetime(2027, 1, 1)
    progress.round_started(RoundStarted(3, "seg", 746, at))
    progress.snapshot(1.0, snap(300, round_done=330, queued=746))
    progress.round_finished(RoundFinished(3, "seg", fetched=339, errors=0, new_urls=5))
    assert (progress.round.done, progress.round.queued) == (339, 746)
    summary = CrawlSummary(3, 1200, 80, 4, 61.5, 19.5, [], stopped=True)
    progress.finished(summary)
    assert (progress.fetched, progress.errors, progress.new_urls) == (1200, 4, 80)
    assert progress.elapsed(1e6) == 61.5  # the crawl's own length, frozen


def test_time_reads_as_a_stopwatch_and_the_axis_unit_grows():
    assert stopwatch(42.4) == "0:42"
    assert stopwatch(725) == "12:05"
    assert stopwatch(3 * 3600 + 125) == "3:02:05"
    assert time_unit(30) == ("s", 1.0)
    assert time_unit(1800) == ("min", 60.0)
    assert time_unit(8 * 3600) == ("h", 3600.0)


def test_the_log_takes_only_the_lines_it_keeps(qtbot):
    """A page of 100,000 links robots.txt denies gives a line each within one redraw: the
    log lays out only the last LOG_LINES of them (laying out all to trim them after held
    the GUI thread for seconds)."""
    view = CrawlProgressView()
    qtbot.addWidget(view)
    blocks: list[int] = []
    view.log.document().blockCountChanged.connect(blocks.append)
    lines = [f"error  http://example.org/denied/{i}: denied by robots.txt" for i in range(10_000)]
    view.append_log(lines)
    assert max(blocks) <= LOG_LINES + 1
    kept = view.log.toPlainText().splitlines()
    assert kept[-1] == lines[-1] and kept[-LOG_LINES] == lines[-LOG_LINES]
    view.append_log(["round 1 done"])
    assert view.log.toPlainText().splitlines()[-2:] == [lines[-1], "round 1 done"]


def test_a_watchs_crawls_add_up_and_a_sleep_reads_as_zero():
    # each crawl of a watch counts from zero in its snapshots; the panel shows the watch's
    progress = CrawlProgress(window_s=5.0)
    progress.start(0.0)
    progress.snapshot(1.0, snap(10))
    progress.crawl_finished(CrawlSummary(1, 12, 3, 1, 2.0, 6.0))
    assert (progress.fetched, progress.errors, progress.new_urls) == (12, 1, 3)
    progress.idle(3.0)
    assert progress.rate() == 0.0 and progress.rates.points()[-1] == (3.0, 0.0)
    progress.idle(59.0)  # the next crawl starts, a while later
    progress.snapshot(60.0, snap(4))
    progress.snapshot(61.0, snap(8))
    assert progress.fetched == 20 and progress.rate() == pytest.approx(4.0)


def test_the_log_tail_keeps_the_last_lines_only_of_events_that_make_lines():
    tail = LogTail(3)
    tail.add("started")
    tail.extend(
        [
            PageFetched("http://a/1", "fetched", 200, "new", 10, 1.0),
            PageFetched("http://a/2", "retry", None, "unknown", 0, 1.0, "timed out"),
            *(LinkRejected(f"http://b/{i}", "http://a/1", 1, "scope", 4) for i in range(100_000)),
            LogMessage("warning", "slow host"),
            PageFetched("http://a/3", "fetched", 200, "new", 10, 1.0),  # no line: not kept
        ]
    )
    assert tail.take() == [
        "rejected  http://b/99998 (filter scope, line 4; linked from http://a/1)",
        "rejected  http://b/99999 (filter scope, line 4; linked from http://a/1)",
        "warning  slow host",
    ]
    assert tail.take() == []
    tail.extend([PageFetched("http://a/2", "robots_denied", None, "unknown", 0, 0.0, "denied")])
    tail.extend([RoundFinished(1, "seg", 5, 1, 2)])
    assert tail.take() == [
        "denied  http://a/2: denied",
        "round 1 done: 5 pages fetched, 1 error, 2 new URLs (segment seg)",
    ]


def test_a_fold_by_policy_is_a_line_of_the_log_among_progress():
    tail = LogTail(3)
    text = "compacted 4 segments of 2027-03-01 into 20270301000000 (8 captures kept, …)"
    tail.extend([Compacted(("a", "b", "c", "d"), "20270301000000", text)])
    assert tail.take() == [f"info  {text}"]
    assert LOG_KINDS["info"] == "progress"


@given(st.floats(min_value=1e-3, max_value=1e7))
def test_a_nice_ceiling_is_at_most_a_half_above_its_value(value):
    top = nice_ceiling(value)
    assert value * 0.9999 <= top <= value * 1.5


def test_the_plot_ranges_grow_in_steps_not_with_every_redraw(qtbot):
    """pyqtgraph lays an axis out again whenever its range changes: redraws a quarter of
    a second apart keep both ranges until the crawl outgrows them."""
    view = CrawlProgressView()
    qtbot.addWidget(view)
    progress = CrawlProgress(window_s=5.0)
    progress.start(0.0)
    ranges = []
    for second in range(1, 200):
        progress.snapshot(float(second), snap(45 * second + second % 7))  # ~45/s, jittery
        view.draw(progress, float(second))
        (_, x_top), (y_bottom, y_top) = view.plot.getPlotItem().vb.viewRange()
        assert x_top >= second and y_bottom < 0 < y_top
        ranges.append((round(x_top, 6), round(y_top, 6)))
    # x: 60 s, 80, 100, 150, 200; y: the rate's first steps up to ~45/s and a bit above
    assert len(set(ranges)) <= 10


def test_embeds_are_counted_and_logged_apart_from_the_pages(qtbot):
    """What pages embed never inflates the pages' counts, rate or round (docs/design.md §14)."""
    progress = CrawlProgress(window_s=5.0)
    progress.start(0.0)
    embeds = {"embeds_fetched": 38, "embed_errors": 2}
    progress.snapshot(1.0, replace(snap(2, round_done=2, queued=2), **embeds))
    assert (progress.fetched, progress.errors, progress.embeds_fetched) == (2, 0, 38)
    assert progress.embed_errors == 2 and progress.rate() == pytest.approx(2.0)
    assert (progress.round.done, progress.round.queued) == (2, 2)
    progress.round_finished(RoundFinished(1, "s", 2, 0, 3, embeds_fetched=38, embed_errors=2))
    assert (progress.round.done, progress.round.queued) == (2, 2)
    view = CrawlProgressView()
    qtbot.addWidget(view)
    view.draw(progress, 1.0)
    # the rate is the pages': 2 in the last second, not 40
    assert view.totals.text() == (
        "Elapsed 0:01 · 2 pages fetched · 0 errors · 38 embeds fetched (2 failed) · "
        "0 new URLs · 2.0 pages/s now"
    )
    # a watch's crawls add up, embeds too; the crawl's own summary replaces the snapshot's
    progress.crawl_finished(CrawlSummary(1, 2, 3, 0, 1.0, 2.0, embeds_fetched=40, embed_errors=2))
    progress.snapshot(2.0, replace(snap(1), embeds_fetched=5))
    assert (progress.fetched, progress.embeds_fetched) == (3, 45)
    progress.finished(CrawlSummary(1, 2, 3, 0, 1.0, 2.0, embeds_fetched=40))
    assert (progress.fetched, progress.embeds_fetched, progress.embed_errors) == (2, 40, 0)

    tail = LogTail(10)
    tail.extend(
        [
            PageFetched("http://cdn/a.js", "retry", 500, "unknown", 4, 1.0, "HTTP 500", "embed"),
            PageFetched(
                "http://cdn/b.pdf",
                "robots_denied",
                None,
                "unknown",
                0,
                0.0,
                "denied by robots.txt",
                "embed",
            ),
            PageFetched("http://cdn/c.png", "fetched", 200, "unknown", 9, 1.0, None, "embed"),
            LinkRejected("http://cdn/v.mp4", "http://a/", 0, "embed: no-video", 1),
            LinkRejected("http://a/logo.gif", "http://a/", 0, "no-binaries", 5),
            RoundFinished(1, "seg", 1, 0, 1, embeds_fetched=38, embed_errors=1),
        ]
    )
    assert tail.take() == [
        "embed error  http://cdn/a.js: HTTP 500",
        "embed denied  http://cdn/b.pdf: denied by robots.txt",
        "embed rejected  http://cdn/v.mp4 (embed rule no-video, line 1; embedded by http://a/)",
        "rejected  http://a/logo.gif (filter no-binaries, line 5; linked from http://a/)",
        "round 1 done: 1 page fetched, 0 errors, 38 embeds fetched (1 failed), 1 new URL "
        "(segment seg)",
    ]
