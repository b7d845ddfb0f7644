"""News recorded by real crawls (DESIGN.md §10): new, changed, gone and back across rounds.

Each round runs on a clock at a later day, so the pages are due again; the loopback
server's pages change between rounds as a site's would.
"""

from __future__ import annotations

from datetime import timedelta

from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import RoundFinished, inject
from recrawl.core.store.models import FetchEvent, News, Page

from tests.crawling import T0, Events, clock_at, crawl

WORDS = "archivists watch sites for months and want to know when each page changed"


def article(title: str, topic: str) -> str:
    body = " ".join(f"{topic} {word} {n}" for n, word in enumerate(WORDS.split() * 8))
    return f"<html><head><title>{title}</title></head><body><p>{body}</p></body></html>"


def kinds() -> list[tuple[str, str]]:
    """(kind, path) of every item, oldest first."""
    rows = News.select(News.kind, Page.url).join(Page).order_by(News.at, News.id).tuples()
    return [(kind, "/" + url.split("/", 3)[3]) for kind, url in rows]


def test_rounds_record_new_changed_gone_and_back(project, server):
    server.html("/", '<title>Home</title><a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", article("  Alpha\n  page ", "alpha"))
    server.html("/b", article("Beta", "beta"))
    inject([server.url("/")], T0)

    events = Events()
    crawl(project, clock=clock_at(), observer=events)
    assert sorted(kinds()) == [("new", "/"), ("new", "/a"), ("new", "/b")]
    assert sum(e.new_pages for e in events.of(RoundFinished)) == 3
    assert Page.get(Page.url == server.url("/a")).title == "Alpha page"  # whitespace collapsed
    # the news item is the fetch event's: same page, same instant
    for item in News.select():
        assert FetchEvent.get(FetchEvent.page == item.page).fetched_at == item.at
        assert item.host == "127.0.0.1"

    # a month later: /a rewritten, /b deleted, / the same
    server.html("/a", article("Alpha, revised", "completely different election budget"))
    del server.routes["/b"]
    events = Events()
    summary = crawl(project, clock=clock_at(timedelta(days=30)), observer=events)
    assert sorted(kinds()[3:]) == [("changed", "/a"), ("gone", "/b")]
    assert summary.changed_pages == 1 and summary.new_pages == 0
    assert sum(e.changed_pages for e in events.of(RoundFinished)) == 1
    assert Page.get(Page.url == server.url("/a")).title == "Alpha, revised"
    assert Page.get(Page.url == server.url("/b")).title == "Beta"  # the last page's, kept

    # /b back (with other content: "back" says it), /a unchanged: no news for it
    server.html("/b", article("Beta again", "something else entirely"))
    store.make_due([server.url("/b"), server.url("/a")], utcnow())
    crawl(project, clock=clock_at(timedelta(days=90)))
    assert kinds()[5:] == [("back", "/b")]

    # gone stays gone: a second 404 is no news
    del server.routes["/b"]
    store.make_due([server.url("/b")], utcnow())
    crawl(project, clock=clock_at(timedelta(days=120)))
    assert kinds()[6:] == [("gone", "/b")]
    store.make_due([server.url("/b")], utcnow())
    crawl(project, clock=clock_at(timedelta(days=150)))
    assert len(kinds()) == 7


def test_a_page_first_fetched_after_failures_is_new_then(project, server):
    """A 5xx first, then a 200: "new" at the first success, not at the first attempt."""
    from tests.httpserver import Reply

    server.routes["/"] = Reply(500, b"down")
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    assert kinds() == []
    server.html("/", article("Up", "up"))
    store.make_due([server.url("/")], utcnow())
    crawl(project, clock=clock_at(timedelta(days=2)))
    ((kind, at),) = News.select(News.kind, News.at).tuples()
    assert kind == "new" and at >= T0 + timedelta(days=2)


def test_a_broken_link_is_no_gone_news(project, server):
    """A link to a page that never existed: its 404 is no news (nothing went)."""
    server.html("/", '<title>Home</title><a href="/missing">a typo</a>')
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    assert Page.get(Page.url == server.url("/missing")).status == "gone"
    assert kinds() == [("new", "/")]
