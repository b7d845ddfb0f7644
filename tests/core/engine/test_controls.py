"""Pause, resume and stop are thread-safe calls; progress arrives as event batches."""

from __future__ import annotations

import threading
from dataclasses import replace

from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import (
    Crawler,
    CrawlFinished,
    PageFetched,
    RoundStarted,
    StatsSnapshot,
    inject,
)
from recrawl.core.store.models import Page, Segment

from tests.support.crawling import fast_settings


def _site(server, n: int = 60) -> None:
    for i in range(n):
        server.html(f"/p{i}", "".join(f'<a href="/p{j}">{j}</a>' for j in range(n)))


class Recorder:
    """An observer that lets the test thread wait for conditions on the events."""

    def __init__(self) -> None:
        self.events: list = []
        self.cond = threading.Condition()

    def __call__(self, batch) -> None:
        with self.cond:
            self.events.extend(batch)
            self.cond.notify_all()

    def wait_for(self, predicate, timeout: float = 20.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: predicate(self.events), timeout)


def _start(project, recorder, **overrides) -> tuple[Crawler, threading.Thread, dict]:
    settings = fast_settings(event_interval=0.05, **overrides)
    crawler = Crawler(project, settings, observer=recorder)
    out: dict = {}
    thread = threading.Thread(target=lambda: out.setdefault("summary", crawler.run()))
    thread.start()
    return crawler, thread, out


def test_pause_holds_requests_and_resume_finishes(project, server):
    _site(server)
    server.latency = 0.01
    inject([server.url("/p0")], utcnow())
    recorder = Recorder()
    crawler, thread, out = _start(project, recorder)
    assert recorder.wait_for(lambda ev: sum(isinstance(e, PageFetched) for e in ev) >= 3)
    crawler.pause()
    assert recorder.wait_for(lambda ev: any(isinstance(e, StatsSnapshot) and e.paused for e in ev))
    settled = len(server.hits)
    # several more progress ticks pass while paused: no new request reaches the server
    seen = len(recorder.events)
    assert recorder.wait_for(lambda ev: sum(isinstance(e, StatsSnapshot) for e in ev[seen:]) >= 4)
    assert len(server.hits) == settled
    crawler.resume()
    thread.join(30)
    assert not thread.is_alive()
    assert out["summary"].fetched == 60
    assert isinstance(recorder.events[-1], CrawlFinished)
    assert any(isinstance(e, RoundStarted) for e in recorder.events)


def test_stop_ends_cleanly_and_keeps_the_rest_due(project, server):
    _site(server)
    server.latency = 0.01
    inject([server.url("/p0")], utcnow())
    recorder = Recorder()
    politeness = replace(fast_settings().politeness, concurrency=2, per_host=2)
    crawler, thread, out = _start(project, recorder, politeness=politeness)
    assert recorder.wait_for(lambda ev: sum(isinstance(e, PageFetched) for e in ev) >= 10)
    crawler.stop()
    thread.join(30)
    assert not thread.is_alive()
    summary = out["summary"]
    assert summary.stopped and 10 <= summary.fetched < 60
    assert all(s.state == "closed" for s in Segment.select())
    fetched = Page.select().where(Page.last_fetched.is_null(False)).count()
    assert fetched == summary.fetched
    assert store.count_due(utcnow()) == 60 - fetched
