"""Bad embeds (docs/design.md §14): bounded and recorded, never stopping the page.

A stylesheet importing itself or a loop of imports, thousands of imports, a 50 MB
stylesheet, malformed references, an embed host that hangs or bombs, a page of 100,000
images: each page is archived, its capture says what it got of its embeds and why the
rest is missing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from recrawl.core.engine import inject
from recrawl.core.store.models import Page, PageKind

from tests.support import httpserver
from tests.support.crawling import T0, clock_at, crawl
from tests.support.embedcrawls import capture_of, missing, quick
from tests.support.hostile import HostileServer
from tests.support.httpserver import Reply
from tests.support.warcs import records_for

pytestmark = pytest.mark.slow

CSS = {"Content-Type": "text/css"}


@pytest.fixture
def server() -> Iterator[httpserver.TestServer]:
    served = httpserver.TestServer().start()
    served.html("/robots.txt", "User-agent: *\nAllow: /\n")
    yield served
    served.stop()


def page_with(server: httpserver.TestServer, head: str = "", body: str = "") -> str:
    server.html("/", f"<html><head>{head}</head><body><p>page</p>{body}</body></html>")
    return server.url("/")


def test_imports_that_loop_are_each_fetched_once(project, server):
    server.routes["/self.css"] = Reply(200, b'@import "self.css"; a { color: red }', CSS)
    server.routes["/a.css"] = Reply(200, b'@import "b.css";', CSS)
    server.routes["/b.css"] = Reply(200, b'@import url(a.css); b { background: url("c.png") }', CSS)
    server.routes["/c.png"] = Reply(200, b"png", {"Content-Type": "image/png"})
    url = page_with(
        server, '<link rel=stylesheet href="self.css"><link rel=stylesheet href="a.css">'
    )
    inject([url], T0)
    crawl(project, quick(), clock=clock_at())
    for path in ("/self.css", "/a.css", "/b.css"):
        assert server.hits_for(path) == 1, path
    event = capture_of(url)
    # self.css, a.css, b.css (imports: part of the stylesheet that imports them), and
    # what b.css names (hop 2)
    assert event.embeds == 4 and event.embeds_missing_count == 0


def test_ten_thousand_imports_are_bounded_by_the_per_page_limit(project, server):
    imports = "".join(f'@import "s{i}.css";\n' for i in range(10_000)).encode()
    server.routes["/many.css"] = Reply(200, imports, CSS)
    for i in range(10_000):
        server.routes[f"/s{i}.css"] = Reply(200, b"p { color: blue }", CSS)
    url = page_with(server, '<link rel=stylesheet href="many.css">')
    inject([url], T0)
    summary = crawl(project, quick(max_embeds=40), clock=clock_at())
    # the page's capture takes 40 embeds in all: the stylesheet and 39 of its imports
    assert summary.embeds_fetched == 40
    event = capture_of(url)
    assert event.embeds == 40
    assert event.embeds_missing_count == 10_000 - 39
    stylesheet = capture_of(server.url("/many.css"))
    assert stylesheet.error is None or "embeds" not in stylesheet.error


def test_a_50_mb_stylesheet_is_archived_and_read_up_to_its_bound(project, server):
    body = b"a { background: url(one.png) }\n" + b"p { color: red }\n" * (50 * 1024 * 1024 // 17)
    server.routes["/big.css"] = Reply(200, body + b"q { background: url(never.png) }", CSS)
    server.routes["/one.png"] = Reply(200, b"one", {"Content-Type": "image/png"})
    url = page_with(server, '<link rel=stylesheet href="big.css">')
    inject([url], T0)
    crawl(project, quick(max_stylesheet_chars=1_000_000), clock=clock_at())
    event = capture_of(url)
    assert event.embeds == 2 and event.embeds_missing_count == 0  # never.png never read
    big = capture_of(server.url("/big.css"))
    assert "body cut" in big.error  # the crawl's body cap (10 MB)
    assert "1,000,000" in big.error  # and the stylesheet read up to its bound
    assert server.hits_for("/never.png") == 0


def test_malformed_references_are_missing_as_no_url_and_data_urls_are_skipped(project, server):
    server.routes["/ok.png"] = Reply(200, b"ok", {"Content-Type": "image/png"})
    url = page_with(
        server,
        "<style>a { background: url(  ) } b { background: url(ok.png }</style>",
        '<img src="http://[::1"><img srcset=",,, 2x, ,"><img src="data:image/png;base64,AA==">'
        '<img src="javascript:alert(1)"><img src="http://exa mple.com/x.png">'
        '<div style="background: url(\'unterminated)">x</div><img src="ok.png">',
    )
    inject([url], T0)
    summary = crawl(project, quick(), clock=clock_at())
    assert summary.fetched == 1 and summary.errors == 0
    event = capture_of(url)
    assert event.embeds >= 1
    reasons = missing(event)
    assert any(
        u.startswith("http://[::1") and r.startswith("not a URL") for u, r in reasons.items()
    )
    assert not any(u.startswith(("data:", "javascript:")) for u in reasons)
    assert records_for(project.path, server.url("/ok.png"), "response")


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    served = HostileServer()
    yield served
    served.stop()


def test_an_embed_host_that_hangs_or_bombs_costs_that_embed_only(project, server, hostile):
    hang, bomb = hostile.url("/hang/before-headers"), hostile.url("/bomb/gzip")
    url = page_with(server, body=f'<img src="{hang}"><img src="{bomb}"><img src="/fine.png">')
    server.routes["/fine.png"] = Reply(200, b"fine", {"Content-Type": "image/png"})
    inject([url], T0)
    summary = crawl(project, quick(), clock=clock_at())
    assert summary.fetched == 1
    event = capture_of(url)
    reasons = missing(event)
    assert set(reasons) == {hang}, reasons  # the bomb is archived, cut (as any fetch)
    assert "timed out" in reasons[hang] or "timeout" in reasons[hang].lower()
    assert event.embeds == 2
    assert "decompression bomb" in (capture_of(bomb).error or "")
    assert Page.get(Page.url == hang).kind == PageKind.EMBED


def test_a_page_of_100000_images_keeps_its_limit_with_a_note(project, server):
    images = "".join(f'<img src="/i/{i}.png">' for i in range(100_000))
    url = page_with(server, body=images)
    inject([url], T0)
    summary = crawl(project, quick(max_embeds=25), clock=clock_at())
    assert summary.fetched == 1 and summary.embeds_fetched == 25  # 404s all: fetched, missing
    event = capture_of(url)
    assert event.embeds == 0 and event.embeds_missing_count == 100_000
    assert len(event.embeds_missing) == 25  # the first ones listed: each a 404
    assert "99,975 embeds past the per-page limit (parse.max_embeds)" in event.error
    assert Page.select().where(Page.kind == PageKind.EMBED).count() == 25
