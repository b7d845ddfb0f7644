"""Sites: hosts with their pages, seeds and scope; taking one out of the crawl and back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from recrawl.core import store
from recrawl.core.engine import inject
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import choices
from recrawl.core.policy.refetch import refetch
from recrawl.core.policy.sites import (
    ANY_HOST,
    covering_entry,
    plan_removal,
    remove_site,
    scope_entries,
    sites_block,
)
from recrawl.core.store.models import Page, PageStatus

from tests.support.crawling import T0

HOUR = timedelta(hours=1)


def add(url: str, host: str, *, seed: bool = False, due_in: timedelta = HOUR) -> None:
    """A page as the engine adds it: seeds have no ``discovered_from``."""
    page = store.NewPage(
        url, host, T0 + due_in, 3600.0, discovered_from=None if seed else f"http://{host}/"
    )
    store.add_pages([page], T0)


@pytest.fixture
def watched(project):
    """Two seeded sites (one with a subdomain) and a page of a host out of scope."""
    inject(["http://a.example/", "http://b.example/one", "http://b.example/two"], T0)
    add("http://a.example/x", "a.example", due_in=-HOUR)
    add("http://news.a.example/y", "news.a.example")
    add("http://other.example/z", "other.example")
    return project


def summary(host: str):
    return next(s for s in sites_block(T0, None, 100).sites if s.host == host)


def test_sites_list_hosts_with_their_counts_and_scope(watched):
    block = sites_block(T0, None, 100)
    assert block.complete
    assert [s.host for s in block.sites] == [
        "a.example",
        "b.example",
        "news.a.example",
        "other.example",
    ]
    a = summary("a.example")
    assert (a.summary.pages, a.summary.seeds, a.summary.due) == (2, 1, 2)  # seed + /x
    assert a.summary.first_seed == "http://a.example/"
    assert a.summary.next_fetch == T0 - HOUR
    assert a.scope == "a.example"
    b = summary("b.example")
    assert (b.summary.pages, b.summary.seeds) == (2, 2)
    assert store.host_seeds("b.example") == ["http://b.example/one", "http://b.example/two"]
    assert summary("news.a.example").scope == "a.example"  # a domain covers its subdomains
    assert summary("other.example").scope is None and not summary("other.example").in_scope


def test_blocks_page_by_host_and_the_last_adds_entries_without_pages(watched):
    chain = choices.project_chain()
    scope = next(f for f in chain.filters if f.name == "scope")
    scope.rules_text += "c.example\n"
    choices.set_chain(chain.to_toml())
    first = sites_block(T0, None, 2)
    assert [s.host for s in first.sites] == ["a.example", "b.example"]
    assert not first.complete and first.after == "b.example"
    last = sites_block(T0, first.after, 2)
    assert [s.host for s in last.sites] == ["news.a.example", "other.example"]
    assert not last.complete
    end = sites_block(T0, last.after, 2)
    assert end.complete
    assert [(s.host, s.summary.pages, s.scope) for s in end.sites] == [
        ("c.example", 0, "c.example")
    ]


def test_removing_a_site_takes_it_out_of_scope_and_keeps_its_pages(watched):
    plan = plan_removal("news.a.example")  # in scope through a.example
    assert plan.entry == "a.example"
    assert plan.hosts == ("a.example", "news.a.example") and plan.pages == 3
    assert summary("a.example").scope == "a.example"  # nothing changed yet

    done = remove_site("news.a.example")
    assert done == plan
    assert scope_entries(choices.project_chain()) == ["b.example"]
    verdict = choices.project_chain().check("http://news.a.example/new")
    assert not verdict.accepted and verdict.filter_name == "scope"
    parked = list(Page.select().where(Page.host.in_(["a.example", "news.a.example"])))
    assert len(parked) == 3
    assert {p.status for p in parked} == {PageStatus.FILTERED}
    assert {p.next_fetch for p in parked} == {store.NEVER}
    # never due again, however late (other.example was out of scope already)
    due = {p.host for p in store.due_pages(T0 + timedelta(days=3650), 100)}
    assert due == {"b.example", "other.example"}
    a = summary("a.example")
    assert a.scope is None and a.summary.filtered == 2 and a.summary.next_fetch is None
    # refetching a site out of scope is refused: it says how to bring it back
    with pytest.raises(InvalidArgument, match="seed"):
        refetch(T0, hosts=["a.example"])
    # a seed of it again: back in scope, and its kept pages with it, due now
    inject(["http://a.example/"], T0)
    assert summary("a.example").scope == "a.example"
    back = list(Page.select().where(Page.host.in_(["a.example", "news.a.example"])))
    assert {p.status for p in back} == {PageStatus.UNFETCHED}
    assert {p.next_fetch for p in back} == {T0}
    assert summary("a.example").summary.due == 2
    assert summary("news.a.example").summary.due == 1
    assert refetch(T0, hosts=["a.example"]).made_due == 0  # nothing left to make due


def test_the_last_site_in_scope_is_not_removed_by_a_click(watched):
    remove_site("a.example")
    with pytest.raises(InvalidArgument, match="only site in scope"):
        plan_removal("b.example")
    assert scope_entries(choices.project_chain()) == ["b.example"]
    assert Page.select().where(Page.status == PageStatus.FILTERED).count() == 3


def test_a_host_out_of_scope_is_removed_by_keeping_its_pages_only(watched):
    chain_before = choices.chain_text()
    done = remove_site("other.example")
    assert (done.entry, done.hosts, done.pages) == (None, ("other.example",), 1)
    assert choices.chain_text() == chain_before
    assert Page.get(Page.host == "other.example").status == PageStatus.FILTERED


def test_without_entries_every_host_is_in_scope():
    assert covering_entry(None, "anything.example") == ANY_HOST
    assert covering_entry(["example.org"], "www.example.org") == "example.org"
    assert covering_entry(["example.org", "www.example.org"], "www.example.org") == (
        "www.example.org"
    )
    assert covering_entry(["example.org"], "badexample.org") is None
