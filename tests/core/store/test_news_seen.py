""" "Mark all as seen" under a kind or site filter marks what the filter lists, no more
(issue 25 item 14)."""

from __future__ import annotations

from recrawl.core import store

from tests.core.store.test_news import HOUR, T0, add_news, sample


def unseen() -> set[tuple[str, str]]:
    marks = store.seen_marks()
    return {(i.kind, i.url) for i in store.news_items() if store.is_unseen(i, marks)}


def counts() -> dict[tuple[str, str], int]:
    return {(g.host, g.kind): g.unseen for g in store.news_groups()}


def test_a_filtered_mark_marks_only_what_the_filter_lists(project):
    sample()  # a.example: 2 new, 1 changed; b.example: 1 new, gone, back
    listed = store.newest_news_id()
    mark = store.mark_news_seen(listed, kind="new")
    assert mark is not None and mark.at == T0 + 3 * HOUR  # the newest "new" item
    assert unseen() == {
        ("changed", "http://a.example/1"),
        ("gone", "http://b.example/1"),
        ("back", "http://b.example/1"),
    }
    assert store.unseen_news_count() == 3
    assert store.seen_mark() is None  # the mark over all the news did not move
    # the counts by day and site agree with the items
    assert counts()[("a.example", "new")] == 0 and counts()[("a.example", "changed")] == 1
    # a site filter on top: b.example's gone and back, not a.example's change
    store.mark_news_seen(listed, host="b.example")
    assert unseen() == {("changed", "http://a.example/1")}
    assert next((d.unseen, d.counts) for d in store.news_days()) == (0, {"back": 1})
    # kind and site at once; an item written after the listing stays unseen
    add_news([("http://a.example/3", T0 + 60 * HOUR, "changed")])
    store.mark_news_seen(listed, kind="changed", host="a.example")
    assert unseen() == {("changed", "http://a.example/3")}
    assert store.unseen_news_count() == 1
    # nothing of that kind listed: nothing marked
    assert store.mark_news_seen(listed, kind="gone", host="a.example") is None
    assert store.unseen_news_count() == 1


def test_marks_never_move_back_and_a_wider_mark_takes_over(project):
    sample()
    newest = store.newest_news_id()
    store.mark_news_seen(newest, host="a.example")
    store.mark_news_seen(newest, kind="new", host="b.example")
    assert len(store.seen_marks().by) == 2
    # an older listing marked again under the same filter: still seen
    store.mark_news_seen(newest - 3, host="a.example")
    assert ("changed", "http://a.example/1") not in unseen()
    # the site's mark covers one of its kinds: no new mark
    store.mark_news_seen(newest, kind="changed", host="a.example")
    assert len(store.seen_marks().by) == 2
    # the kind's mark over every site replaces b.example's "new" one
    store.mark_news_seen(newest, kind="new")
    assert {(m.kind, m.host) for m in store.seen_marks().by} == {
        (None, "a.example"),
        ("new", None),
    }
    # marking everything leaves one mark
    assert store.mark_news_seen().id == newest
    assert store.seen_marks().by == () and store.unseen_news_count() == 0
    add_news([("http://b.example/2", T0 + 70 * HOUR, "new")])
    assert unseen() == {("new", "http://b.example/2")}
