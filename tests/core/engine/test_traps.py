"""Crawler traps (issue 12): link depth, sequences of growing numbers or dates, and the
cap on one host's pages in a round; each held-back link recorded with its reason."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest
from recrawl.core import store
from recrawl.core.clock import Clock
from recrawl.core.config import TrapSettings
from recrawl.core.engine import LinkRejected, RoundStarted, inject
from recrawl.core.engine.events import EventQueue
from recrawl.core.engine.links import LinkDiscoverer
from recrawl.core.engine.parse import Outlink, ParseResult
from recrawl.core.engine.traps import NOTICE_AT, SEQUENCE_KEY, TrapGuard, pattern_of
from recrawl.core.filters import parse_chain
from recrawl.core.filters.compiled import compile_chain
from recrawl.core.policy.schedules import FixedSchedule
from recrawl.core.store.models import Page, PageStatus, RejectedLink

from tests.crawling import T0, Events, clock_at, crawl, settings

SITE = "http://a.example"
ACCEPT_ALL = parse_chain('[[filter]]\nkind = "domain-deny"\nrules = ""\n')


# -- patterns --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "text"),
    [
        ("http://a.example/cal/2027-01-05", "http://a.example/cal/{n}-{n}-{n}"),
        ("http://a.example/list?page=12&sort=a", "http://a.example/list?page={n}&sort=a"),
        ("http://h2.example:8080/p/7/", "http://h2.example:8080/p/{n}/"),  # host kept
        ("http://a.example/about", "http://a.example/about"),
    ],
)
def test_a_urls_pattern_writes_its_numbers_as_n(url, text):
    assert pattern_of(url).text == text


@pytest.mark.parametrize(
    ("before", "after", "grows"),
    [
        ("/cal/2027-01-31", "/cal/2027-02-01", True),  # the first number that differs decides
        ("/cal/2027-01-05", "/cal/2027-01-04", False),  # going back
        ("/p?page=9", "/p?page=10", True),  # as numbers, not as text
        ("/p?page=009", "/p?page=10", True),
        ("/p/1", "/q/2", False),  # another pattern
        ("/p/1", "/p/1/2", False),
        ("/about", "/about", False),  # no number
        ("/p/" + "9" * 5000, "/p/1" + "0" * 5000, True),  # too long for int()
    ],
)
def test_a_sequence_grows_by_its_numbers(before, after, grows):
    assert pattern_of(SITE + after).grows_from(pattern_of(SITE + before)) is grows


# -- the guard, through link discovery -------------------------------------------------


def discoverer(events: Events, traps: TrapSettings) -> LinkDiscoverer:
    queue = EventQueue(events)
    return LinkDiscoverer(
        compile_chain(ACCEPT_ALL),
        FixedSchedule(),
        Clock(),
        queue,
        TrapGuard(traps, queue),
        seen_limit=1000,
        follow_nofollow=False,
    )


def day_page(page_id: int, day: int, *, sequence: int = 0, depth: int = 0) -> Page:
    metadata = {SEQUENCE_KEY: sequence} if sequence else {}
    url = f"{SITE}/cal/{date(2027, 1, 1) + timedelta(days=day)}"
    return Page(id=page_id, url=url, host="a.example", depth=depth, metadata=metadata)


def links_to(*urls: str) -> ParseResult:
    return ParseResult(links=[Outlink(url) for url in urls])


def test_a_sequence_is_followed_to_its_limit_then_held_back_and_reported():
    events = Events()
    found = discoverer(events, TrapSettings(max_sequence=5))
    batch = store.CommitBatch(segment="s")
    pattern = f"{SITE}/cal/{{n}}-{{n}}-{{n}}"
    for day in range(7):  # each day's page links the next and an older one
        page = day_page(day + 1, day, sequence=day)
        following = day_page(0, day + 1).url
        found.from_html(page, links_to(following, f"{SITE}/cal/2026-12-31"), batch)
    found.events.flush()

    # the first day (a seed) is 0; the pages after it 1..5; the sixth is held back
    assert [(p.url[-10:], (p.metadata or {}).get(SEQUENCE_KEY)) for p in batch.new_pages] == [
        ("2027-01-02", 1),
        ("2026-12-31", None),  # an older day is no step of the sequence
        ("2027-01-03", 2),
        ("2027-01-04", 3),
        ("2027-01-05", 4),
        ("2027-01-06", 5),
    ]
    reason = f"possible trap {pattern} (traps.max_sequence 5)"
    assert batch.rejected == [
        (f"{SITE}/cal/2027-01-07", reason, None),
        (f"{SITE}/cal/2027-01-08", reason, None),
    ]
    assert [(e.url[-10:], e.filter_name) for e in events.of(LinkRejected)] == [
        ("2027-01-07", reason),
        ("2027-01-08", reason),
    ]
    warnings = [log.text for log in events.logs("warning")]
    assert len(warnings) == 2  # once on the way (NOTICE_AT), once held back
    assert warnings[0].startswith(f"possible trap: {pattern}: {NOTICE_AT} pages in a row")
    assert warnings[1].startswith(f"possible trap: {pattern}: 5 pages in a row")
    assert "traps.allowed_patterns" in warnings[1]
    assert [line.text for line in found.traps.summary()] == [
        f"possible trap {pattern}: 2 links held back this crawl (traps.max_sequence)"
    ]


def test_an_allowed_pattern_is_followed_past_the_limit_but_not_past_the_depth():
    events = Events()
    pattern = f"{SITE}/cal/{{n}}-{{n}}-{{n}}"
    found = discoverer(
        events, TrapSettings(max_sequence=2, max_depth=10, allowed_patterns=(pattern,))
    )
    batch = store.CommitBatch(segment="s")
    found.from_html(day_page(1, 8, sequence=8, depth=9), links_to(day_page(0, 9).url), batch)
    found.from_html(day_page(2, 9, sequence=9, depth=10), links_to(day_page(0, 10).url), batch)
    found.events.flush()

    assert [(p.depth, p.metadata) for p in batch.new_pages] == [(10, {SEQUENCE_KEY: 9})]
    reason = "deeper than traps.max_depth (10 links from a seed)"
    assert batch.rejected == [(day_page(0, 10).url, reason, None)]
    assert not any("possible trap" in log.text for log in events.logs())
    (warning,) = events.logs("warning")
    assert reason in warning.text


def test_a_link_held_back_is_checked_again_when_met_nearer_a_seed():
    found = discoverer(Events(), TrapSettings(max_depth=3))
    batch = store.CommitBatch(segment="s")
    deep = Page(id=1, url=f"{SITE}/deep", host="a.example", depth=3)
    near = Page(id=2, url=f"{SITE}/near", host="a.example", depth=0)
    assert found.from_html(deep, links_to(f"{SITE}/x"), batch) == []
    assert found.from_html(near, links_to(f"{SITE}/x"), batch) == [f"{SITE}/x"]
    assert [p.depth for p in batch.new_pages] == [1]


# -- crawls ----------------------------------------------------------------------------

START = date(2027, 1, 1)


def calendar(server, days: int) -> str:
    """Day pages whose each links the next (and a fixed page), as issue 12's trap."""
    for day in range(days):
        today = START + timedelta(days=day)
        server.html(
            f"/calendar/{today}",
            f'<a href="/calendar/{today + timedelta(days=1)}">next day</a> <a href="/">home</a>',
        )
    server.html("/", "<p>home</p>")
    return server.url(f"/calendar/{START}")


def test_a_calendar_trap_ends_by_itself_bounded_and_reported(project, server):
    seed = calendar(server, 400)
    inject([seed], T0)
    events = Events()
    summary = crawl(project, settings(), clock=clock_at(), observer=events)

    limit = TrapSettings().max_sequence
    assert summary.rounds <= limit + 2  # ended by itself: no --rounds
    days = Page.select().where(Page.url.contains("/calendar/"))
    assert days.count() == limit + 1  # the seed, then the sequence up to its limit
    assert {p.status for p in days} == {PageStatus.FETCHED}
    pattern = server.url("/calendar/{n}-{n}-{n}")
    held = START + timedelta(days=limit + 1)
    (record,) = RejectedLink.select().where(RejectedLink.url.contains("/calendar/"))
    assert (record.url, record.filter, record.line) == (
        server.url(f"/calendar/{held}"),
        f"possible trap {pattern} (traps.max_sequence {limit})",
        None,
    )
    assert server.hits_for(f"/calendar/{held}") == 0
    warnings = [log.text for log in events.logs("warning")]
    assert any(text.startswith(f"possible trap: {pattern}") for text in warnings)
    assert warnings[-1] == (
        f"possible trap {pattern}: 1 link held back this crawl (traps.max_sequence)"
    )


def test_an_allowed_calendar_runs_to_the_depth_limit(project, server):
    seed = calendar(server, 400)
    inject([seed], T0)
    pattern = server.url("/calendar/{n}-{n}-{n}")
    traps = TrapSettings(max_sequence=3, max_depth=8, allowed_patterns=(pattern,))
    crawl(project, settings(traps=traps), clock=clock_at())

    assert Page.select().where(Page.url.contains("/calendar/")).count() == 9  # depth 0..8
    (record,) = RejectedLink.select().where(RejectedLink.url.contains("/calendar/"))
    assert record.filter == "deeper than traps.max_depth (8 links from a seed)"


def test_one_hosts_pages_past_the_round_cap_wait_for_the_next_round(project, server):
    for i in range(5):
        server.html(f"/p{i}", "<p>x</p>")
    inject([server.url(f"/p{i}") for i in range(5)], T0)
    events = Events()
    traps = replace(TrapSettings(), max_pages_per_host_round=2)
    summary = crawl(project, settings(traps=traps), clock=clock_at(), observer=events)

    assert [e.queued for e in events.of(RoundStarted)] == [2, 2, 1]
    assert summary.fetched == 5
    (note, *_) = [log.text for log in events.logs("info") if "max_pages_per_host_round" in log.text]
    assert note.startswith("at most 2 pages of a host a round")
    assert "127.0.0.1 (3)" in note
