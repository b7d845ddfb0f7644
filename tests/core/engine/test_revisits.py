"""Revisits end to end: due pages refetched, change states, intervals, scores."""

from __future__ import annotations

import pytest
from recrawl.core.clock import DAY, Clock, parse_iso, utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices
from recrawl.core.store.models import FetchEvent, Page

from tests.support.crawling import crawl

PARAGRAPH = (
    "Archivists watch sites for months and want to know when each page changed, "
    "which pages changed together, and how often a page should be visited again. "
)


def article(extra: str = "", counter: int = 1) -> str:
    body = PARAGRAPH * 12
    return (
        f"<html><body><p>{body}</p><p>{extra}</p><footer>visits: {counter}</footer></body></html>"
    )


def at(day: float) -> Clock:
    start = parse_iso("2027-01-01T00:00:00Z")
    from datetime import timedelta

    return Clock(start + timedelta(days=day))


def events(url: str) -> list[FetchEvent]:
    page = Page.get(Page.url == url)
    return list(FetchEvent.select().where(FetchEvent.page == page).order_by(FetchEvent.id))


def test_two_rounds_with_changes_move_intervals_as_aronsson_says(project, server):
    assert choices.schedule_spec()[0] == "aronsson"  # a new project's default
    assert choices.project_signature().kind == "main-text"
    server.html("/", '<a href="/news">n</a> <a href="/static">s</a> <a href="/counter">c</a>')
    server.html("/news", article("first story"))
    server.html("/static", article("never changes"))
    server.html("/counter", article("same text", counter=1))
    inject([server.url("/")], utcnow())
    crawl(project, clock=at(0))
    assert all(
        e.change == "unknown" for url in ("/news", "/static") for e in events(server.url(url))
    )

    # Between the rounds: a new story, a counter tick; /static stays.
    server.html("/news", article("a completely different story about elections and budgets " * 3))
    server.html("/counter", article("same text", counter=2))
    # A first fetch's change is unknown, which aronsson counts as unchanged: 10 d → 12 d.
    first = 1.2 * 10 * DAY + 1800
    assert events(server.url("/news"))[0].interval_after == pytest.approx(first)
    summary = crawl(project, clock=at(12.1))
    assert summary.fetched == 4  # exactly the due pages
    (_, second) = events(server.url("/news"))
    assert second.change == "changed"
    assert second.interval_before == pytest.approx(first)
    assert second.interval_after == pytest.approx(0.5 * first + 1800)
    assert events(server.url("/static"))[1].change == "unchanged"
    assert events(server.url("/static"))[1].interval_after == pytest.approx(1.2 * first + 1800)
    # a changed counter in a long page is not a change for main-text
    assert events(server.url("/counter"))[1].change == "unchanged"
    news = Page.get(Page.url == server.url("/news"))
    assert news.content_changed_at > news.first_fetched

    # Only /news is due about six days later.
    summary = crawl(project, clock=at(12.2 + (0.5 * first + 1800) / DAY))
    assert summary.fetched == 1
    assert len(events(server.url("/news"))) == 3


def test_inlink_scores_follow_the_link_graph(project, server):
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", '<a href="/b">b</a>')
    server.html("/b", '<a href="/a">a</a> <a href="/">home</a>')
    inject([server.url("/")], utcnow())
    crawl(project)
    scores = {p.url.rsplit("/", 1)[1]: p.score for p in Page.select()}
    assert scores == {"": 1.0, "a": 2.0, "b": 2.0}


def test_opic_hands_cash_to_outlinks(project, server):
    choices.set_scoring("opic")
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", '<a href="/b">b</a>')
    server.html("/b", "<p>leaf</p>")
    inject([server.url("/")], utcnow())
    crawl(project)
    by = {p.url.rsplit("/", 1)[1]: p for p in Page.select()}
    # the seed's 1.0 splits over two links; /a passes its 0.5 on to /b
    assert by[""].score == pytest.approx(1.0) and by[""].cash == 0.0
    assert by["a"].score == pytest.approx(0.5)
    assert by["b"].score == pytest.approx(1.0)


def test_opic_cash_is_conserved_across_batches(project, server):
    from dataclasses import replace

    from tests.support.crawling import fast_settings

    choices.set_scoring("opic")
    server.html("/", '<a href="/a">a</a>')
    server.html("/a", '<a href="/b">b</a> <a href="/">home</a>')
    server.html("/b", '<a href="/">home</a>')
    inject([server.url("/")], utcnow())
    crawl(project, replace(fast_settings(), commit_every=1))
    # one unit of cash went round: / → /a → (/b, /) → ...; none created or lost
    assert sum(p.cash for p in Page.select()) == pytest.approx(1.0)
