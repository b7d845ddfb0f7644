"""Sitemaps and feeds (docs/design.md §11): found, read on their own schedule, what they list
discovered through the chain, bad ones named in one log line without stopping a crawl."""

from __future__ import annotations

import gzip
from dataclasses import replace
from datetime import datetime, timedelta

from recrawl.core.config import SourceSettings
from recrawl.core.engine import inject
from recrawl.core.store.models import DiscoveredVia, Page, PageStatus, Source

from tests.support.crawling import DAY, T0, Events, clock_at, crawl, page, settings
from tests.support.httpserver import Reply

XML = {"Content-Type": "application/xml"}


def urlset(*entries: tuple[str, str | None]) -> bytes:
    rows = "".join(
        f"<url><loc>{loc}</loc>{f'<lastmod>{lastmod}</lastmod>' if lastmod else ''}</url>"
        for loc, lastmod in entries
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</urlset>'
    ).encode()


def index(*locs: str) -> bytes:
    rows = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</sitemapindex>'
    ).encode()


def rss(*items: tuple[str, str]) -> bytes:
    rows = "".join(
        f"<item><link>{link}</link><pubDate>{date}</pubDate></item>" for link, date in items
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{rows}</channel></rss>'
    ).encode()


def source(url: str) -> Source:
    found = Source.get_or_none(Source.url == url)
    assert found is not None, f"no source {url}"
    return found


def test_default_sitemap_pages_are_found_via_the_sitemap_with_their_lastmod(project, server):
    server.html("/", "<p>home, no links</p>")
    server.html("/only-in-sitemap", "<p>hidden</p>")
    server.routes["/sitemap.xml"] = Reply(
        200, urlset((server.url("/only-in-sitemap"), "2026-12-30T08:00:00Z")), XML
    )
    inject([server.url("/")], T0)
    events = Events()
    crawl(project, settings(), clock=clock_at(), observer=events)

    hidden = page(server.url("/only-in-sitemap"))
    assert hidden.status == PageStatus.FETCHED
    assert hidden.discovered_via == DiscoveredVia.SITEMAP
    assert hidden.discovered_from == server.url("/sitemap.xml")
    assert hidden.published_at == datetime(2026, 12, 30, 8, 0)
    sitemap = source(server.url("/sitemap.xml"))
    assert (sitemap.kind, sitemap.found_via, sitemap.entries) == ("sitemap", "default", 1)
    assert sitemap.http_status == 200 and sitemap.error is None
    assert sitemap.next_fetch > T0  # read on its own schedule from now on


def test_robots_sitemap_index_and_gzip_children_are_read(project, server):
    server.html("/", "<p>home</p>")
    server.routes["/robots.txt"] = Reply(
        200,
        f"User-agent: *\nAllow: /\nSitemap: {server.url('/maps/index.xml')}\n".encode(),
        {"Content-Type": "text/plain"},
    )
    server.routes["/maps/index.xml"] = Reply(
        200, index(server.url("/maps/a.xml.gz"), server.url("/maps/b.xml")), XML
    )
    server.routes["/maps/a.xml.gz"] = Reply(
        200, gzip.compress(urlset((server.url("/a1"), None))), {"Content-Type": "application/gzip"}
    )
    server.routes["/maps/b.xml"] = Reply(200, urlset((server.url("/b1"), None)), XML)
    server.html("/a1", "<p>a1</p>")
    server.html("/b1", "<p>b1</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())

    assert page(server.url("/a1")).discovered_from == server.url("/maps/a.xml.gz")
    assert page(server.url("/b1")).status == PageStatus.FETCHED
    assert source(server.url("/maps/index.xml")).found_via == "robots"
    child = source(server.url("/maps/a.xml.gz"))
    assert (child.found_via, child.found_from) == ("index", server.url("/maps/index.xml"))


def test_feeds_advertised_by_pages_are_read_and_their_entries_dated(project, server):
    server.html(
        "/",
        '<html><head><link rel="alternate" type="application/rss+xml" href="/feed"></head>'
        "<body>home</body></html>",
    )
    server.routes["/feed"] = Reply(
        200,
        rss((server.url("/post-1"), "Mon, 28 Dec 2026 10:00:00 GMT")),
        {"Content-Type": "application/rss+xml"},
    )
    server.html("/post-1", "<p>post</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())

    post = page(server.url("/post-1"))
    assert (post.discovered_via, post.discovered_from) == ("feed", server.url("/feed"))
    assert post.published_at == datetime(2026, 12, 28, 10, 0)
    feed = source(server.url("/feed"))
    assert (feed.kind, feed.found_via, feed.found_from) == ("feed", "page", server.url("/"))


def test_a_newer_lastmod_makes_a_known_page_due_and_unchanged_sitemaps_get_a_304(project, server):
    lastmod = {"value": "2026-12-01T00:00:00Z"}

    def sitemap(handler):
        if handler.headers.get("If-None-Match") == f'"{lastmod["value"]}"':
            return Reply(304, b"", {"ETag": f'"{lastmod["value"]}"'})
        body = urlset((server.url("/article"), lastmod["value"]))
        return Reply(200, body, {**XML, "ETag": f'"{lastmod["value"]}"'})

    server.routes["/sitemap.xml"] = sitemap
    server.html("/", '<a href="/article">article</a>')
    server.html("/article", "<p>v1</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    fetched_at = page(server.url("/article")).last_fetched
    assert page(server.url("/article")).next_fetch > T0 + 5 * DAY  # the schedule's interval

    # a day later the sitemap is read again (conditional: a 304), the page stays put
    crawl(project, settings(), clock=clock_at(DAY))
    assert page(server.url("/article")).last_fetched == fetched_at
    assert source(server.url("/sitemap.xml")).http_status == 304

    # then it says the article changed: fetched again at once
    lastmod["value"] = (T0 + DAY + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    crawl(project, settings(), clock=clock_at(2 * DAY))
    assert page(server.url("/article")).last_fetched > fetched_at + DAY


def test_bad_sources_get_one_line_each_and_the_crawl_goes_on(project, server):
    server.html(
        "/",
        '<html><head><link rel="alternate" type="application/atom+xml" href="/atom">'
        '</head><body><a href="/next">next</a></body></html>',
    )
    server.html("/next", "<p>next</p>")
    server.html("/atom", "<p>an HTML page where the feed should be</p>")
    server.routes["/sitemap.xml"] = Reply(200, urlset((server.url("/x"), None))[:90], XML)
    inject([server.url("/")], T0)
    events = Events()
    crawl(project, settings(), clock=clock_at(), observer=events)

    assert page(server.url("/next")).status == PageStatus.FETCHED
    warnings = [e.text for e in events.logs("warning")]
    (feed_line,) = [w for w in warnings if server.url("/atom") in w]
    assert "an HTML page, not a feed" in feed_line
    (sitemap_line,) = [w for w in warnings if server.url("/sitemap.xml") in w]
    assert "malformed" in sitemap_line
    assert "HTML page" in (source(server.url("/atom")).error or "")


def test_a_loop_of_indexes_is_read_once_and_deep_indexes_stop(project, server):
    server.html("/", "<p>home</p>")
    server.routes["/sitemap.xml"] = Reply(200, index(server.url("/i1.xml")), XML)
    server.routes["/i1.xml"] = Reply(
        200, index(server.url("/sitemap.xml"), server.url("/i2.xml")), XML
    )
    server.routes["/i2.xml"] = Reply(200, index(server.url("/i3.xml")), XML)
    server.routes["/i3.xml"] = Reply(200, index(server.url("/i4.xml")), XML)
    events = Events()
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at(), observer=events)

    assert server.hits_for("/sitemap.xml") == 1
    assert server.hits_for("/i1.xml") == 1
    assert server.hits_for("/i3.xml") == 0  # max_index_depth 2: /i2.xml's sitemaps wait
    assert "max_index_depth" in (source(server.url("/i2.xml")).error or "")
    assert Page.select().where(Page.discovered_via == "sitemap").count() == 0


def test_a_huge_sitemap_is_read_up_to_its_bounds_with_one_line(project, server):
    rows = [(server.url(f"/p{i}"), None) for i in range(400)]
    server.routes["/sitemap.xml"] = Reply(200, urlset(*rows), XML)
    server.html("/", "<p>home</p>")
    inject([server.url("/")], T0)
    events = Events()
    bounded = replace(SourceSettings(), max_entries=50)
    crawl(project, settings(sources=bounded, max_pages=5), clock=clock_at(), observer=events)

    assert Page.select().where(Page.discovered_via == "sitemap").count() == 50
    (line,) = [e.text for e in events.logs("warning") if "sitemap.xml" in e.text]
    assert "350 more than 50 entries" in line and "sources.max_entries" in line
    assert source(server.url("/sitemap.xml")).entries == 50


def test_robots_rules_keep_a_sitemap_unread(project, server):
    server.routes["/robots.txt"] = Reply(
        200, b"User-agent: *\nDisallow: /sitemap.xml\n", {"Content-Type": "text/plain"}
    )
    server.html("/", "<p>home</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())

    assert server.hits_for("/sitemap.xml") == 0
    assert source(server.url("/sitemap.xml")).error == "denied by robots.txt"


def test_sources_off_reads_none(project, server):
    server.html("/", "<p>home</p>")
    inject([server.url("/")], T0)
    crawl(project, settings(sources=replace(SourceSettings(), enabled=False)), clock=clock_at())
    assert server.hits_for("/sitemap.xml") == 0


def test_a_placeholder_date_is_no_publication_date(project, server):
    # generators that know no date write the epoch (or year 1): a page "published" in
    # 1970 and first seen decades later is noise in What's new; a page's own date has
    # the same floor (core/content/published.py's EARLIEST)
    server.html("/", "<p>home, no links</p>")
    for path in ("/epoch", "/year-one", "/dated"):
        server.html(path, "<p>no date stated</p>")
    server.routes["/sitemap.xml"] = Reply(
        200,
        urlset(
            (server.url("/epoch"), "1970-01-01T00:00:00Z"),
            (server.url("/year-one"), "0001-01-01"),
            (server.url("/dated"), "2026-12-30"),
        ),
        XML,
    )
    inject([server.url("/")], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(server.url("/epoch")).published_at is None
    assert page(server.url("/year-one")).published_at is None
    assert page(server.url("/dated")).published_at == datetime(2026, 12, 30)
