from __future__ import annotations

from core import store
from core.clock import utcnow
from core.crawl import inject
from core.models import Page, PageStatus
from tests.conftest import crawl


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
