"""Crawler traps (issue 12): link depth, sequences of growing numbers or dates, and the
cap on one host's pages in a round; each held-back link recorded with its reason."""

from __future__ import annotations

import re
from calendar import monthrange
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

from tests.support.crawling import T0, Events, clock_at, crawl, settings

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


def discoverer(events: Events, traps: TrapSettings, seen_limit: int = 1000) -> LinkDiscoverer:
    queue = EventQueue(events)
    return LinkDiscoverer(
        compile_chain(ACCEPT_ALL),
        FixedSchedule(),
        Clock(),
        queue,
        TrapGuard(traps, queue),
        seen_limit=seen_limit,
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


# -- lattices (issue 25) ---------------------------------------------------------------


def add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, monthrange(year, month)[1]))


def explore(traps: TrapSettings, seed: str, links_of, pages: int = 3000):
    """A breadth-first crawl of a made-up site through the guard: ``links_of(url)`` is
    each page's links. Returns the URLs admitted (in order), the links held back (url,
    reason) and the crawl's warnings."""
    events = Events()
    found = discoverer(events, traps, seen_limit=100_000)
    found.remember(seed)
    queue = [Page(id=1, url=seed, host="a.example", depth=0)]
    admitted, held = [seed], []
    while queue and len(admitted) < pages:
        page = queue.pop(0)
        batch = store.CommitBatch(segment="s")
        found.from_html(page, links_to(*links_of(page.url)), batch)
        for new in batch.new_pages:
            admitted.append(new.url)
            queue.append(
                Page(
                    id=len(admitted),
                    url=new.url,
                    host="a.example",
                    depth=new.depth,
                    metadata=new.metadata,
                )
            )
        held += [(url, reason) for url, reason, _ in batch.rejected]
    found.events.flush()
    return admitted, held, [log.text for log in events.logs("warning")]


def calendar_links(form):
    def links(url: str) -> list[str]:
        numbers = [int(n) for n in re.findall(r"\d+", url.removeprefix(SITE))]
        today = (
            date(*numbers) if form is calendar_path else date(numbers[0], numbers[1], numbers[2])
        )
        steps = (-12, -1, 1, 12)
        days = [today - timedelta(days=1), today + timedelta(days=1)]
        return [form(day) for day in [*days, *(add_months(today, k) for k in steps)]]

    return links


def calendar_path(day: date) -> str:
    return f"{SITE}/cal/{day.year}/{day.month:02}/{day.day:02}"


def calendar_query(day: date) -> str:
    return f"{SITE}/cal?y={day.year}&m={day.month}&d={day.day}"


@pytest.mark.parametrize(
    ("form", "reported"),
    [
        (calendar_path, f"{SITE}/cal/{{year}}/{{month}}/{{day}}"),
        (calendar_query, f"{SITE}/cal?y={{year}}&m={{month}}&d={{day}}"),
    ],
)
def test_a_calendar_linking_days_months_and_years_is_a_lattice_held_back(form, reported):
    seed = form(date(2027, 1, 1))
    admitted, held, warnings = explore(TrapSettings(), seed, calendar_links(form))

    # the calendar is cut after about traps.max_lattice (100) of its URLs, not at the
    # depth limit (issue 25: 13,068 pages)
    assert 100 <= len(admitted) <= 110
    assert held and len(held) < 1000  # what the pages admitted link to
    reason = f"possible trap {reported} (traps.max_lattice 100)"
    assert {r for _, r in held} == {reason}
    (alarm,) = [text for text in warnings if "traps.max_lattice" in text]
    assert alarm.startswith(f"possible trap: {reported}: 100 links of one pattern")
    assert "years" in alarm and "months" in alarm and "days" in alarm
    assert "traps.allowed_patterns" in alarm


@pytest.mark.parametrize("allowed", ["{year}/{month}/{day}", "{n}/{n}/{n}"])
def test_an_allowed_lattice_is_followed_as_reported_or_with_n(allowed):
    traps = TrapSettings(allowed_patterns=(f"{SITE}/cal/{allowed}",))
    admitted, held, warnings = explore(
        traps, calendar_path(date(2027, 1, 1)), calendar_links(calendar_path), pages=500
    )
    assert len(admitted) >= 500
    assert held == []
    assert not any("traps.max_lattice" in text for text in warnings)


def grid_links(width: int, height: int):
    """/map/X/Y tiles linking their four neighbours, ``width`` × ``height`` of them."""

    def links(url: str) -> list[str]:
        x, y = map(int, url.rsplit("/", 2)[1:])
        near = [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
        return [f"{SITE}/map/{a}/{b}" for a, b in near if 0 <= a < width and 0 <= b < height]

    return links


def test_any_grid_of_numbers_is_a_lattice():
    admitted, held, warnings = explore(
        TrapSettings(), f"{SITE}/map/500/500", grid_links(1000, 1000)
    )
    assert len(admitted) < 150
    assert {reason for _, reason in held} == {
        f"possible trap {SITE}/map/{{n}}/{{n}} (traps.max_lattice 100)"
    }
    assert any(text.startswith(f"possible trap: {SITE}/map/{{n}}/{{n}}: ") for text in warnings)


def archive_links(days: int):
    """A news archive: a page a day, linking the day before and after, and its stories."""
    first = date(2025, 1, 1)

    def links(url: str) -> list[str]:
        if url == f"{SITE}/":
            return [f"{SITE}/{first + timedelta(days=days - 1):%Y/%m/%d}/"]
        numbers = list(map(int, re.findall(r"\d+", url.removeprefix(SITE))))
        day = date(*numbers[:3])
        if len(numbers) > 3:
            return []  # a story
        near = [day - timedelta(days=1), day + timedelta(days=1)]
        out = [f"{SITE}/{d:%Y/%m/%d}/" for d in near if first <= d < first + timedelta(days=days)]
        # stories by number, some with a slug
        index = (day - first).days
        out += [f"{SITE}/{day:%Y/%m/%d}/{10_000 + index * 3 + k}.html" for k in range(3)]
        out.append(f"{SITE}/{day:%Y/%m/%d}/story-{'abcdefghij'[index % 10]}{index // 10}-x")
        return out

    return links


def album_links(albums: int, photos: int):
    def links(url: str) -> list[str]:
        path = url.removeprefix(SITE)
        if path == "/":
            return [f"{SITE}/album/{a}" for a in range(1, albums + 1)]
        numbers = list(map(int, re.findall(r"\d+", path)))
        if len(numbers) == 1:  # an album's page lists its photos
            return [f"{SITE}/album/{numbers[0]}/photo/{p}" for p in range(1, photos + 1)]
        album, photo = numbers
        near = [p for p in (photo - 1, photo + 1) if 1 <= p <= photos]
        return [f"{SITE}/album/{album}/photo/{p}" for p in near]

    return links


def listing_links(pages: int, sorts: int):
    def links(url: str) -> list[str]:
        page, sort = map(int, re.findall(r"\d+", url.removeprefix(SITE)))
        return [
            f"{SITE}/page/{p}?sort={s}"
            for p, s in [
                (page + 1, sort),
                (page - 1, sort),
                *((page, t) for t in range(1, sorts + 1)),
            ]
            if 1 <= p <= pages
        ]

    return links


@pytest.mark.parametrize(
    ("name", "seed", "links_of", "total"),
    [
        # 400 days of news: each day's page links the day before and after (one number
        # steps, or two at a month's turn), and stories numbered or with slugs
        ("archive", f"{SITE}/", archive_links(400), 1 + 400 * 5),
        # 40 albums of 12 photos (each photo links the one before and after)
        ("album", f"{SITE}/", album_links(40, 12), 1 + 40 + 40 * 12),
        # a blog's 40 pages in 4 orders (a small grid, but one: fine below the bound)
        ("listing", f"{SITE}/page/1?sort=1", listing_links(40, 4), 160),
    ],
)
def test_real_sites_of_dated_and_numbered_urls_are_no_lattice(name, seed, links_of, total):
    traps = TrapSettings(max_depth=10_000)  # the archive is 400 days deep
    admitted, held, warnings = explore(traps, seed, links_of)
    assert len(admitted) == total
    assert held == []
    assert not any("traps.max_lattice" in text for text in warnings)


def test_a_lattice_an_earlier_crawl_found_is_held_back_from_its_first_link():
    reported = f"{SITE}/cal/{{year}}/{{month}}/{{day}}"
    earlier = [
        f"possible trap {reported} (traps.max_lattice 100)",
        f"possible trap {SITE}/p?page={{n}} (traps.max_sequence 40)",  # a sequence: by place
        "deeper than traps.max_depth (50 links from a seed)",
    ]
    day = calendar_path(date(2027, 1, 1))
    for allowed, held in [((), True), ((reported,), False)]:
        events = Events()
        found = discoverer(events, TrapSettings(allowed_patterns=allowed))
        found.traps.held_before(earlier)
        batch = store.CommitBatch(segment="s")
        found.from_html(Page(id=1, url=f"{SITE}/", host="a.example", depth=0), links_to(day), batch)
        found.events.flush()
        assert bool(batch.rejected) is held
        if held:
            assert batch.rejected == [(day, earlier[0], None)]
            (warning,) = [log.text for log in events.logs("warning")]
            assert warning.startswith(f"possible trap: {reported}: ")
            assert "earlier crawl" in warning and "traps.allowed_patterns" in warning
