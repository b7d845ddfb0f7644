"""A crawl that holds connect failures (the watcher's) tells "offline" from "this host is
down" (engine/offline.py): a round no host answered records nothing; once one answers,
the failures of the others are recorded as always."""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest
from recrawl.core.clock import utcnow
from recrawl.core.engine import Crawler, inject
from recrawl.core.store.models import PageStatus

from tests.support.crawling import Events, events_of, fast_settings, page


@pytest.fixture
def dead_port() -> int:
    """A port on 127.0.0.1 nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("robots", [True, False], ids=["robots", "no-robots"])
def test_a_round_no_host_answered_records_nothing(project, dead_port, robots):
    urls = [f"http://127.0.0.1:{dead_port}/{name}" for name in ("a", "b", "c")]
    inject(urls, utcnow())
    before = {url: (page(url).next_fetch, page(url).fetch_interval) for url in urls}
    events = Events()
    settings = fast_settings()
    politeness = replace(settings.politeness, obey_robots=robots, per_host=1)
    settings = replace(settings, politeness=politeness)
    crawler = Crawler(project, settings, observer=events, offline_rounds=True)
    summary = crawler.run()
    assert crawler.offline
    assert summary.rounds == 1 and summary.fetched == 0
    # one attempt for the host, not one per page: the others were not tried
    assert summary.errors == 1
    for url in urls:
        row = page(url)
        assert row.status == PageStatus.UNFETCHED and row.retries == 0
        assert (row.next_fetch, row.fetch_interval) == before[url]  # still due, as it was
        assert events_of(url) == []
    assert any("offline?" in log.text for log in events.logs())


def test_once_a_host_answers_the_unreachable_ones_are_down(project, server, dead_port):
    server.html("/", "<p>up</p>")
    up = server.url("/").replace("127.0.0.1", "localhost")  # another host than the dead one
    down = f"http://127.0.0.1:{dead_port}/x"
    inject([up, down], utcnow())
    crawler = Crawler(project, fast_settings(), offline_rounds=True)
    summary = crawler.run()
    assert not crawler.offline
    assert summary.fetched == 1 and summary.errors == 1
    assert page(up).status == PageStatus.FETCHED
    failed = page(down)
    assert failed.status == PageStatus.RETRY and failed.retries == 1
    (event,) = events_of(down)
    assert event.error and "robots.txt unreachable" in event.error


def test_a_plain_crawl_records_every_failure_as_before(project, dead_port):
    url = f"http://127.0.0.1:{dead_port}/a"
    inject([url], utcnow())
    crawler = Crawler(project, fast_settings())
    summary = crawler.run()
    assert not crawler.offline and summary.errors == 1
    assert page(url).status == PageStatus.RETRY and len(events_of(url)) == 1
