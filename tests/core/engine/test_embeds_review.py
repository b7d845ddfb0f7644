"""Review of step 13's embeds: reproductions of what went wrong, each on a real loopback
server and a real store."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from recrawl.core.engine import Crawler, inject
from recrawl.core.store.models import FetchEvent, Page, PageKind

from tests import httpserver
from tests.crawling import T0, clock_at, crawl, settings
from tests.httpserver import Reply

pytestmark = pytest.mark.slow


@pytest.fixture
def server() -> Iterator[httpserver.TestServer]:
    served = httpserver.TestServer().start()
    served.html("/robots.txt", "User-agent: *\nAllow: /\n")
    yield served
    served.stop()


def quick(**parse: object):
    base = settings(read_timeout=1.0, total_timeout=3.0)
    base = replace(base, sources=replace(base.sources, enabled=False))
    return replace(base, parse=replace(base.parse, **parse))


def capture_of(url: str) -> FetchEvent:
    page = Page.get(Page.url == url)
    return FetchEvent.select().where(FetchEvent.page == page).order_by(FetchEvent.id).first()


def test_an_embed_that_redirects_without_end_does_not_keep_the_round_running(project, server):
    """/r/N redirects to /r/N+1 forever: a page embedding /r/0 must still be done."""

    def endless(handler) -> Reply:
        n = int(re.match(r"/r/(\d+)", handler.path).group(1))
        return Reply(302, b"", {"Location": f"/r/{n + 1}"})

    for n in range(5000):
        server.routes[f"/r/{n}"] = endless
    server.html("/", '<html><body><p>page</p><img src="/r/0"></body></html>')
    inject([server.url("/")], T0)
    done = threading.Event()
    result: list[object] = []

    def run() -> None:
        result.append(crawl(project, quick(), clock=clock_at()))
        done.set()

    crawler_thread = threading.Thread(target=run, daemon=True)
    crawler_thread.start()
    finished = done.wait(30)
    hops = sum(1 for path, _ in server.hits if path.startswith("/r/"))
    assert finished, f"the round is still following the embed's redirects ({hops} so far)"
    assert hops <= 20, hops
    event = capture_of(server.url("/"))
    ((url, reason),) = event.embeds_missing
    assert url.startswith(server.url("/r/")) and "too many redirects" in reason
    assert event.embeds == 0 and event.embeds_missing_count == 1
