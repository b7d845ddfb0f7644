"""robots.txt handling (docs/design.md §3, RFC 9309) against a real HTTP server."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from recrawl.core.config import FetchSettings, PolitenessSettings
from recrawl.core.engine import inject
from recrawl.core.engine.robots_gate import robots_agent
from recrawl.core.net.politeness import HostSlot
from recrawl.core.net.robots import policy_from
from recrawl.core.policy.refetch import refetch
from recrawl.core.store.models import PageStatus, Robots

from tests.support.crawling import DAY, T0, Events, clock_at, crawl, events_of, page, settings
from tests.support.httpserver import Reply
from tests.support.warcs import records_for

UA = FetchSettings().user_agent


def serve_robots(server, text: str, status: int = 200, ctype: str = "text/plain") -> None:
    server.routes["/robots.txt"] = Reply(status, text.encode("utf-8"), {"Content-Type": ctype})


def site(server) -> None:
    server.html("/", '<a href="/private/x">p</a> <a href="/public">q</a>')
    server.html("/private/x", "<p>secret</p>")
    server.html("/public", "<p>public</p>")


def test_disallowed_path_is_denied_and_never_requested(project, server):
    serve_robots(server, "User-agent: *\nDisallow: /private\n")
    site(server)
    inject([server.url("/")], T0)
    summary = crawl(project, settings(), clock=clock_at())

    denied = page(server.url("/private/x"))
    assert denied.status == PageStatus.ROBOTS_DENIED
    assert server.hits_for("/private/x") == 0
    assert records_for(project.path, denied.url) == []
    assert [e.error for e in events_of(denied.url)] == ["denied by robots.txt"]
    assert page(server.url("/public")).status == PageStatus.FETCHED
    assert page(server.url("/")).status == PageStatus.FETCHED
    assert server.hits_for("/robots.txt") == 1
    assert summary.fetched == 2


def test_group_naming_our_product_token_applies(project, server):
    serve_robots(
        server,
        "User-agent: *\nAllow: /\n\nUser-agent: recrawl\nDisallow: /private\n",
    )
    site(server)
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/private/x")).status == PageStatus.ROBOTS_DENIED
    assert server.hits_for("/private/x") == 0
    assert page(server.url("/public")).status == PageStatus.FETCHED


def test_disallowed_seed_is_not_requested(project, server):
    serve_robots(server, "User-agent: *\nDisallow: /\n")
    site(server)
    inject([server.url("/")], T0)
    summary = crawl(project, settings(), clock=clock_at())
    assert page(server.url("/")).status == PageStatus.ROBOTS_DENIED
    assert [path for path, _ in server.hits] == ["/robots.txt"]
    assert summary.fetched == 0


@pytest.mark.parametrize("status", [500, 503])
def test_5xx_robots_requests_nothing_and_retries_its_pages_in_a_day(project, server, status):
    serve_robots(server, "oops", status=status)
    site(server)
    inject([server.url("/"), server.url("/public")], T0)
    events = Events()
    summary = crawl(project, settings(), clock=clock_at(), observer=events)

    for path in ("/", "/public"):
        p = page(server.url(path))
        # RFC 9309 §2.3.1.4: assume disallow while robots.txt is unavailable; but the
        # site asked for nothing: the page is a failed attempt, tried again in a day
        assert p.status == PageStatus.RETRY and p.retries == 1
        assert server.hits_for(path) == 0
        assert timedelta(hours=23) < p.next_fetch - T0 < timedelta(hours=25)
        assert p.last_fetched is None
        assert [e.error for e in events_of(p.url)] == [f"robots.txt answered HTTP {status}"]
    assert (summary.errors, summary.fetched) == (2, 0)
    (warning,) = [e.text for e in events.logs("warning") if "robots.txt" in e.text]
    assert f"HTTP {status}" in warning and "retried later" in warning


def test_hanging_robots_is_a_named_timeout_on_each_page(project, server):
    server.routes["/robots.txt"] = Reply(hang=True)
    site(server)
    inject([server.url("/")], T0)
    events = Events()
    started = time.monotonic()
    crawl(
        project, settings(read_timeout=0.3, total_timeout=60.0), clock=clock_at(), observer=events
    )

    assert time.monotonic() - started < 30.0  # the read timeout, not the 60 s limit
    home = page(server.url("/"))
    assert home.status == PageStatus.RETRY
    assert server.hits_for("/") == 0
    (event,) = events_of(home.url)
    assert event.error.startswith("robots.txt unreachable (timeout"), event.error
    assert any("robots.txt unreachable" in e.text for e in events.logs("warning"))
    entry = Robots.get(Robots.origin == server.origin)
    assert entry.error is not None and entry.http_status is None


def test_a_server_that_is_down_is_an_error_not_a_robots_denial(project, server, closed_port):
    dead = f"http://127.0.0.1:{closed_port}"
    site(server)
    inject([dead + "/", server.url("/public")], T0)
    events = Events()
    summary = crawl(project, settings(), clock=clock_at(), observer=events)

    down = page(dead + "/")
    assert (down.status, down.retries) == (PageStatus.RETRY, 1)
    (event,) = events_of(down.url)
    assert event.error.startswith("robots.txt unreachable (ConnectError"), event.error
    assert timedelta(hours=23) < down.next_fetch - T0 < timedelta(hours=25)
    assert (summary.errors, summary.fetched) == (1, 1)
    assert page(server.url("/public")).status == PageStatus.FETCHED  # that origin only
    (fetched,) = events.fetched(down.url)
    assert fetched.status == PageStatus.RETRY and fetched.error == event.error


def test_a_server_down_for_good_makes_its_pages_gone_like_failed_fetches(project, closed_port):
    dead = f"http://127.0.0.1:{closed_port}/"
    inject([dead], T0)
    for day in range(3):
        crawl(project, settings(), clock=clock_at(day * 2 * DAY))
    down = page(dead)
    assert (down.status, down.retries) == (PageStatus.GONE, 3)
    assert len(events_of(dead)) == 3


@pytest.mark.parametrize("ctype", ["text/html; charset=utf-8", "text/plain"])
def test_html_robots_without_rules_allows_everything_and_says_so(project, server, ctype):
    serve_robots(
        server,
        "<!DOCTYPE html>\n<html><head><title>Welcome to our shop</title></head>\n"
        "<body><h1>Page moved</h1>\n<p>Try the <a href='/'>home page</a>.</p>\n</body></html>\n",
        ctype=ctype,
    )
    site(server)
    inject([server.url("/")], T0)
    events = Events()
    crawl(project, settings(), clock=clock_at(), observer=events)

    assert page(server.url("/private/x")).status == PageStatus.FETCHED
    assert server.hits_for("/private/x") == 1
    (warning,) = [e.text for e in events.logs("warning")]
    assert "HTML page without robots rules: allow all" in warning


@pytest.mark.parametrize("ctype", ["text/html; charset=utf-8", "text/plain"])
def test_html_robots_with_rules_applies_them_and_says_so(project, server, ctype):
    # a CMS that wraps robots.txt in its page template: the rules still mean something
    serve_robots(
        server,
        "<!DOCTYPE html>\n<html><body><pre>\nUser-agent: *\nDisallow: /private\n"
        "</pre></body></html>\n",
        ctype=ctype,
    )
    site(server)
    inject([server.url("/")], T0)
    events = Events()
    crawl(project, settings(), clock=clock_at(), observer=events)

    assert page(server.url("/private/x")).status == PageStatus.ROBOTS_DENIED
    assert server.hits_for("/private/x") == 0
    assert page(server.url("/public")).status == PageStatus.FETCHED
    (warning,) = [e.text for e in events.logs("warning")]
    assert "HTML page: its tags are ignored and the rules in it apply" in warning


def test_plain_robots_labelled_html_is_read_as_rules():
    policy = policy_from(200, "User-agent: *\nDisallow: /private\n", None)
    assert policy.mode == "rules" and policy.note is None
    assert not policy.allowed("http://h/private/x", "recrawl")


def test_html_robots_with_rules_on_the_tag_lines():
    html = "<html><body><pre>User-agent: *\nDisallow: /p</pre></body></html>"
    policy = policy_from(200, html, None)
    assert not policy.allowed("http://h/p", "recrawl") and policy.allowed("http://h/q", "recrawl")


@pytest.mark.parametrize("status", [404, 403, 410])
def test_4xx_robots_allows_everything(project, server, status):
    if status != 404:
        serve_robots(server, "User-agent: *\nDisallow: /\n", status=status)
    site(server)
    inject([server.url("/")], T0)
    summary = crawl(project, settings(), clock=clock_at())
    assert summary.fetched == 3
    assert {p: page(server.url(p)).status for p in ("/", "/public", "/private/x")} == {
        "/": PageStatus.FETCHED,
        "/public": PageStatus.FETCHED,
        "/private/x": PageStatus.FETCHED,
    }


def test_robots_is_cached_for_24_hours(project, server):
    serve_robots(server, "User-agent: *\nDisallow: /private\n")
    site(server)
    server.html("/two", "<p>two</p>")
    server.html("/three", "<p>three</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert server.hits_for("/robots.txt") == 1

    # the rules change on the server; within 24 h the cached rules still apply
    serve_robots(server, "User-agent: *\nDisallow: /two\nDisallow: /three\n")
    inject([server.url("/two")], T0 + timedelta(hours=12))
    crawl(project, settings(), clock=clock_at(timedelta(hours=12)))
    assert server.hits_for("/robots.txt") == 1
    assert page(server.url("/two")).status == PageStatus.FETCHED
    assert server.hits_for("/two") == 1

    # after 24 h robots.txt is fetched again and its new rules apply
    inject([server.url("/three")], T0 + timedelta(hours=25))
    crawl(project, settings(), clock=clock_at(timedelta(hours=25)))
    assert server.hits_for("/robots.txt") == 2
    assert page(server.url("/three")).status == PageStatus.ROBOTS_DENIED
    assert server.hits_for("/three") == 0
    entry = Robots.get(Robots.origin == server.origin)
    assert entry.fetched_at >= T0 + timedelta(hours=25)


def test_failed_robots_is_retried_sooner_than_a_day(project, server):
    serve_robots(server, "down", status=500)
    site(server)
    inject([server.url("/public")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/public")).status == PageStatus.RETRY

    serve_robots(server, "User-agent: *\nDisallow: /private\n")
    refetch(T0 + timedelta(hours=2), urls=[server.url("/public")])  # a known page: due now
    crawl(project, settings(), clock=clock_at(timedelta(hours=2)))
    assert server.hits_for("/robots.txt") == 2
    assert page(server.url("/public")).status == PageStatus.FETCHED
    assert server.hits_for("/public") == 1


def test_ignore_robots(project, server):
    serve_robots(server, "User-agent: *\nDisallow: /\n")
    site(server)
    inject([server.url("/")], T0)
    summary = crawl(project, settings(politeness={"obey_robots": False}), clock=clock_at())
    assert summary.fetched == 3
    assert server.hits_for("/robots.txt") == 0
    assert page(server.url("/private/x")).status == PageStatus.FETCHED


def test_robots_with_utf8_bom_is_obeyed(project, server):
    # Notepad and many CMSes save robots.txt with a byte order mark; the rules still count
    server.routes["/robots.txt"] = Reply(
        200, b"\xef\xbb\xbfUser-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"}
    )
    site(server)
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/private/x")).status == PageStatus.ROBOTS_DENIED
    assert server.hits_for("/private/x") == 0


def test_robots_redirect_is_followed(project, server):
    server.routes["/robots.txt"] = Reply(301, b"", {"Location": "/static/robots.txt"})
    server.routes["/static/robots.txt"] = Reply(
        200, b"User-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"}
    )
    site(server)
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert server.hits_for("/static/robots.txt") == 1
    assert page(server.url("/private/x")).status == PageStatus.ROBOTS_DENIED
    assert page(server.url("/public")).status == PageStatus.FETCHED


def test_robots_redirect_loop_counts_as_unavailable(project, server):
    # RFC 9309 §2.3.1.2: after five redirects robots.txt may be taken as unavailable,
    # which (§2.3.1.3, like a 4xx) allows everything; core/robots.py says the same.
    server.routes["/robots.txt"] = Reply(302, b"", {"Location": "/r/1"})
    for i in range(1, 40):
        server.routes[f"/r/{i}"] = Reply(302, b"", {"Location": f"/r/{i + 1}"})
    site(server)
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/")).status == PageStatus.FETCHED
    redirects = sum(1 for path, _ in server.hits if path.startswith("/r/"))
    assert redirects <= 5


def test_robots_redirect_to_a_malformed_location_does_not_abort_the_crawl(project, server):
    server.routes["/robots.txt"] = Reply(301, b"", {"Location": "javascript:void(0)"})
    site(server)
    inject([server.url("/")], T0)
    events = Events()
    crawl(project, settings(), clock=clock_at(), observer=events)
    # a robots.txt that cannot be followed is "unavailable" (RFC 9309 §2.3.1.2): allow all
    assert page(server.url("/")).status == PageStatus.FETCHED
    assert any("cannot be followed" in e.text for e in events.logs("warning"))


# -- Crawl-delay -----------------------------------------------------------------------


def test_crawl_delay_is_parsed_for_our_agent():
    policy = policy_from(200, "User-agent: *\nCrawl-delay: 7\nDisallow: /x\n", None)
    assert policy.crawl_delay(UA) == 7.0
    assert policy_from(200, "User-agent: *\nDisallow: /x\n", None).crawl_delay(UA) is None
    assert policy_from(404, None, None).crawl_delay(UA) is None


def test_host_slot_caps_crawl_delay_at_30_s():
    slot = HostSlot("http://example.com", PolitenessSettings(delay=1.0, jitter=0.0))
    slot.honour_crawl_delay(120.0)
    assert slot.delay == 30.0
    assert slot.reserve() == 0.0
    assert slot.reserve() == pytest.approx(30.0, abs=0.05)


def test_host_slot_crawl_delay_never_lowers_the_configured_delay():
    slot = HostSlot("http://example.com", PolitenessSettings(delay=2.0))
    slot.honour_crawl_delay(0.5)
    assert slot.delay == 2.0
    slot.honour_crawl_delay(None)
    assert slot.delay == 2.0
    slot.honour_crawl_delay(0)
    assert slot.delay == 2.0
    slot.honour_crawl_delay(5)
    assert slot.delay == 5.0


def test_crawl_delay_spaces_requests_in_a_crawl(project, server):
    serve_robots(server, "User-agent: *\nCrawl-delay: 0.4\n")
    starts: dict[str, float] = {}

    def timed(path: str, body: str):
        def route(handler):
            starts[path] = time.monotonic()
            return Reply(200, body.encode(), {"Content-Type": "text/html"})

        return route

    server.routes["/a"] = timed("/a", "<p>a</p>")
    server.routes["/b"] = timed("/b", "<p>b</p>")
    inject([server.url("/a"), server.url("/b")], T0)
    crawl(project, settings(politeness={"jitter": 0.0}), clock=clock_at())
    assert set(starts) == {"/a", "/b"}
    assert abs(starts["/a"] - starts["/b"]) >= 0.35


def test_robots_denied_event_reported(project, server):
    serve_robots(server, "User-agent: *\nDisallow: /public\n")
    site(server)
    inject([server.url("/public")], T0)
    events = Events()
    crawl(project, settings(), clock=clock_at(), observer=events)
    (fetched,) = events.fetched(server.url("/public"))
    assert fetched.status == PageStatus.ROBOTS_DENIED
    assert fetched.http_status is None
    p = page(server.url("/public"))
    # a robots denial is not a fetch
    assert p.last_fetched is None and p.first_fetched is None
    assert p.next_fetch - T0 > DAY


@pytest.mark.parametrize(
    ("user_agent", "token"),
    [
        ("Archivist/1.0 (+https://example.org/contact)", "Archivist"),
        ("Archivist", "Archivist"),
        ("", "Recrawl"),  # a store edited by hand: matched as Recrawl's, no crash
        ("   ", "Recrawl"),
        ("/1.0 (+x)", "Recrawl"),
    ],
)
def test_robots_agent_is_the_product_token(user_agent, token):
    assert robots_agent(user_agent) == token
