"""Publication dates (docs/design.md §11, issue 14 point 3): a page's first successful fetch
reads the date it states (htmldate, in the analysis worker); it is kept over the date
its sitemap or feed gave, and later fetches leave it alone."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from recrawl.core import store
from recrawl.core.config import ParseSettings
from recrawl.core.engine import inject
from recrawl.core.engine.analysis import INLINE_BYTES
from recrawl.core.net.urls import host_of

from tests.support.crawling import DAY, T0, clock_at, crawl, page, settings

FEED_DATE = datetime(2026, 12, 20, 6, 0)


def dated(day: str, words: str = "A story.") -> str:
    meta = f'<meta property="article:published_time" content="{day}">'
    return f"<html><head><title>Story</title>{meta}</head><body><p>{words}</p></body></html>"


def from_feed(url: str) -> store.NewPage:
    """A page as a feed would add it: its entry's date, not yet fetched."""
    return store.NewPage(
        url=url,
        host=host_of(url),
        next_fetch=T0,
        fetch_interval=86400.0,
        discovered_via=store.DiscoveredVia.FEED,
        discovered_from="http://feeds.test/rss",
        published_at=FEED_DATE,
    )


def test_the_first_fetch_reads_the_date_the_page_states(project, server):
    server.html("/dated", dated("2026-12-30T10:00:00+01:00"))
    server.html("/undated", "<html><body><p>No date here.</p></body></html>")
    # analysed by a worker process (bigger than what is analysed on the loop)
    server.html("/big", dated("2026-12-29", "words and more words " * INLINE_BYTES))
    server.html("/2026/12/28/in-url", "<html><body><p>Only the URL says.</p></body></html>")
    urls = [server.url(p) for p in ("/dated", "/undated", "/big", "/2026/12/28/in-url")]
    inject(urls, T0)
    pooled = replace(settings(), parse=ParseSettings(processes=1))
    crawl(project, pooled, clock=clock_at())

    assert page(urls[0]).published_at == datetime(2026, 12, 30, 9, 0)
    assert page(urls[1]).published_at is None
    assert page(urls[2]).published_at == datetime(2026, 12, 29)
    assert page(urls[3]).published_at == datetime(2026, 12, 28)


def test_the_page_s_own_date_is_kept_over_its_feed_s_and_read_only_once(project, server):
    server.html("/own", dated("2026-12-18"))
    server.html("/silent", "<html><body><p>No date here.</p></body></html>")
    own, silent = server.url("/own"), server.url("/silent")
    inject([server.url("/")], T0)  # the host in scope
    store.add_pages([from_feed(own), from_feed(silent)], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(own).published_at == datetime(2026, 12, 18)
    assert page(silent).published_at == FEED_DATE  # the page says nothing: the feed's
    assert page(own).discovered_via == store.DiscoveredVia.FEED

    # a later fetch of a page whose date moved (an update) keeps the first one
    server.html("/own", dated("2026-12-31", "Updated story."))
    store.make_due([own], T0 + DAY)
    crawl(project, settings(), clock=clock_at(DAY))
    assert page(own).last_fetched is not None and page(own).last_fetched >= T0 + DAY
    assert page(own).published_at == datetime(2026, 12, 18)
