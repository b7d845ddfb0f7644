"""Link discovery: the chain's verdicts into a commit batch, remembered once per crawl."""

from __future__ import annotations

from recrawl.core import store
from recrawl.core.clock import Clock
from recrawl.core.config import TrapSettings
from recrawl.core.engine import LinkRejected, LogMessage
from recrawl.core.engine.events import EventQueue
from recrawl.core.engine.links import LinkDiscoverer
from recrawl.core.engine.parse import Outlink, ParseResult
from recrawl.core.engine.traps import TrapGuard
from recrawl.core.filters import parse_chain
from recrawl.core.filters.compiled import compile_chain
from recrawl.core.policy.schedules import FixedSchedule
from recrawl.core.store.models import Page

from tests.support.crawling import Events

CHAIN = '[[filter]]\nkind = "suffix"\nname = "no-zip"\nrules = "+\\n.zip"\n'  # line 2 rejects
SITE = "http://a.example/"


def discoverer(events: Events, *, seen_limit: int = 1000, follow_nofollow: bool = False):
    queue = EventQueue(events)
    return LinkDiscoverer(
        compile_chain(parse_chain(CHAIN)),
        FixedSchedule(),
        Clock(),
        queue,
        TrapGuard(TrapSettings(), queue),
        seen_limit=seen_limit,
        follow_nofollow=follow_nofollow,
    )


def fetched(page_id: int, path: str) -> Page:
    return Page(id=page_id, url=SITE + path, host="a.example", depth=2)


def links(*paths: str, nofollow: bool = False) -> ParseResult:
    return ParseResult(links=[Outlink(SITE + p, nofollow) for p in paths])


def test_a_link_met_on_every_page_is_checked_and_recorded_once():
    events = Events()
    found = discoverer(events)
    batch = store.CommitBatch(segment="s")
    first = found.from_html(fetched(1, "p1"), links("a", "b", "x.zip", "p1"), batch)
    second = found.from_html(fetched(2, "p2"), links("a", "x.zip"), batch)
    found.events.flush()

    assert first == [SITE + "a", SITE + "b"]  # the page itself is no link target
    assert second == [SITE + "a"]
    assert [(p.url, p.depth, p.discovered_from) for p in batch.new_pages] == [
        (SITE + "a", 3, SITE + "p1"),
        (SITE + "b", 3, SITE + "p1"),
    ]
    assert batch.links == [(1, SITE + "a"), (1, SITE + "b"), (2, SITE + "a")]
    assert batch.rejected == [(SITE + "x.zip", "no-zip", 2)]
    (rejected,) = events.of(LinkRejected)
    assert (rejected.url, rejected.source, rejected.filter, rejected.line) == (
        SITE + "x.zip", SITE + "p1", 0, 2,
    )  # fmt: skip


def test_past_the_seen_limit_the_memory_starts_over_and_only_checks_again():
    events = Events()
    found = discoverer(events, seen_limit=3)
    batch = store.CommitBatch(segment="s")
    found.from_html(fetched(1, "p1"), links("a", "b", "x.zip"), batch)
    assert found.remembered == 3
    found.from_html(fetched(2, "p2"), links("c"), batch)
    assert found.remembered == 1  # forgot a, b and x.zip, then met c
    found.from_html(fetched(3, "p3"), links("a", "x.zip"), batch)
    found.events.flush()

    assert found.remembered == 3
    # a is offered to the store again (it ignores pages it has); x.zip recorded again
    assert [p.url for p in batch.new_pages] == [SITE + u for u in ("a", "b", "c", "a")]
    assert [url for url, _, _ in batch.rejected] == [SITE + "x.zip"] * 2
    assert len(events.of(LinkRejected)) == 2


def test_queued_pages_need_no_check():
    found = discoverer(Events(), seen_limit=10)
    found.remember(SITE + "q")
    batch = store.CommitBatch(segment="s")
    assert found.from_html(fetched(1, "p1"), links("q"), batch) == [SITE + "q"]
    assert batch.new_pages == [] and batch.links == [(1, SITE + "q")]


def test_nofollow_links_are_followed_only_when_asked():
    batch = store.CommitBatch(segment="s")
    assert discoverer(Events()).from_html(fetched(1, "p1"), links("n", nofollow=True), batch) == []
    assert batch.new_pages == []
    following = discoverer(Events(), follow_nofollow=True)
    assert following.from_html(fetched(1, "p1"), links("n", nofollow=True), batch) == [SITE + "n"]


def test_redirect_targets_are_resolved_and_a_bad_location_is_a_warning():
    events = Events()
    found = discoverer(events)
    batch = store.CommitBatch(segment="s")
    assert found.from_redirect(fetched(1, "r"), "/moved?b=2&a=1", batch) == [SITE + "moved?a=1&b=2"]
    assert found.from_redirect(fetched(1, "r"), "http://[bad", batch) == []
    assert found.from_redirect(fetched(1, "r"), "/r", batch) == []  # to itself
    found.events.flush()
    (warning,) = events.logs("warning")
    assert "bad redirect Location" in warning.text
    assert isinstance(warning, LogMessage)
