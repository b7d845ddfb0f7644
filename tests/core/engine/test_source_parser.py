"""What a sitemap or feed lists (core/engine/source_parser.py): pure, whatever the input."""

from __future__ import annotations

import gzip
from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.config import SourceSettings
from recrawl.core.engine.source_parser import Entry, parse_feed, parse_sitemap, unpacked
from recrawl.core.engine.sources import next_interval

BASE = "http://example.org/sitemap.xml"
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def test_a_urlset_gives_canonical_urls_with_lastmod_in_naive_utc():
    body = (
        f"<urlset {NS}><url><loc>HTTP://Example.org/a#top</loc>"
        "<lastmod>2026-11-02T10:00:00+01:00</lastmod></url>"
        "<url><loc>http://example.org/b</loc><lastmod>2026-11-03</lastmod></url></urlset>"
    ).encode()
    listing = parse_sitemap(body, BASE, 100)
    assert listing.entries == [
        Entry("http://example.org/a", datetime(2026, 11, 2, 9, 0)),
        Entry("http://example.org/b", datetime(2026, 11, 3)),
    ]
    assert listing.problems == [] and listing.sitemaps == []


def test_google_news_dates_are_publication_dates():
    body = (
        f'<urlset {NS} xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
        "<url><loc>http://example.org/story</loc><news:news><news:publication>"
        "<news:name>N</news:name><news:language>en</news:language></news:publication>"
        "<news:publication_date>2026-11-01T06:00:00Z</news:publication_date>"
        "<news:title>T</news:title></news:news></url></urlset>"
    ).encode()
    (entry,) = parse_sitemap(body, BASE, 100).entries
    assert entry.published == datetime(2026, 11, 1, 6, 0)


def test_entries_past_the_bound_are_counted_not_kept():
    rows = "".join(f"<url><loc>http://example.org/{i}</loc></url>" for i in range(30))
    listing = parse_sitemap(f"<urlset {NS}>{rows}</urlset>".encode(), BASE, 10)
    assert len(listing.entries) == 10 and listing.skipped == 20


def test_an_index_lists_its_sitemaps_resolved():
    body = (
        f"<sitemapindex {NS}><sitemap><loc>http://example.org/a.xml.gz</loc></sitemap>"
        "<sitemap><loc>http://example.org/b.xml</loc></sitemap></sitemapindex>"
    ).encode()
    listing = parse_sitemap(body, BASE, 100)
    assert listing.sitemaps == ["http://example.org/a.xml.gz", "http://example.org/b.xml"]
    assert listing.entries == []


def test_malformed_xml_keeps_what_came_before_the_fault_and_says_so():
    body = (f"<urlset {NS}><url><loc>http://example.org/a</loc></url><url><loc>http://exa").encode()
    listing = parse_sitemap(body, BASE, 100)
    assert [e.url for e in listing.entries] == ["http://example.org/a"]
    (problem,) = listing.problems
    assert problem.startswith("malformed") and "usp-local-dummy" not in problem


def test_html_is_neither_a_sitemap_nor_a_feed():
    html = b"<!DOCTYPE html><html><body><p>Welcome</p></body></html>"
    assert parse_sitemap(html, BASE, 100).problems == ["an HTML page, not a sitemap"]
    assert parse_feed(html, BASE, 100).problems == ["an HTML page, not a feed"]


def test_gzip_is_unpacked_within_its_bound():
    body = f"<urlset {NS}>{'<url><loc>http://example.org/x</loc></url>' * 100}</urlset>"
    packed = gzip.compress(body.encode())
    assert unpacked(packed, 10**6) == (body.encode(), None)
    content, problem = unpacked(packed, 200)
    assert len(content) == 200 and problem is not None and "200" in problem
    assert unpacked(b"\x1f\x8bnot gzip", 100)[1] is not None
    assert unpacked(b"<urlset/>", 100) == (b"<urlset/>", None)


def test_atom_and_rss_entries_with_dates_and_relative_links():
    atom = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title><entry><title>a</title>'
        b'<link href="/posts/a"/><updated>2026-11-03T00:00:00Z</updated>'
        b"<published>2026-11-01T00:00:00Z</published></entry></feed>"
    )
    (entry,) = parse_feed(atom, "http://example.org/atom.xml", 10).entries
    assert entry == Entry(
        "http://example.org/posts/a", datetime(2026, 11, 3), datetime(2026, 11, 1)
    )
    rss = (
        b'<rss version="2.0"><channel><title>t</title><item><link>http://example.org/p</link>'
        b"<pubDate>Mon, 02 Nov 2026 10:00:00 +0100</pubDate></item></channel></rss>"
    )
    (entry,) = parse_feed(rss, "http://example.org/feed", 10).entries
    assert entry.published == datetime(2026, 11, 2, 9, 0)


@given(st.binary(max_size=2000))
def test_any_bytes_give_a_listing_never_an_error(body):
    for parse in (parse_sitemap, parse_feed):
        listing = parse(body, BASE, 50)
        assert len(listing.entries) <= 50


def test_the_interval_follows_what_readings_find_within_bounds():
    settings = SourceSettings(min_interval=3600.0, max_interval=86400.0)
    assert next_interval(8 * 3600.0, True, settings) == 4 * 3600.0
    assert next_interval(8 * 3600.0, False, settings) == 12 * 3600.0
    assert next_interval(8 * 3600.0, None, settings) == 16 * 3600.0
    assert next_interval(3600.0, True, settings) == 3600.0
    assert next_interval(80000.0, None, settings) == 86400.0


def test_a_lastmod_at_the_edge_of_time_is_ignored_not_the_sitemap():
    # a zone that moves a date past year 1 or 9999: one entry's bad date, not the
    # sitemap's failure (it raised OverflowError, and the crawl read none of its pages)
    body = (
        f"<urlset {NS}>"
        "<url><loc>http://example.org/a</loc><lastmod>0001-01-01T00:00:00+14:00</lastmod></url>"
        "<url><loc>http://example.org/b</loc><lastmod>9999-12-31T23:00:00-05:00</lastmod></url>"
        "<url><loc>http://example.org/c</loc><lastmod>2026-11-03</lastmod></url></urlset>"
    ).encode()
    listing = parse_sitemap(body, BASE, 100)
    assert listing.entries == [
        Entry("http://example.org/a"),
        Entry("http://example.org/b"),
        Entry("http://example.org/c", datetime(2026, 11, 3)),
    ]


def test_bytes_that_are_no_sitemap_say_so():
    # neither XML nor URLs (a JSON answer, a broken file) read as an empty text sitemap:
    # the reading said nothing, and the source looked fine with nothing in it
    for body in (b'{"pages": []}', b"garbage<<<", bytes(range(1, 200))):
        listing = parse_sitemap(body, BASE, 10)
        assert listing.entries == [] and listing.problems, body
    text = parse_sitemap(b"http://example.org/a\nnot a url\n", BASE, 10)
    assert [entry.url for entry in text.entries] == ["http://example.org/a"]
    assert text.problems == []
    empty = parse_sitemap(f"<urlset {NS}></urlset>".encode(), BASE, 10)
    assert empty.entries == [] and empty.problems == []  # an empty sitemap is one
