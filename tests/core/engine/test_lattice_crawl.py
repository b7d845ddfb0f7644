"""Issue 25's calendar, crawled by ``recrawl crawl`` as its user did: every day's page
links the next and previous day, month and year, and the depth limit alone bounded it
(13,068 pages). The crawl now cuts it as a possible trap, names its pattern, follows it
once the user allows it; and a news site of dated URLs raises no alarm."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from tests.support.calendarsite import CalendarSite, NewsSite
from tests.support.interrupted import recrawl

pytestmark = pytest.mark.slow

START = date(2027, 1, 1)
NOW = "2027-01-01T00:00:00Z"
FAST = ("--delay", "0", "--per-host", "4")


@pytest.fixture
def calendar_site() -> Iterator[CalendarSite]:
    site = CalendarSite(START)
    yield site
    site.stop()


@pytest.fixture
def news_site() -> Iterator[NewsSite]:
    # 120 days of news, day archives, sections of 4 pages, 10 galleries of 12 photos
    site = NewsSite(START, days=120, galleries=10, photos=12)
    yield site
    site.stop()


def project_of(tmp_path: Path, seed: str) -> Path:
    d = tmp_path / "p"
    recrawl("init", d)
    recrawl("inject", d, seed)
    return d


def fetched(site, prefix: str) -> set[str]:
    """The distinct paths under ``prefix`` the crawl asked the site for."""
    with site.lock:
        return {path for path in site.hits if path.startswith(prefix)}


def test_an_endless_calendar_is_cut_as_a_possible_trap_and_followed_once_allowed(
    tmp_path, calendar_site
):
    site = calendar_site
    d = project_of(tmp_path, site.url("/"))
    # a depth limit far off: the calendar would run to it (issue 25: 13,068 pages at 50)
    recrawl("settings", d, "--set", "traps.max_depth=500")
    done = recrawl("crawl", d, *FAST, "--now", NOW)

    by_path = site.url("/cal/{year}/{month}/{day}")
    by_query = site.url("/cal?d={day}&m={month}&y={year}")  # the query sorted, as kept
    for pattern in (by_path, by_query):
        assert f"warning: possible trap: {pattern}: " in done.stderr
        assert re.search(
            rf"possible trap {re.escape(pattern)}: [\d,]+ links held back this crawl "
            r"\(traps\.max_lattice\)",
            done.stderr,
        ), done.stderr[-3000:]
    days, queries = fetched(site, "/cal/"), fetched(site, "/cal?")
    assert 50 <= len(days) < 300 and 50 <= len(queries) < 300
    # the link that made the pattern a lattice, named, was never asked for
    named = re.search(
        rf"possible trap: {re.escape(by_path)}: .*?; (\S+) and further links", done.stderr
    )
    assert named is not None
    held = named.group(1).removeprefix(site.url(""))
    assert held.startswith("/cal/") and held not in days

    # allowed as reported: a revisit (a month on, every page due) follows the calendar;
    # the other form stays held back from the first of its links
    recrawl("settings", d, "--set", f"traps.allowed_patterns={by_path}")
    done = recrawl(
        "crawl", d, *FAST, "--now", "2027-02-01T00:00:00Z", "--max-pages", "500", "--json"
    )
    summary = json.loads(done.stdout)
    assert [(t["pattern"], t["kind"]) for t in summary["possible_traps"]] == [(by_query, "lattice")]
    assert summary["possible_traps"][0]["held"] > 0
    assert summary["fetched"] == 500  # the crawl went on: ended by --max-pages
    assert held in fetched(site, "/cal/")
    assert len(fetched(site, "/cal/")) > len(days) + 100
    assert fetched(site, "/cal?") == queries


def test_a_news_site_of_dated_urls_raises_no_alarm(tmp_path, news_site):
    site = news_site
    d = project_of(tmp_path, site.url("/"))
    done = recrawl("crawl", d, *FAST, "--now", NOW)

    assert "possible trap" not in done.stderr, done.stderr[-3000:]
    listed = json.loads(recrawl("urls", d, "--json").stdout)
    months = len({(day.year, day.month) for day in site.days})
    # home, the days' archives and stories, months, sections' pages, galleries and photos
    every = 1 + 120 * 2 + months + 3 * 4 + 10 * (1 + 12)
    assert len(listed) == every
    assert {page["status"] for page in listed} == {"fetched"}
