"""The discovery schedule in real crawls: the engine counts a fetch's new outlinks, the
schedule learns each page's rate of them and visits hubs by it (docs/design.md §11)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from recrawl.core.clock import DAY, HOUR, Clock, utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices

from tests.support.crawling import T0, crawl, page

#: Over 2 kB: the hub is analysed by the worker processes, not inline.
FILLER = "<p>" + "Latest stories from the newsroom, updated as they are published. " * 40 + "</p>"


def hub(stories: int) -> str:
    links = " ".join(f'<a href="/story{i}">story {i}</a>' for i in range(stories))
    return f"<html><body>{FILLER}{links}</body></html>"


def at(days: float) -> Clock:
    return Clock(T0 + timedelta(days=days))


def test_a_hub_is_learned_from_its_new_links_and_visited_by_their_rate(project, server):
    choices.set_schedule("discovery", [])
    server.html("/", hub(3))
    for i in range(6):
        server.html(f"/story{i}", "<html><body><p>a story</p></body></html>")
    inject([server.url("/")], utcnow())
    crawl(project, clock=at(0))
    home = page(server.url("/"))
    assert home.outlinks is not None and len(home.outlinks) == 3 * 8
    assert home.link_rate is None  # nothing compared yet
    # not yet observed: probed again after 6 h rather than the base's 12 days
    assert home.fetch_interval == pytest.approx(6 * HOUR)

    server.html("/", hub(5))  # two new stories
    crawl(project, clock=at(0.3))
    state = page(server.url("/")).metadata["discovery"]
    assert state["k"] == 2 and state["n"] == 1
    assert state["t"] == pytest.approx(0.3 * DAY, rel=1e-3)

    server.html("/", hub(6))  # one more
    crawl(project, clock=at(0.6))
    home = page(server.url("/"))
    rate = 3 / (0.6 * DAY)
    assert home.link_rate == pytest.approx(rate, rel=1e-3)
    # a hub: T = s/√λ, with s (no hubs known when the round began) giving a hub of one
    # new link a day one fetch a day
    assert home.fetch_interval == pytest.approx(math.sqrt(DAY / rate), rel=1e-3)

    story = page(server.url("/story0"))
    assert story.link_rate == 0.0  # observed twice, no new links: no hub
    assert story.metadata["discovery"]["n"] == 2
    # ...so aronsson decides: unchanged, from the probe's 6 h
    assert story.fetch_interval == pytest.approx(1.2 * 6 * HOUR + 1800)


def test_other_schedules_keep_no_outlinks(project, server):
    server.html("/", hub(3))
    inject([server.url("/")], utcnow())
    crawl(project, clock=at(0))
    home = page(server.url("/"))
    assert home.outlinks is None and home.link_rate is None
    assert "discovery" not in (home.metadata or {})
