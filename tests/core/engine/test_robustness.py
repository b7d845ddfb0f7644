"""Absurd server input costs a page at most, never the crawl; politeness spans rounds."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from recrawl.core.archive.segments import read_payload
from recrawl.core.clock import utcnow
from recrawl.core.config import FetchSettings, PolitenessSettings
from recrawl.core.engine import inject
from recrawl.core.store.models import FetchEvent, Page, PageStatus

from tests.support.crawling import crawl, fast_settings
from tests.support.httpserver import Reply


def _page(url: str) -> Page:
    return Page.get(Page.url == url)


def test_absurd_dates_and_retry_after_do_not_crash_the_crawl(project, server):
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>')
    server.html("/a", "<p>a</p>", **{"Last-Modified": "Fri, 31 Dec 9999 23:59:59 -1200"})
    server.routes["/b"] = Reply(429, b"", {"Retry-After": "\u00b2"})
    server.routes["/c"] = Reply(503, b"", {"Retry-After": "1000000000000"})
    inject([server.url("/")], utcnow())
    politeness = replace(fast_settings().politeness, backoff=0.05, per_host=1)
    summary = crawl(project, fast_settings(politeness=politeness))
    assert summary.rounds == 2 and not summary.stopped
    assert _page(server.url("/a")).status == PageStatus.FETCHED
    assert _page(server.url("/a")).server_last_modified is None
    # /c's absurd Retry-After, capped at a week (politeness.retry_after_cap), puts the
    # host's remaining pages off for that week: not for ever, and not the crawl
    assert _page(server.url("/c")).status == PageStatus.RETRY
    for path in ("/b", "/c"):
        put_off = _page(server.url(path)).next_fetch - utcnow()
        assert timedelta(days=6) < put_off <= timedelta(days=7), (path, put_off)


def test_politeness_delay_holds_across_rounds(project, server):
    server.html("/", '<a href="/next">next</a>')
    server.html("/next", "<p>deeper: fetched in the next round</p>")
    server.routes["/robots.txt"] = Reply(200, b"User-agent: *\nCrawl-delay: 1\n", {})
    inject([server.url("/")], utcnow())
    politeness = replace(PolitenessSettings(), delay=0.3, jitter=0.0, per_host=1)
    summary = crawl(project, fast_settings(politeness=politeness))
    assert summary.rounds == 2
    (first,), (second,) = server.times_for("/"), server.times_for("/next")
    # the Crawl-delay of round 1's host still holds for its first request in round 2
    assert second - first >= 1.0


def test_304_after_a_404_never_points_at_the_error_page(project, server):
    from recrawl.core.clock import Clock, parse_iso

    state = {"n": 0}

    def route(handler):
        state["n"] += 1
        if state["n"] == 1:
            return Reply(200, b"<p>first</p>", {"ETag": '"A"', "Content-Type": "text/html"})
        if state["n"] == 2:
            return Reply(404, b"<p>not here</p>", {"Content-Type": "text/html"})
        if handler.headers.get("If-None-Match") == '"A"':
            return Reply(304, b"", {"ETag": '"A"'})
        return Reply(200, b"<p>back</p>", {"Content-Type": "text/html"})

    server.routes["/p"] = route
    inject([server.url("/p")], utcnow())
    for month in ("2027-01-01", "2027-06-01", "2028-06-01"):
        crawl(project, clock=Clock(parse_iso(f"{month}T00:00:00Z")))
    page = _page(server.url("/p"))
    assert page.status == PageStatus.FETCHED
    assert read_payload(project.path, page.payload_file, page.payload_offset).body == b"<p>back</p>"


def test_non_ascii_etag_is_sent_back_as_received(project, server):
    from recrawl.core.clock import Clock, parse_iso

    server.routes["/e"] = Reply(
        200, b"<p>e</p>", {"ETag": '"caf\u00e9"', "Content-Type": "text/html"}
    )
    inject([server.url("/e")], utcnow())
    crawl(project, clock=Clock(parse_iso("2027-01-01T00:00:00Z")))
    crawl(project, clock=Clock(parse_iso("2027-06-01T00:00:00Z")))
    assert server.hits_for("/e") == 2
    assert server.hits[-1][1].get("If-None-Match") == '"caf\u00e9"'
    assert _page(server.url("/e")).status == PageStatus.FETCHED


def test_total_timeout_keeps_the_part_that_arrived(project, server):
    server.routes["/slow"] = Reply(200, b"<p>" + b"x" * 60_000 + b"</p>", trickle=0.05)
    inject([server.url("/slow")], utcnow())
    fetch = replace(FetchSettings(), read_timeout=2.0, total_timeout=0.5)
    crawl(project, fast_settings(fetch=fetch))
    page = _page(server.url("/slow"))
    assert page.status == PageStatus.FETCHED
    record = read_payload(project.path, page.payload_file, page.payload_offset)
    assert record.warc_headers.get("WARC-Truncated") == "time"
    assert 0 < len(record.body) < 60_000
    event = FetchEvent.get(FetchEvent.page == page)
    assert "cut" in event.error


def test_robots_groups_match_the_product_token_only(project, server):
    # "github" appears in Recrawl's User-Agent (its contact URL) but is not its name
    server.routes["/robots.txt"] = Reply(
        200, b"User-agent: github\nDisallow: /\n\nUser-agent: *\nAllow: /\n", {}
    )
    server.html("/ok", "<p>ok</p>")
    inject([server.url("/ok")], utcnow())
    crawl(project, fast_settings())
    assert _page(server.url("/ok")).status == PageStatus.FETCHED


def test_non_ascii_response_headers_are_archived_byte_for_byte(project, server):
    import subprocess
    import sys
    from pathlib import Path

    server.routes["/h"] = Reply(
        200,
        b"<p>h</p>",
        {
            "Content-Type": "text/html",
            "ETag": '"caf\u00e9"',
            "Content-Disposition": 'inline; filename="r\u00e9sum\u00e9.html"',
        },
    )
    inject([server.url("/h")], utcnow())
    crawl(project)
    page = _page(server.url("/h"))
    (warc,) = list((project.path / "segments").glob("*/*.warc.gz"))
    import gzip

    data = gzip.decompress(warc.read_bytes())
    # http.server sends header text as latin-1: those very bytes are in the WARC
    assert b'ETag: "caf\xe9"\r\n' in data
    assert b'filename="r\xe9sum\xe9.html"' in data
    assert b"%E9" not in data and b"UTF-8''" not in data
    record = read_payload(project.path, page.payload_file, page.payload_offset)
    assert record.body == b"<p>h</p>"
    exe = Path(sys.executable).parent / "warcio"
    for tool in ("check", "index"):
        done = subprocess.run([str(exe), tool, str(warc)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
