"""News recorded by real crawls (docs/design.md §10, §15): a host's first crawl as one baseline,
then new, changed, gone and back across rounds.

Each round runs on a clock at a later day, so the pages are due again; the loopback
server's pages change between rounds as a site's would.
"""

from __future__ import annotations

from datetime import timedelta

from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import PageFetched, RoundFinished, inject
from recrawl.core.store.models import FetchEvent, News, Page

from tests.support.crawling import T0, Events, clock_at, crawl, fast_settings
from tests.support.stores import store_kind  # noqa: F401  # every test on both stores

WORDS = "archivists watch sites for months and want to know when each page changed"


def article(title: str, topic: str) -> str:
    body = " ".join(f"{topic} {word} {n}" for n, word in enumerate(WORDS.split() * 8))
    return f"<html><head><title>{title}</title></head><body><p>{body}</p></body></html>"


def kinds() -> list[tuple[str, str]]:
    """(kind, path) of every item, oldest first."""
    rows = News.select(News.kind, Page.url).join(Page).order_by(News.at, News.id).tuples()
    return [(kind, "/" + url.split("/", 3)[3]) for kind, url in rows]


def baseline(host: str = "127.0.0.1") -> store.NewsItem:
    (item,) = store.news_items(store.NewsFilter(kind="baseline", host=host))
    return item


def test_rounds_record_a_baseline_then_new_changed_gone_and_back(project, server):
    server.html("/", '<title>Home</title><a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", article("  Alpha\n  page ", "alpha"))
    server.html("/b", article("Beta", "beta"))
    inject([server.url("/")], T0)

    events = Events()
    summary = crawl(project, clock=clock_at(), observer=events)
    # the first crawl is one item, whatever it archived: nothing is new yet (docs/design.md §15)
    assert kinds() == [("baseline", "/")]
    item = baseline()
    assert (item.url, item.host, item.title, item.published_at) == (
        server.url("/"),
        "127.0.0.1",
        None,
        None,
    )
    assert (item.pages, item.complete) == (3, True)
    assert summary.new_pages == 0 and summary.baseline_pages == 3
    assert sum(e.baseline_pages for e in events.of(RoundFinished)) == 3
    (done,) = [d for e in events.of(RoundFinished) for d in e.baselines_done]
    assert (done.host, done.url, done.pages) == ("127.0.0.1", server.url("/"), 3)
    assert {e.news for e in events.of(PageFetched)} == {"baseline"}
    assert Page.get(Page.url == server.url("/a")).title == "Alpha page"  # whitespace collapsed
    assert item.first_seen == Page.get(Page.url == server.url("/")).first_seen

    # a month later: /a rewritten, /b deleted, /c added (linked from /, which changes)
    server.html("/", '<title>Home</title><a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>')
    server.html("/a", article("Alpha, revised", "completely different election budget"))
    server.html("/c", article("Gamma", "gamma"))
    del server.routes["/b"]
    events = Events()
    summary = crawl(project, clock=clock_at(timedelta(days=30)), observer=events)
    assert sorted(kinds()[1:]) == [
        ("changed", "/"), ("changed", "/a"), ("gone", "/b"), ("new", "/c"),
    ]  # fmt: skip
    assert (summary.new_pages, summary.changed_pages, summary.gone_pages) == (1, 2, 1)
    assert summary.baseline_pages == 0 and baseline().pages == 3  # done: it takes no more
    assert sum(e.gone_pages for e in events.of(RoundFinished)) == 1
    (went,) = [e for e in events.of(PageFetched) if e.news == "gone"]
    assert (went.url, went.http_status) == (server.url("/b"), 404)
    # the news item is the fetch event's: same page, same instant
    for news in News.select().where(News.kind != "baseline"):
        assert (
            FetchEvent.select()
            .where((FetchEvent.page == news.page) & (FetchEvent.fetched_at == news.at))
            .exists()
        )
    assert Page.get(Page.url == server.url("/a")).title == "Alpha, revised"
    assert Page.get(Page.url == server.url("/b")).title == "Beta"  # the last page's, kept

    # /b back (with other content: "back" says it), /a unchanged: no news for it
    server.html("/b", article("Beta again", "something else entirely"))
    store.make_due([server.url("/b"), server.url("/a")], utcnow())
    summary = crawl(project, clock=clock_at(timedelta(days=90)))
    assert kinds()[5:] == [("back", "/b")]
    assert (summary.back_pages, summary.gone_pages, summary.new_pages) == (1, 0, 0)

    # gone stays gone: a second 404 is no news
    del server.routes["/b"]
    store.make_due([server.url("/b")], utcnow())
    crawl(project, clock=clock_at(timedelta(days=120)))
    assert kinds()[6:] == [("gone", "/b")]
    store.make_due([server.url("/b")], utcnow())
    crawl(project, clock=clock_at(timedelta(days=150)))
    assert len(kinds()) == 7


def test_a_first_crawl_over_several_crawls_is_one_item_growing_until_nothing_is_left(
    project, server
):
    """Each crawl a round: / then /a then /b (a chain of links). The one baseline item
    grows in place; it is done, newest and unseen again, when nothing is left."""
    server.html("/", '<title>Home</title><a href="/a">a</a>')
    server.html("/a", '<title>A</title><a href="/b">b</a>')
    server.html("/b", "<title>B</title>")
    inject([server.url("/")], T0)
    one_round = fast_settings(rounds=1)

    summary = crawl(project, one_round, clock=clock_at())
    first = baseline()
    assert (first.pages, first.complete, summary.baseline_pages) == (1, False, 1)
    assert kinds() == [("baseline", "/")]
    store.mark_news_seen()  # seen while under way

    events = Events()
    crawl(project, one_round, clock=clock_at(timedelta(hours=1)), observer=events)
    second = baseline()
    assert (second.pages, second.complete) == (2, False)
    assert second.id == first.id and second.at > first.at  # the same item, moved on
    assert store.unseen_news_count() == 0
    assert [e.baselines_done for e in events.of(RoundFinished)] == [()]

    events = Events()
    crawl(project, one_round, clock=clock_at(timedelta(hours=2)), observer=events)
    done = baseline()
    assert (done.pages, done.complete) == (3, True)
    assert done.id > second.id and done.at >= second.at  # written again: newest, unseen
    assert store.unseen_news_count() == 1
    ((finished,),) = [e.baselines_done for e in events.of(RoundFinished)]
    assert (finished.host, finished.pages) == ("127.0.0.1", 3)
    assert News.select().count() == 1

    # a page found from now on is new
    server.html("/b", '<title>B</title><a href="/c">c</a>')
    server.html("/c", "<title>C</title>")
    store.make_due([server.url("/b")], utcnow())
    summary = crawl(project, clock=clock_at(timedelta(days=30)))
    assert kinds()[1:] == [("changed", "/b"), ("new", "/c")] and summary.new_pages == 1
    assert baseline().pages == 3


def test_each_host_has_its_own_baseline_and_a_host_added_later_gets_one(project, server):
    from tests.support.httpserver import TestServer

    other = TestServer(address="127.0.0.2").start()
    try:
        server.html("/", '<title>One</title><a href="/a">a</a>')
        server.html("/a", "<title>One A</title>")
        other.html("/", '<title>Two</title><a href="/x">x</a> <a href="/y">y</a>')
        other.html("/x", "<title>Two X</title>")
        other.html("/y", "<title>Two Y</title>")
        inject([server.url("/")], T0)
        crawl(project, clock=clock_at())
        assert [(i.host, i.pages, i.complete) for i in store.news_items()] == [
            ("127.0.0.1", 2, True)
        ]

        # a month on: the first host gains a page (new), a second host is added (its
        # first crawl: a baseline of its own)
        server.html("/", '<title>One</title><a href="/a">a</a> <a href="/b">b</a>')
        server.html("/b", "<title>One B</title>")
        store.make_due([server.url("/")], utcnow())
        inject([other.url("/")], T0 + timedelta(days=30))
        summary = crawl(project, clock=clock_at(timedelta(days=30)))
        items = {(i.kind, i.host, i.url, i.pages) for i in store.news_items()}
        assert items == {
            ("baseline", "127.0.0.1", server.url("/"), 2),
            ("changed", "127.0.0.1", server.url("/"), None),
            ("new", "127.0.0.1", server.url("/b"), None),
            ("baseline", "127.0.0.2", other.url("/"), 3),
        }
        assert (summary.new_pages, summary.baseline_pages) == (1, 3)
        assert baseline("127.0.0.2").complete
    finally:
        other.stop()


def test_a_page_first_fetched_after_failures_starts_the_baseline_then(project, server):
    """A 5xx first, then a 200: the host's first crawl starts at its first success."""
    from tests.support.httpserver import Reply

    server.routes["/"] = Reply(500, b"down")
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    assert kinds() == []
    server.html("/", article("Up", "up"))
    store.make_due([server.url("/")], utcnow())
    crawl(project, clock=clock_at(timedelta(days=2)))
    ((kind, at),) = News.select(News.kind, News.at).tuples()
    assert kind == "baseline" and at >= T0 + timedelta(days=2)
    assert (baseline().pages, baseline().complete) == (1, True)


def test_a_broken_link_is_no_gone_news(project, server):
    """A link to a page that never existed: its 404 is no news (nothing went)."""
    server.html("/", '<title>Home</title><a href="/missing">a typo</a>')
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    assert Page.get(Page.url == server.url("/missing")).status == "gone"
    assert kinds() == [("baseline", "/")]
    assert baseline().pages == 1  # archived: the 404 is no page of the site's


def test_what_pages_embed_is_in_no_baseline_and_no_news(project):
    """The pages' host gets its baseline; the CDN host, which holds embeds alone, none."""
    from tests.support.embedcrawls import quick
    from tests.support.embedsite import EmbedSite

    site = EmbedSite()
    try:
        inject([site.pages.url("/")], T0)
        summary = crawl(project, quick(), clock=clock_at())
        assert summary.embeds_fetched > 0
        pages = Page.select().where((Page.kind == "page") & (Page.status == "fetched")).count()
        assert [(i.kind, i.host, i.pages) for i in store.news_items()] == [
            ("baseline", "127.0.0.1", pages)
        ]
        assert summary.baseline_pages == pages
    finally:
        site.stop()
