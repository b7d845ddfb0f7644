"""Real-world HTTP behaviour in a crawl: redirects, content codings, size caps, timeouts,
server errors, throttling, legacy charsets, malformed links and rel=nofollow."""

from __future__ import annotations

import functools
import gzip
import html as htmllib
import re
import threading
import time
import tracemalloc
import zlib
from datetime import timedelta
from urllib.parse import quote

import pytest
from recrawl.core.archive.segments import read_payload
from recrawl.core.engine import Crawler, LogMessage, RoundFinished, RoundStarted, inject
from recrawl.core.net.http import decode_body
from recrawl.core.store.models import Link, Page, PageStatus, RejectedLink

from tests.support.crawling import DAY, T0, Events, clock_at, crawl, events_of, page, settings
from tests.support.httpserver import Reply
from tests.support.warcs import records_for

MiB = 1024 * 1024
HTML = {"Content-Type": "text/html; charset=utf-8"}


# -- redirects -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (301, PageStatus.REDIRECT_PERM),
        (308, PageStatus.REDIRECT_PERM),
        (302, PageStatus.REDIRECT_TEMP),
        (303, PageStatus.REDIRECT_TEMP),
        (307, PageStatus.REDIRECT_TEMP),
    ],
)
def test_redirect_target_is_fetched_in_a_later_round(project, server, code, status):
    server.routes["/old"] = Reply(code, b"", {"Location": "/new", "Content-Type": "text/html"})
    server.html("/new", "<p>new home</p>")
    inject([server.url("/old")], T0)
    events = Events()
    summary = crawl(project, settings(), clock=clock_at(), observer=events)

    old, new = page(server.url("/old")), page(server.url("/new"))
    assert old.status == status
    assert new.status == PageStatus.FETCHED
    assert new.discovered_from == old.url
    assert new.depth == 1
    assert server.hits_for("/old") == 1 and server.hits_for("/new") == 1
    assert summary.rounds == 2
    round_of = {e.segment: e.round for e in events.of(RoundStarted)}
    assert round_of[old.segment] == 1 and round_of[new.segment] == 2
    (rec,) = records_for(project.path, old.url, "response")
    assert rec.http_status == code and rec.header("Location") == "/new"
    assert Link.select().where(Link.source == old.id, Link.target == new.id).count() == 1


def test_redirect_loop_terminates_with_each_url_fetched_once(project, server):
    server.routes["/a"] = Reply(301, b"", {"Location": "/b"})
    server.routes["/b"] = Reply(302, b"", {"Location": "/a"})
    server.routes["/self"] = Reply(301, b"", {"Location": server.url("/self")})
    inject([server.url("/a"), server.url("/self")], T0)
    summary = crawl(project, settings(), clock=clock_at())
    assert server.hits_for("/a") == 1
    assert server.hits_for("/b") == 1
    assert server.hits_for("/self") == 1
    assert summary.rounds == 2
    assert page(server.url("/a")).status == PageStatus.REDIRECT_PERM
    assert page(server.url("/b")).status == PageStatus.REDIRECT_TEMP
    assert page(server.url("/self")).status == PageStatus.REDIRECT_PERM


@pytest.mark.parametrize(
    "location",
    [
        "http://[bad",
        "http://exa mple.com/",
        "javascript:alert(1)",
        "mailto:webmaster@example.com",
        "ftp://example.com/file",
        "http://127.0.0.1:99999/",
        "http://x/" + "a" * 5000,
    ],
)
def test_redirect_to_malformed_location_does_not_crash(project, server, location):
    server.routes["/r"] = Reply(301, b"", {"Location": location})
    server.html("/other", "<p>other</p>")
    inject([server.url("/r"), server.url("/other")], T0)
    events = Events()
    summary = crawl(project, settings(), clock=clock_at(), observer=events)
    assert summary.fetched == 2
    assert page(server.url("/r")).status == PageStatus.REDIRECT_PERM
    assert page(server.url("/other")).status == PageStatus.FETCHED
    assert Page.select().count() == 2
    assert any("Location" in e.text for e in events.logs("warning"))


def test_redirect_to_empty_authority_is_a_self_redirect(project, server):
    # urljoin(page, "http://") is the page itself: nothing new to fetch, no crash
    server.routes["/r"] = Reply(301, b"", {"Location": "http://"})
    inject([server.url("/r")], T0)
    summary = crawl(project, settings(), clock=clock_at())
    assert summary.fetched == 1
    assert page(server.url("/r")).status == PageStatus.REDIRECT_PERM
    assert Page.select().count() == 1


# -- content codings -------------------------------------------------------------------


def _deflate(data: bytes, wbits: int) -> bytes:
    co = zlib.compressobj(6, zlib.DEFLATED, wbits)
    return co.compress(data) + co.flush()


@pytest.mark.parametrize(
    ("coding", "encode"),
    [
        ("gzip", lambda b: gzip.compress(b, mtime=0)),
        ("deflate", lambda b: _deflate(b, zlib.MAX_WBITS)),  # zlib-wrapped
        ("deflate", lambda b: _deflate(b, -zlib.MAX_WBITS)),  # raw, as IIS sends it
    ],
)
def test_compressed_page_is_archived_as_received_and_parsed(project, server, coding, encode):
    html = '<html><body><a href="/next">next</a>' + "<p>hello world</p>" * 200 + "</body></html>"
    encoded = encode(html.encode())
    server.routes["/"] = Reply(
        200, encoded, {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": coding}
    )
    server.html("/next", "<p>next</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())

    home = page(server.url("/"))
    assert home.status == PageStatus.FETCHED
    assert page(server.url("/next")).status == PageStatus.FETCHED
    assert page(server.url("/next")).discovered_from == home.url
    (rec,) = records_for(project.path, home.url, "response")
    assert rec.payload == encoded
    assert rec.header("Content-Encoding") == coding
    # `recrawl show`: the payload pointer gives the stored bytes, which decode to the page
    stored = read_payload(project.path, home.payload_file, home.payload_offset)
    assert stored.body == encoded
    assert decode_body(stored.body, coding, 10 * MiB) == (html.encode(), None)
    sent = dict(next(h for p, h in server.hits if p == "/"))
    assert coding in sent["Accept-Encoding"]


@functools.cache
def gzip_bomb(megabytes: int = 100) -> bytes:
    """``megabytes`` MiB of zeros, gzipped (about 100 KB), built without holding them."""
    co = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(MiB)
    parts = [co.compress(zeros) for _ in range(megabytes)]
    parts.append(co.flush())
    return b"".join(parts)


def test_gzip_bomb_is_capped(project, server):
    bomb = gzip_bomb()
    assert len(bomb) < 200_000
    server.routes["/bomb"] = Reply(
        200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip"}
    )
    server.html("/", '<a href="/bomb">b</a> <a href="/after">a</a>')
    server.html("/after", "<p>still crawling</p>")
    inject([server.url("/")], T0)

    tracemalloc.start()
    try:
        summary = crawl(project, settings(max_body_bytes=MiB), clock=clock_at())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert peak < 40 * MiB, f"peak Python memory {peak / MiB:.0f} MiB"
    assert summary.fetched == 3
    assert page(server.url("/after")).status == PageStatus.FETCHED
    bomb_page = page(server.url("/bomb"))
    (event,) = events_of(bomb_page.url)
    assert event.error and re.search(r"bomb|larger than", event.error), event.error
    (rec,) = records_for(project.path, bomb_page.url, "response")
    assert rec.payload == bomb  # archived as received
    assert "WARC-Truncated" not in rec.warc


# -- size caps -------------------------------------------------------------------------


@pytest.mark.parametrize("no_length", [False, True])
def test_oversized_body_is_truncated_and_crawl_continues(project, server, no_length):
    big = b'<html><body><a href="/inside">in</a>' + b"x" * (5 * MiB) + b"</body></html>"
    server.routes["/big"] = Reply(200, big, {"Content-Type": "text/html"}, no_length=no_length)
    server.html("/small", "<p>small</p>")
    server.html("/inside", "<p>inside</p>")
    inject([server.url("/big"), server.url("/small")], T0)
    summary = crawl(project, settings(max_body_bytes=MiB), clock=clock_at())

    assert summary.fetched == 3
    big_page = page(server.url("/big"))
    assert big_page.status == PageStatus.FETCHED
    assert page(server.url("/small")).status == PageStatus.FETCHED
    # links in the part that was kept are still followed
    assert page(server.url("/inside")).status == PageStatus.FETCHED
    (rec,) = records_for(project.path, big_page.url, "response")
    assert rec.warc.get("WARC-Truncated") == "length"
    assert rec.payload == big[:MiB]
    (event,) = events_of(big_page.url)
    assert event.error and re.search(r"cut|truncat", event.error), event.error


def test_body_without_content_length_is_read_to_close(project, server):
    body = b'<html><body><a href="/next">n</a>' + b"<p>para</p>" * 5000 + b"</body></html>"
    server.routes["/"] = Reply(200, body, {"Content-Type": "text/html"}, no_length=True)
    server.html("/next", "<p>next</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    home = page(server.url("/"))
    assert home.status == PageStatus.FETCHED
    assert page(server.url("/next")).status == PageStatus.FETCHED
    (rec,) = records_for(project.path, home.url, "response")
    assert rec.payload == body
    assert "WARC-Truncated" not in rec.warc
    (event,) = events_of(home.url)
    assert event.error is None and event.bytes == len(body)


def test_server_stalling_mid_body_keeps_what_arrived(project, server):
    head = b'<html><body><a href="/next">n</a><p>partial'

    def stall(handler):
        handler.wfile.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n" + head
        )
        handler.wfile.flush()
        server.closing.wait(60)
        return Reply(hang=True)

    server.routes["/"] = stall
    server.html("/next", "<p>next</p>")
    inject([server.url("/")], T0)
    started = time.monotonic()
    # the read timeout cuts the stalled body; the whole-fetch limit is far away, so a
    # generous bound tells them apart on a loaded machine too
    crawl(project, settings(read_timeout=0.3, total_timeout=60.0), clock=clock_at())
    assert time.monotonic() - started < 30.0
    home = page(server.url("/"))
    (rec,) = records_for(project.path, home.url, "response")
    assert rec.warc.get("WARC-Truncated") == "time"
    assert rec.payload == head
    assert page(server.url("/next")).status == PageStatus.FETCHED


# -- timeouts and server errors --------------------------------------------------------


def test_hanging_server_times_out_and_other_pages_are_fetched(project, server):
    server.routes["/slow"] = Reply(hang=True)
    server.html("/", '<a href="/slow">s</a> <a href="/fast">f</a>')
    server.html("/fast", "<p>fast</p>")
    inject([server.url("/")], T0)
    started = time.monotonic()
    summary = crawl(project, settings(read_timeout=0.3, total_timeout=60.0), clock=clock_at())

    assert time.monotonic() - started < 30.0  # the read timeout, not the 60 s limit
    assert page(server.url("/fast")).status == PageStatus.FETCHED
    slow = page(server.url("/slow"))
    assert slow.status == PageStatus.RETRY
    assert slow.retries == 1
    (event,) = events_of(slow.url)
    assert event.error and "timeout" in event.error.lower(), event.error
    assert event.http_status is None
    assert summary.errors == 1
    assert summary.fetched == 2  # the failed attempt is an error, not a page fetched
    assert records_for(project.path, slow.url) == []


def test_pages_fetched_and_errors_are_separate_counts(project, server):
    # fetched: answers recorded as the page's state (200, 404, redirect); errors: attempts
    # to try again (5xx, 429/503 not retried in the round, no response)
    server.routes["/err"] = Reply(500, b"<h1>down</h1>")
    server.routes["/busy"] = Reply(503, b"", {"Retry-After": "0"})
    server.routes["/moved"] = Reply(301, b"", {"Location": "/"})
    server.html("/", "<p>home</p>")
    inject([server.url(p) for p in ("/", "/err", "/missing", "/moved", "/busy")], T0)
    events = Events()
    no_retry = settings(rounds=1, politeness={"inround_retries": 0})
    summary = crawl(project, no_retry, clock=clock_at(), observer=events)

    assert (summary.fetched, summary.errors) == (3, 2)
    (finished,) = events.of(RoundFinished)
    assert (finished.fetched, finished.errors) == (3, 2)
    assert page(server.url("/missing")).status == PageStatus.GONE
    assert page(server.url("/busy")).status == PageStatus.RETRY


def test_5xx_is_retried_daily_then_gone(project, server):
    server.routes["/err"] = Reply(500, b"<h1>Internal Server Error</h1>")
    inject([server.url("/err")], T0)

    crawl(project, settings(), clock=clock_at())
    err = page(server.url("/err"))
    assert err.status == PageStatus.RETRY
    assert err.retries == 1
    assert abs(err.next_fetch - (err.last_fetched + DAY)) < timedelta(seconds=5)
    (event,) = events_of(err.url)
    assert event.http_status == 500 and event.error and "500" in event.error

    crawl(project, settings(), clock=clock_at(2 * DAY))
    err = page(server.url("/err"))
    assert (err.status, err.retries) == (PageStatus.RETRY, 2)

    crawl(project, settings(), clock=clock_at(4 * DAY))
    err = page(server.url("/err"))
    assert err.status == PageStatus.GONE
    assert err.retries == 3
    assert err.next_fetch > T0 + 5 * DAY
    assert server.hits_for("/err") == 3
    assert len(events_of(err.url)) == 3


def test_retry_counter_resets_after_a_success(project, server):
    server.routes["/flaky"] = Reply(502, b"bad gateway")
    inject([server.url("/flaky")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/flaky")).retries == 1
    server.html("/flaky", "<p>back</p>")
    crawl(project, settings(), clock=clock_at(2 * DAY))
    flaky = page(server.url("/flaky"))
    assert (flaky.status, flaky.retries) == (PageStatus.FETCHED, 0)


def _first_then_ok(status: int, headers: dict[str, str]):
    calls: list[int] = []

    def route(handler):
        calls.append(1)
        if len(calls) == 1:
            return Reply(status, b"slow down", {"Content-Type": "text/plain", **headers})
        return Reply(200, b"<p>ok now</p>", {"Content-Type": "text/html"})

    return route


@pytest.mark.parametrize("status", [429, 503])
def test_throttled_with_retry_after_zero_is_retried_in_the_same_round(project, server, status):
    server.routes["/t"] = _first_then_ok(status, {"Retry-After": "0"})
    inject([server.url("/t")], T0)
    events = Events()
    summary = crawl(project, settings(), clock=clock_at(), observer=events)

    assert server.hits_for("/t") == 2
    assert summary.rounds == 1
    t = page(server.url("/t"))
    assert (t.status, t.retries) == (PageStatus.FETCHED, 0)
    assert [e.http_status for e in events_of(t.url)] == [200]
    assert any("retrying" in e.text for e in events.of(LogMessage))


def test_throttled_without_retry_after_backs_off_then_retries(project, server):
    server.routes["/t"] = _first_then_ok(429, {})
    inject([server.url("/t")], T0)
    started = time.monotonic()
    crawl(project, settings(politeness={"backoff": 0.3}), clock=clock_at())
    assert server.hits_for("/t") == 2
    assert time.monotonic() - started >= 0.3
    assert page(server.url("/t")).status == PageStatus.FETCHED


def test_throttled_for_good_gives_up_after_in_round_retries(project, server):
    server.routes["/t"] = Reply(503, b"busy", {"Retry-After": "0", "Content-Type": "text/plain"})
    inject([server.url("/t")], T0)
    crawl(project, settings(), clock=clock_at())
    assert server.hits_for("/t") == 3  # first try + inround_retries (2)
    t = page(server.url("/t"))
    assert (t.status, t.retries) == (PageStatus.RETRY, 1)
    assert timedelta(hours=23) < t.next_fetch - T0 < timedelta(hours=25)


def test_long_retry_after_does_not_block_the_crawl(project, server):
    """A Retry-After beyond max_retry_after gives up on the URL for this round
    (config.PolitenessSettings); it must not park the host's other pages, and so the
    whole round, for a day."""
    server.routes["/later"] = Reply(
        429, b"busy", {"Retry-After": "86400", "Content-Type": "text/plain"}
    )
    server.html("/other", "<p>other</p>")
    # one connection per host: /later (injected first, lower id) is fetched first
    inject([server.url("/later")], T0)
    inject([server.url("/other")], T0)
    crawler = Crawler(
        project, settings(politeness={"per_host": 1, "concurrency": 1}), clock=clock_at()
    )
    done = threading.Event()
    box: list[object] = []

    def run() -> None:
        try:
            box.append(crawler.run())
        except BaseException as exc:
            box.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    finished_in_time = done.wait(8)  # far less than the day it would otherwise wait
    if not finished_in_time:
        crawler.stop()
        done.wait(10)
    thread.join(10)
    assert finished_in_time, "the crawl waited out a day-long Retry-After"
    assert not isinstance(box[0], BaseException), box[0]
    assert server.hits_for("/later") == 1
    later = page(server.url("/later"))
    assert (later.status, later.retries) == (PageStatus.RETRY, 1)


# -- charsets --------------------------------------------------------------------------


def test_windows_1252_links_become_utf8_percent_encoded(project, server):
    body = '<html><body><a href="/café">c</a> <a href="/naïve/€uro">e</a></body></html>'
    server.routes["/"] = Reply(
        200, body.encode("windows-1252"), {"Content-Type": "text/html; charset=windows-1252"}
    )
    targets = ["/caf%C3%A9", "/na%C3%AFve/%E2%82%ACuro"]
    for path in targets:
        server.html(path, "<p>ok</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    for path in targets:
        assert page(server.url(path)).status == PageStatus.FETCHED
        assert server.hits_for(path) == 1
    assert Page.select().count() == 3


@pytest.mark.parametrize(
    "meta",
    [
        '<meta charset="shift_jis">',
        '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">',
    ],
)
def test_shift_jis_declared_only_in_meta(project, server, meta):
    path = "/日本語/ページ"
    body = f'<html><head>{meta}<title>日本</title></head><body><a href="{path}">リンク</a></body></html>'
    server.routes["/"] = Reply(200, body.encode("shift_jis"), {"Content-Type": "text/html"})
    target = quote(path)
    assert target == "/%E6%97%A5%E6%9C%AC%E8%AA%9E/%E3%83%9A%E3%83%BC%E3%82%B8"
    server.html(target, "<p>ok</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url(target)).status == PageStatus.FETCHED
    assert server.hits_for(target) == 1
    assert Page.select().count() == 2


# -- malformed links and nofollow ------------------------------------------------------

MALFORMED = [
    "http://[bad",
    "http://exa mple.com/",
    "javascript:",
    "javascript:void(0)",
    "",
    "   ",
    "http://",
    "http://127.0.0.1:99999/",
    "/" + "a" * 20_000,
    "mailto:someone@example.com",
    "data:text/html,<b>hi</b>",
    "#top",
    "http://a..b/",
]


def test_malformed_hrefs_are_ignored(project, server):
    links = "".join(f'<a href="{htmllib.escape(h)}">x</a>\n' for h in MALFORMED)
    server.html(
        "/",
        f'<html><head><base href="http://[bad"></head><body>{links}'
        '<a>no href</a><a href="/ok">ok</a><area href="http://[::1">'
        '<iframe src="http://exa mple.com"></iframe></body></html>',
    )
    server.html("/ok", "<p>ok</p>")
    inject([server.url("/")], T0)
    summary = crawl(project, settings(), clock=clock_at())
    assert summary.fetched == 2
    assert {p.url for p in Page.select()} == {server.url("/"), server.url("/ok")}
    assert page(server.url("/ok")).status == PageStatus.FETCHED


def test_malformed_hrefs_are_recorded_as_rejected_links_with_their_reason(project, server):
    hrefs = [
        "http://[::1",
        "http://[::1]:99999/",
        "http://127.0.0.1:99999/",
        "http://exa mple.com/",
        "http://a..b/",
        "http://xn--zz.example/",  # punycode that decodes to nothing
        "http://%zz/",
        "ftp://files.example/x",
        "/long/" + "a" * 10_000,
        "http://bücher.example/",  # a good IDN: out of scope, as any other host
    ]
    links = "".join(f'<a href="{htmllib.escape(h)}">x</a>\n' for h in hrefs)
    server.html("/", f"<html><body>{links}</body></html>")
    inject([server.url("/")], T0)
    crawl(project, settings(rounds=1), clock=clock_at())

    recorded = {link.url: link for link in RejectedLink.select()}
    reasons = {url: recorded[url].filter for url in recorded}
    assert reasons == {
        "http://[::1": "invalid link: malformed URL: Invalid IPv6 URL",
        "http://[::1]:99999/": "invalid link: malformed URL: Port out of range 0-65535",
        "http://127.0.0.1:99999/": "invalid link: malformed URL: Port out of range 0-65535",
        "http://exa mple.com/": "invalid link: malformed host",
        "http://a..b/": "invalid link: malformed host",
        "http://xn--zz.example/": "invalid link: malformed IDN host",
        "http://%zz/": "invalid link: malformed host",
        "ftp://files.example/x": "invalid link: not an http(s) URL",
        server.url("/long/" + "a" * (2000 - len(server.url("/long/"))))
        + f"… (cut: {len(server.url('/long/')) + 10_000:,} characters)": (
            "invalid link: URL longer than 4096 characters"
        ),
        "http://xn--bcher-kva.example/": "scope",
    }
    assert all(link.line is None for link in recorded.values())


def test_a_page_of_many_malformed_links_records_the_first_hundred(project, server):
    links = "".join(f'<a href="http://[::{i}">x</a>' for i in range(250))
    server.html("/", f"<html><body>{links}</body></html>")
    inject([server.url("/")], T0)
    events = Events()
    crawl(project, settings(rounds=1), clock=clock_at(), observer=events)

    assert RejectedLink.select().count() == 100
    assert any(
        "250 links are no URL to fetch; the first 100 distinct ones are recorded" in log.text
        for log in events.logs("warning")
    )


def test_nofollow_links_are_not_followed_by_default(project, server):
    server.html(
        "/",
        '<a href="/f">f</a> <a rel="nofollow" href="/nf">nf</a> '
        '<a rel="noopener NoFollow" href="/nf2">nf2</a>',
    )
    server.html("/meta", '<meta name="robots" content="noindex, nofollow"><a href="/m">m</a>')
    for path in ("/f", "/nf", "/nf2", "/m"):
        server.html(path, "<p>x</p>")
    inject([server.url("/"), server.url("/meta")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/f")).status == PageStatus.FETCHED
    for path in ("/nf", "/nf2", "/m"):
        assert server.hits_for(path) == 0
        assert Page.get_or_none(Page.url == server.url(path)) is None


def test_nofollow_links_followed_when_asked(project, server):
    server.html("/", '<a rel="nofollow" href="/nf">nf</a>')
    server.html("/nf", "<p>x</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(follow_nofollow=True), clock=clock_at())
    assert page(server.url("/nf")).status == PageStatus.FETCHED


def test_link_marked_nofollow_once_is_still_followed_through_a_plain_link(project, server):
    # a page often links the same URL twice, once with rel=nofollow (e.g. a footer)
    server.html("/", '<a rel="nofollow" href="/x">login</a> <p>...</p> <a href="/x">x</a>')
    server.html("/x", "<p>x</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/x")).status == PageStatus.FETCHED
    assert server.hits_for("/x") == 1


def test_a_long_retry_after_sets_the_next_try(project, server):
    """Past the round's patience, the page comes back when the server said, not in a day."""
    server.routes["/later"] = Reply(
        503, b"maintenance", {"Retry-After": "172800", "Content-Type": "text/plain"}
    )
    inject([server.url("/later")], T0)
    crawl(project, settings(), clock=clock_at())
    later = page(server.url("/later"))
    assert (later.status, later.retries) == (PageStatus.RETRY, 1)
    assert timedelta(hours=47) < later.next_fetch - T0 < timedelta(hours=49)
