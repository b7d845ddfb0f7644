"""Switching signature recomputes the stored ones (issue 13 point 5): never "unknown" after."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.engine.re_signing import ReSigningProgress, recompute_signatures, switch_signature
from recrawl.core.policy import choices
from recrawl.core.policy.signature import make_signature
from recrawl.core.store.models import Page
from recrawl.core.store.signatures import count_other_kind

from tests.support.crawling import DAY, clock_at, crawl, events_of, page

STORY = (
    "<p>Surveyors returned from the summit of the Grossberg last week with new measurements "
    "of the highest peak in the eastern range. Their instruments put the summit higher "
    "than the old maps say.</p><p>The survey team spent four days on the mountain, using "
    "satellite receivers and a laser rangefinder to measure the rock beneath the snow.</p>"
)


def story(extra: str = "", clock: str = "18:42", links: str = "") -> str:
    return (
        f"<html><head><title>Grossberg</title></head><body><nav>{links}</nav>"
        f"<div class='clock'>{clock}</div><article><h1>The Grossberg is taller</h1>"
        f"{STORY}{extra}</article></body></html>"
    )


@pytest.fixture
def site(project, server):
    """Three pages crawled once with text-profile; then the server has the next versions."""
    choices.set_signature("text-profile")
    server.html("/", '<a href="/same">s</a> <a href="/edited">e</a> <a href="/linked">l</a>')
    for path in ("/same", "/edited", "/linked"):
        server.html(path, story())
    inject([server.url("/")], utcnow())
    crawl(project, clock=clock_at())
    assert {p.signature_kind for p in Page.select()} == {"text-profile"}
    # the next versions: only noise on /same, one added sentence on /edited (which
    # text-profile would miss), a new link on /linked
    server.html("/same", story(clock="07:15"))
    server.html("/edited", story("<p>Correction: the summit is 2,345 m, not 2,435 m.</p>"))
    server.html("/linked", story(links='<a href="/new">new</a>'))
    server.html("/new", story())
    return server


def revisit(project):
    crawl(project, clock=clock_at(timedelta(days=400)))


def last_change(url: str) -> str:
    return str(events_of(url)[-1].change)


def test_after_a_switch_the_next_fetch_compares_like_with_like(project, site):
    progress: list[ReSigningProgress] = []
    state = switch_signature(project.path, "main-text", progress=progress.append)
    assert choices.project_signature().kind == "main-text"
    assert (state.total, state.recomputed, state.unreadable, state.skipped) == (4, 4, 0, 0)
    assert state.finished and progress[-1] == state
    assert {p.signature_kind for p in Page.select()} == {"main-text"}
    assert count_other_kind("main-text") == 0
    revisit(project)
    assert last_change(site.url("/same")) == "unchanged"
    assert last_change(site.url("/edited")) == "changed"
    # a link added to the navigation is no change of the main text
    assert last_change(site.url("/linked")) == "unchanged"
    assert last_change(site.url("/")) == "unchanged"


def test_the_recomputed_signature_is_the_one_a_fetch_computes(project, site):
    switch_signature(project.path, "main-text")
    before = {p.url: p.signature for p in Page.select()}
    site.html("/edited", story())  # back to what was archived
    site.html("/linked", story())
    revisit(project)
    after = {p.url: p.signature for p in Page.select()}
    assert before == after
    assert all(e[-1].change == "unchanged" for e in map(events_of, before))


def test_outlinks_are_recomputed_from_the_archived_links(project, site):
    switch_signature(project.path, "outlinks")
    home = page(site.url("/"))
    assert home.signature_kind == "outlinks" and len(home.signature) == 3 * 8  # three links
    revisit(project)
    assert last_change(site.url("/linked")) == "changed"  # a new link appeared
    assert last_change(site.url("/edited")) == "unchanged"  # no new link
    assert last_change(site.url("/")) == "unchanged"


def test_a_page_whose_payload_cannot_be_read_gets_no_signature(project, site):
    edited = page(site.url("/edited"))
    warc = project.path / edited.payload_file
    for other in Page.select().where(Page.payload_file == edited.payload_file):
        assert other.payload_file == edited.payload_file
    warc.write_bytes(b"not a WARC any more")
    state = switch_signature(project.path, "md5")
    broken = Page.select().where(Page.payload_file == edited.payload_file).count()
    assert broken >= 1
    assert state.unreadable == broken and state.recomputed == 4 - broken
    assert page(site.url("/edited")).signature is None
    assert page(site.url("/edited")).signature_kind is None
    revisit(project)
    assert last_change(site.url("/edited")) == "unknown"  # said, never wrongly "unchanged"


def test_a_stopped_recompute_leaves_every_page_consistent_and_resumes(project, site):
    stop = threading.Event()
    seen: list[ReSigningProgress] = []

    def after_each_batch(state: ReSigningProgress) -> None:
        seen.append(state)
        if state.done >= 2:
            stop.set()

    state = recompute_signatures(  # a batch of one page: the stop comes between pages
        project.path,
        choices.set_signature("main-text"),
        progress=after_each_batch,
        stop=stop,
        batch=1,
    )
    assert state.stopped and not state.finished and state.done == 2
    kinds = [p.signature_kind for p in Page.select().order_by(Page.id)]
    assert kinds.count("main-text") == 2 and kinds.count("text-profile") == 2
    # a revisit now: recomputed pages compare, the others say unknown (never a wrong answer)
    resumed = switch_signature(project.path, "main-text")
    assert resumed.total == 2 and resumed.recomputed == 2
    revisit(project)
    assert last_change(site.url("/same")) == "unchanged"
    assert last_change(site.url("/edited")) == "changed"


def test_worker_processes_compute_the_same_signatures(project, site):
    inline = switch_signature(project.path, "simhash", workers=1)
    expected = {p.url: p.signature for p in Page.select()}
    choices.set_signature("text-profile")
    Page.update(signature_kind="text-profile").execute()
    pooled = recompute_signatures(project.path, make_signature("simhash"), workers=2, batch=2)
    assert pooled.recomputed == inline.recomputed == 4
    assert {p.url: p.signature for p in Page.select()} == expected


def test_a_page_fetched_meanwhile_keeps_its_new_signature(project, site):
    from recrawl.core.store.signatures import NewSignature, other_kind_pages, set_signatures

    (first, *_) = other_kind_pages("md5", 0, 10)
    # the payload it was read from is no longer the page's: a crawl fetched it since
    taken = set_signatures([NewSignature(first.id, "elsewhere.warc.gz", 0, b"x", "md5")])
    assert taken == 0
    assert Page.get_by_id(first.id).signature_kind == "text-profile"


def test_a_small_edit_is_a_change_in_a_crawl_with_the_default(project, server):
    assert choices.project_signature().kind == "main-text"
    server.html("/", story())
    inject([server.url("/")], utcnow())
    crawl(project, clock=clock_at())
    server.html("/", story("<p>The agency will publish the report in May.</p>", clock="09:01"))
    crawl(project, clock=clock_at(400 * DAY))
    server.html("/", story("<p>The agency will publish the report in May.</p>", clock="11:30"))
    crawl(project, clock=clock_at(800 * DAY))
    assert [str(e.change) for e in events_of(server.url("/"))] == [
        "unknown",
        "changed",
        "unchanged",
    ]


def test_big_payloads_make_smaller_batches(project, site, monkeypatch):
    from recrawl.core.engine import re_signing

    monkeypatch.setattr(re_signing, "BATCH_BYTES", 1)  # every payload is "big": one a batch
    seen: list[int] = []
    state = switch_signature(project.path, "md5", progress=lambda s: seen.append(s.done))
    assert seen == [0, 1, 2, 3, 4] and state.recomputed == 4


# -- change rules (docs/design.md §17): a page's kind is its rule's --------------------------


def ruled_kinds() -> dict[str, str | None]:
    return {p.url.rsplit("/", 1)[-1]: p.signature_kind for p in Page.select()}


def test_a_rule_set_re_signs_the_pages_it_covers_and_a_stop_resumes(project, site):
    from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, save_rules
    from recrawl.core.services import Services

    switch_signature(project.path, "main-text")
    rule = ChangeRule(site.url("/"), remove=(".clock",))
    save_rules(ChangeRules((rule,)))
    ruled = f"main-text+rule:{rule.digest}"
    stop = threading.Event()

    def after_each_batch(state: ReSigningProgress) -> None:
        if state.done >= 2:
            stop.set()

    state = recompute_signatures(
        project.path,
        choices.project_signature(),
        under=rule.prefix,
        progress=after_each_batch,
        stop=stop,
        batch=1,
    )
    assert state.stopped and state.done == 2 and state.total == 4 and state.kind == ruled
    assert sorted(map(str, ruled_kinds().values())) == ["main-text"] * 2 + [ruled] * 2
    # set again: only the two left, the others are of their kind already
    resumed = Services(project).changes.set(rule)
    assert (resumed.total, resumed.recomputed, resumed.finished) == (2, 2, True)
    assert set(ruled_kinds().values()) == {ruled}
    again = Services(project).changes.set(rule)
    assert again.total == 0
    assert again.summary("run it again") == (
        f"every page under {rule.prefix} is already signed as its change rule says"
    )
    revisit(project)  # compared like with like: never "unknown" after a rule change
    assert last_change(site.url("/same")) == "unchanged"
    assert last_change(site.url("/edited")) == "changed"


def test_a_rule_re_signs_only_under_its_prefix_and_a_switch_keeps_the_rules(project, site):
    from recrawl.core.policy.change_rules import ChangeRule
    from recrawl.core.services import Services

    rule = ChangeRule(site.url("/edited"), ignore=("Correction: .*",))
    state = Services(project).changes.set(rule)
    assert (state.total, state.recomputed) == (1, 1)
    kinds = ruled_kinds()
    assert kinds["edited"] == f"text-profile+rule:{rule.digest}"
    assert {kinds[p] for p in ("same", "linked", "")} == {"text-profile"}
    # a switch of signature signs each page as its rule says, under the new kind
    switch_signature(project.path, "md5")
    kinds = ruled_kinds()
    assert kinds["edited"] == f"md5+rule:{rule.digest}"
    assert {kinds[p] for p in ("same", "linked", "")} == {"md5"}
    revisit(project)
    assert last_change(site.url("/edited")) == "unchanged"  # the correction is ignored
    # unset: back to the project's kind, re-signed
    Services(project).changes.unset(rule.prefix)
    assert set(ruled_kinds().values()) == {"md5"}
