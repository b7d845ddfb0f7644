"""Re-planning (issue 25 item 2): a schedule change reaches the pages already known, each
page's next fetch moved to fit the new bounds, in the transaction that saves the
schedule; on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import hypothesis
import pytest
from hypothesis import strategies as st
from recrawl.core import store
from recrawl.core.policy import choices
from recrawl.core.policy.replan import Replanned
from recrawl.core.policy.schedule import Change, ScheduleInput
from recrawl.core.policy.schedules import make_schedule, schedule_names
from recrawl.core.store.models import Page, PageStatus

from tests.support.crawling import DAY, T0
from tests.support.stores import store_kind  # noqa: F401  # one transaction on both stores

HOUR = timedelta(hours=1)
NOW = T0 + 2 * HOUR
TWELVE = 12 * 86400.0


def put(url: str, status: str, *, last=T0, due=T0 + 12 * DAY, interval=TWELVE, **extra) -> None:
    host = url.split("/")[2]
    store.add_pages([store.NewPage(url, host, due, interval)], T0)
    Page.update(status=status, last_fetched=last, next_fetch=due, fetch_interval=interval,
                **extra).where(Page.url == url).execute()  # fmt: skip


def row(url: str) -> Page:
    return Page.get(Page.url == url)


@pytest.fixture
def known(project):
    put("http://a.example/fetched", PageStatus.FETCHED)
    put("http://a.example/gone", PageStatus.GONE, due=T0 + 18 * DAY, interval=18 * 86400.0)
    put("http://a.example/retry", PageStatus.RETRY, due=T0 + DAY)
    put("http://a.example/new", PageStatus.UNFETCHED, last=None, due=T0, interval=10 * 86400.0)
    put("http://a.example/due", PageStatus.FETCHED, due=T0 + HOUR)
    put("http://a.example/old", PageStatus.FETCHED, last=T0 - 5 * DAY, due=T0 + 7 * DAY)
    # refused by robots.txt at T0 after a fetch long before: counted from the refusal
    put("http://a.example/denied", PageStatus.ROBOTS_DENIED, last=T0 - 90 * DAY)
    put("http://a.example/pinned", PageStatus.FETCHED, metadata={"fixed_interval": TWELVE})
    put("http://a.example/filtered", PageStatus.FILTERED, due=store.NEVER)
    put("http://slow.example/fetched", PageStatus.FETCHED)
    put("http://a.example/short", PageStatus.FETCHED, due=T0 + 6 * HOUR, interval=6 * 3600.0)
    return project


def test_a_lower_max_brings_every_page_within_a_day_of_its_last_fetch(known):
    saved = choices.set_schedule(None, ["max=1d", "max@slow.example=20d"], now=NOW)
    # fetched, gone, old, denied move; retry, new and due keep their turn
    assert saved.replanned == Replanned(moved=4, intervals=3)
    assert (row("http://a.example/fetched").next_fetch, row("http://a.example/fetched")
            .fetch_interval) == (T0 + DAY, 86400.0)  # fmt: skip
    assert row("http://a.example/gone").next_fetch == T0 + DAY
    # a day after its last fetch is past: now, never before (NUTCH-1564)
    assert row("http://a.example/old").next_fetch == NOW
    assert row("http://a.example/denied").next_fetch == T0 + DAY
    for url, due in (("retry", T0 + DAY), ("new", T0), ("due", T0 + HOUR)):
        page = row(f"http://a.example/{url}")
        assert (page.next_fetch, page.fetch_interval) == (due, 86400.0), url
    # within their bounds already, the user's own interval, or filtered: as they were
    assert row("http://slow.example/fetched").next_fetch == T0 + 12 * DAY
    assert row("http://a.example/short").next_fetch == T0 + 6 * HOUR
    pinned = row("http://a.example/pinned")
    assert (pinned.next_fetch, pinned.fetch_interval) == (T0 + 12 * DAY, TWELVE)
    assert row("http://a.example/filtered").next_fetch == store.NEVER
    # the same again: nothing to move
    assert choices.set_schedule(None, ["max=1d"], now=NOW).replanned == Replanned(0, 0)


def test_a_higher_min_moves_short_intervals_later(known):
    saved = choices.replace_schedule("aronsson", ["min=1d"], now=NOW)
    assert saved.replanned == Replanned(moved=1, intervals=0)
    assert row("http://a.example/short").next_fetch == T0 + DAY


def test_a_fixed_schedule_plans_every_page_at_its_one_interval(known):
    saved = choices.set_schedule("fixed", ["initial=3d"], now=NOW)
    assert saved.replanned == Replanned(moved=6, intervals=3)  # retry, new, due: their turn
    assert row("http://a.example/short").next_fetch == T0 + 3 * DAY
    assert row("http://slow.example/fetched").fetch_interval == 3 * 86400.0


def test_the_schedule_and_its_replanning_are_one_transaction(known, monkeypatch):
    before = store.get_setting("schedule")
    real = store.plan_pages

    def fail_after_writing(plans):
        real(plans)
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(store, "plan_pages", fail_after_writing)
    with pytest.raises(RuntimeError):
        choices.set_schedule(None, ["max=1d"], now=NOW)
    assert store.get_setting("schedule") == before
    assert row("http://a.example/fetched").fetch_interval == TWELVE
    assert row("http://a.example/fetched").next_fetch == T0 + 12 * DAY


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    name=st.sampled_from(schedule_names()),
    interval=st.floats(min_value=1, max_value=400 * 86400.0),
    change=st.sampled_from(list(Change)),
    bounds=st.tuples(st.floats(60, 2 * 86400.0), st.floats(3 * 86400.0, 200 * 86400.0)),
)
def test_what_a_fetch_decides_lies_in_the_range_replanning_keeps(name, interval, change, bounds):
    """A page re-planned into a schedule's range is where its next fetch would put it:
    re-planning a page just fetched by that schedule moves nothing."""
    low, high = bounds
    schedule = make_schedule(
        name, min=low, max=high, hosts={"slow.example": {"max": 300 * 86400.0}}
    )
    for host in ("a.example", "slow.example"):
        first, last = schedule.interval_range(host)
        decided = schedule.after_fetch(
            ScheduleInput(host=host, interval=interval, fetched_at=T0), change
        ).interval
        assert first - 1e-6 <= decided <= last + 1e-6
