from __future__ import annotations

from dataclasses import replace

from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import Crawler, inject
from recrawl.core.store.models import Page, PageStatus

from tests.support.crawling import crawl, fast_settings


def test_crawl_follows_links_and_sets_first_seen_once(project, server):
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", '<a href="/b">b</a> <a href="/">home</a>')
    server.html("/b", "<p>leaf</p>")
    inject([server.url("/")], utcnow())
    summary = crawl(project)
    assert summary.fetched == 3
    pages = {p.url: p for p in Page.select()}
    assert {p.status for p in pages.values()} == {PageStatus.FETCHED}
    first_seen = {u: p.first_seen for u, p in pages.items()}
    inject([server.url("/b")], utcnow())
    assert store.page_by_url(server.url("/b")).first_seen == first_seen[server.url("/b")]


def test_the_memory_of_links_seen_is_bounded(project, server):
    for i in range(12):
        links = " ".join(f'<a href="/p{j}">p{j}</a>' for j in range(12) if j != i)
        server.html(f"/p{i}", f"<html><body>{links} <a href='/x.zip'>zip</a></body></html>")
    inject([server.url("/p0")], utcnow())
    crawler = Crawler(project, replace(fast_settings(), seen_limit=4))
    summary = crawler.run()
    assert summary.fetched == 12 and summary.errors == 0  # nothing lost by forgetting
    assert crawler.links.remembered <= 4
    assert Page.select().count() == 12  # and nothing added twice
    assert [r.url for r in store.rejected_links()] == [server.url("/x.zip")]
