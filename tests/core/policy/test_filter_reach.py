"""A chain applied to the pages already known (docs/design.md §10, issue 13 point 6)."""

from __future__ import annotations

import tempfile
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recrawl.core import store
from recrawl.core.engine import inject
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import parse_chain
from recrawl.core.policy import choices
from recrawl.core.policy.filter_impact import known_urls, preview
from recrawl.core.policy.filter_reach import PENDING, filtered_reason
from recrawl.core.policy.sites import remove_site
from recrawl.core.project import Project
from recrawl.core.store.models import Page, PageStatus, RejectedLink

from tests.core.filters.test_compiled import chains, urls
from tests.support.crawling import T0, clock_at, crawl, page
from tests.support.httpserver import Reply

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
OLD = 12  # pages under /old/ the edit filters

NO_OLD = """[[filter]]
kind = "regex"
name = "no-old"
rules = '''
-/old/
+.
'''

"""


def site(server) -> None:
    """A front page linking to 3 pages to keep and :data:`OLD` pages under /old/."""
    keep = [f"/keep/{i}" for i in range(3)]
    old = [f"/old/{i}" for i in range(OLD)]
    server.html("/", "".join(f'<a href="{p}">{p}</a> ' for p in keep + old))
    for path in keep + old:
        server.html(path, f"<html><body><p>{path}</p></body></html>")


def old_hits(server) -> int:
    return sum(server.hits_for(f"/old/{i}") for i in range(OLD))


def test_an_applied_chain_filters_known_pages_and_a_later_one_brings_them_back(project, server):
    site(server)
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    assert old_hits(server) == OLD  # each fetched once
    before = choices.chain_text()
    edited = NO_OLD + before

    # the preview counts them: known pages that would be filtered
    result = preview(choices.project_chain(), parse_chain(edited), known_urls())
    assert (result["newly_filtered"], result["coming_back"]) == (OLD, 0)
    assert result["newly_rejected"] == OLD

    applied_at = T0 + HOUR
    applied = choices.apply_chain(edited, applied_at)
    assert (applied.reach.filtered, applied.reach.back) == (OLD, 0)
    old = server.url("/old/3")
    assert page(old).status == PageStatus.FILTERED
    assert page(old).last_fetched is not None  # its capture and history are kept
    assert len(store.history(page(old))) == 1
    assert page(server.url("/keep/1")).status == PageStatus.FETCHED  # untouched
    assert [row["url"] for row in store.list_pages(PageStatus.FILTERED)] == [
        server.url(f"/old/{i}") for i in range(OLD)
    ]

    # the next crawl, when everything else is due again, asks the server for none of them
    keep_hits = server.hits_for("/keep/1")
    summary = crawl(project, clock=clock_at(30 * DAY))
    assert summary.fetched == 4  # "/" and /keep/*
    assert server.hits_for("/keep/1") == keep_hits + 1
    assert old_hits(server) == OLD
    assert page(old).status == PageStatus.FILTERED

    # why not crawled: the filter, its line and rule, since when
    reason = filtered_reason(old, choices.project_chain())
    assert reason is not None
    assert reason.describe() == "filtered by no-old (filter 0), line 1: -/old/"
    assert reason.since == applied_at  # the links met again did not move it
    assert filtered_reason(server.url("/keep/1"), choices.project_chain()) is None

    # a later chain that accepts them brings them back, due now, their record cleared
    result = preview(choices.project_chain(), parse_chain(before), known_urls())
    assert (result["newly_filtered"], result["coming_back"]) == (0, OLD)
    back_at = T0 + 31 * DAY
    assert choices.apply_chain(before, back_at).reach.back == OLD
    assert page(old).status == PageStatus.UNFETCHED
    assert page(old).next_fetch == back_at
    assert store.rejected_link(old) is None
    crawl(project, clock=clock_at(31 * DAY + timedelta(minutes=1)))
    assert old_hits(server) == 2 * OLD  # each fetched once more
    assert page(old).status == PageStatus.FETCHED


def test_a_chain_applied_during_a_crawl_is_followed_from_the_next_round(project, server):
    server.html("/", '<a href="/hub">hub</a>')
    server.html("/keep/1", "<p>kept</p>")
    server.html("/old/1", "<p>old</p>")
    inject([server.url("/")], T0)
    edited = NO_OLD + choices.chain_text()

    def hub(_request) -> Reply:
        # the chain is applied (another thread, its own connection, as in the app) while
        # the crawl fetches /hub: the crawl judges /hub's links by the chain it started with
        def apply() -> None:
            with project.active():  # a thread of its own enters its project first
                choices.apply_chain(edited, T0)
                store.close_database()

        worker = threading.Thread(target=apply)
        worker.start()
        worker.join()
        return Reply(200, b'<a href="/old/1">old</a> <a href="/keep/1">keep</a>')

    server.routes["/hub"] = hub
    crawl(project, clock=clock_at())
    assert server.hits_for("/keep/1") == 1
    assert server.hits_for("/old/1") == 0  # added by the old chain, filtered before its round
    assert page(server.url("/old/1")).status == PageStatus.FILTERED
    record = store.rejected_link(server.url("/old/1"))
    assert record is not None and record.filter == "no-old"


def test_an_apply_that_died_half_way_is_finished_by_the_next_crawl(project, server):
    site(server)
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    # the chain was saved, then the process died before any page changed
    store.set_setting("filter_chain", NO_OLD + choices.chain_text())
    store.set_setting(PENDING, True)
    crawl(project, clock=clock_at(30 * DAY))
    assert old_hits(server) == OLD  # none fetched again
    assert len(list(store.list_pages(PageStatus.FILTERED))) == OLD
    assert store.get_setting(PENDING) is None


def test_a_fetch_in_flight_when_its_page_is_filtered_keeps_it_filtered(project):
    inject(["http://a.example/x"], T0)
    target = page("http://a.example/x")
    choices.apply_chain(NO_OLD.replace("-/old/", "-/x$") + choices.chain_text(), T0)
    # what a round that fetched the page meanwhile commits
    batch = store.CommitBatch(segment="none")
    batch.page_updates.append(
        (target.id, {"status": PageStatus.FETCHED, "next_fetch": T0 + DAY, "last_fetched": T0})
    )
    store.commit_batch(batch, T0)
    kept = page("http://a.example/x")
    assert kept.status == PageStatus.FILTERED and kept.next_fetch == store.NEVER
    assert kept.last_fetched == T0  # what the fetch recorded stays


def test_filtered_pages_are_never_due_nor_made_due(project):
    inject(["http://a.example/", "http://a.example/x"], T0)
    Page.update(status=PageStatus.FILTERED).where(Page.url == "http://a.example/x").execute()
    # even with a next fetch in the past (a store an older Recrawl wrote)
    assert [p.url for p in store.due_pages(T0 + DAY, 10)] == ["http://a.example/"]
    refs, _ = store.due_page_refs(T0 + DAY, 10, 10)
    assert [r.url for r in refs] == ["http://a.example/"]
    store.make_due(["http://a.example/x"], T0)
    store.make_hosts_due(["a.example"], T0)
    assert page("http://a.example/x").status == PageStatus.FILTERED


def test_inject_brings_a_removed_sites_pages_back_and_says_why_while_out(project):
    inject(["http://a.example/", "http://b.example/"], T0)
    store.add_pages([store.NewPage("http://a.example/x", "a.example", T0, 3600.0)], T0)
    remove_site("a.example", T0 + HOUR)
    assert page("http://a.example/x").status == PageStatus.FILTERED
    reason = filtered_reason("http://a.example/x", choices.project_chain())
    assert reason is not None and reason.filter_name == "scope" and reason.line is None
    assert reason.describe().endswith("no rule matched")
    assert reason.since == T0 + HOUR
    inject(["http://a.example/"], T0 + DAY)
    assert page("http://a.example/x").status == PageStatus.UNFETCHED
    assert page("http://a.example/x").next_fetch == T0 + DAY


def test_a_site_cannot_be_removed_when_no_scope_limits_the_hosts(project):
    inject(["http://a.example/"], T0)
    chain = choices.project_chain()
    chain.filters = [f for f in chain.filters if f.name != "scope"]
    choices.set_chain(chain.to_toml())
    with pytest.raises(InvalidArgument, match="every host is in the crawl"):
        remove_site("a.example")
    assert page("http://a.example/").status == PageStatus.UNFETCHED


def test_a_page_filtered_before_records_were_kept_says_what_the_chain_says(project):
    inject(["http://a.example/"], T0)
    # a site removed by an older Recrawl: filtered, no record
    Page.update(status=PageStatus.FILTERED, next_fetch=store.NEVER).execute()
    choices.apply_chain(NO_OLD.replace("-/old/", "-a\\.example") + choices.chain_text(), T0)
    # the apply wrote the record it lacked (the page stays filtered)
    record = store.rejected_link("http://a.example/")
    assert record is not None and (record.filter, record.line) == ("no-old", 1)


def test_progress_follows_the_pages_judged(project):
    store.add_pages(
        [store.NewPage(f"http://a.example/{i}", "a.example", T0, 3600.0) for i in range(30)], T0
    )
    seen: list[tuple[int, int]] = []
    choices.apply_chain(choices.chain_text(), T0, progress=lambda *p: seen.append(p))
    assert seen[0] == (0, 30) and seen[-1] == (30, 30)


# -- the property: after an apply, filtered ⇔ the chain rejects --------------------------

_statuses = st.sampled_from(PageStatus.ALL)


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory() as folder:
        project = Project.init(Path(folder) / "proj")
        yield project
        project.close()


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    chains(),
    st.lists(st.tuples(urls.filter(bool), _statuses, st.booleans()), max_size=20),
    st.booleans(),
)
def test_after_an_apply_a_page_is_filtered_exactly_when_the_chain_rejects_it(
    scratch, chain, pages, widened
):
    Page.delete().execute()
    RejectedLink.delete().execute()
    rows = {url: (status, recorded) for url, status, recorded in pages}
    store.add_pages([store.NewPage(url, "h", T0, 3600.0) for url in rows], T0)
    for url, (status, recorded) in rows.items():
        due = store.NEVER if status == PageStatus.FILTERED else T0
        Page.update(status=status, next_fetch=due).where(Page.url == url).execute()
        if recorded:  # a link once turned away, or a page filtered by an older chain
            store.record_rejected([(url, "old", 7)], T0)
    before = {p.url: (p.status, p.next_fetch) for p in Page.select()}
    now = T0 + DAY
    applied = choices.apply_chain(
        chain.to_toml(), now, hosts=["h"] if widened else None
    )  # every page is of host "h": the same pages are judged either way
    fast = applied.chain
    for p in Page.select():
        verdict = fast.check(p.url)
        record = store.rejected_link(p.url)
        was_status, was_due = before[p.url]
        if not verdict.accepted:
            assert p.status == PageStatus.FILTERED
            assert p.next_fetch == store.NEVER
            assert record is not None
            assert (record.filter, record.line) == (verdict.filter_name, verdict.line)
        elif was_status == PageStatus.FILTERED:  # back, due now, its record gone
            assert (p.status, p.next_fetch, record) == (PageStatus.UNFETCHED, now, None)
        else:  # accepted and not filtered: untouched
            assert (p.status, p.next_fetch) == (was_status, was_due)
            assert (record is None) == (not rows[p.url][1])
