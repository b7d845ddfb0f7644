"""The notification marks (docs/design.md §17): changed by compare-and-set only, so two
processes never both claim them."""

from __future__ import annotations

from recrawl.core import store


def test_marks_change_only_from_what_was_read(project):
    assert store.notify_mark() == {}
    first = {"sent": {"k": 3}}
    assert store.swap_notify_mark({}, first)
    assert not store.swap_notify_mark({}, {"sent": {"k": 9}})  # read before: stale
    assert store.notify_mark() == first
    claimed = {**first, "claim": {"by": "me", "until": "2027-01-01T00:00:00Z"}}
    assert store.swap_notify_mark(first, claimed)
    assert not store.swap_notify_mark(first, {"sent": {"k": 5}})  # the other process
    assert store.swap_notify_mark(claimed, {"sent": {"k": 5}})
    assert store.notify_mark() == {"sent": {"k": 5}}
