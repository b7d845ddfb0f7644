"""Commit batches (core/store/commits.py): what one batch does to pages other batches touch."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.store.models import Page, PageKind

from tests.support.stores import store_kind  # noqa: F401  # every test on both stores

HOME, FRAME = "http://a.example/", "http://a.example/frame.html"


def _home_and_embed(now: datetime) -> tuple[int, int]:
    """A page and an embed it embeds, due (as the round that fetches it finds it)."""
    store.add_pages([store.NewPage(HOME, "a.example", now, 10.0)], now)
    frame = store.NewPage(FRAME, "a.example", now, 10.0, kind=PageKind.EMBED)
    store.add_pages([frame], now)
    ids = store.page_ids([HOME, FRAME])
    return ids[HOME], ids[FRAME]


def _embed_fetch(batch: store.CommitBatch, frame: int, now: datetime) -> None:
    """The embed's fetch as a round records it: its next fetch pushed on by its interval."""
    batch.page_updates.append((frame, {"next_fetch": now + timedelta(days=12)}))
    batch.embed_fetches.add(frame)


@pytest.mark.parametrize("order", ["promotion first", "same batch", "embed fetch first"])
def test_an_embed_fetched_as_one_while_a_link_makes_it_a_page_is_due_as_a_page(project, order):
    """§14: an embed a page links to becomes a page and is fetched as one at once; its
    fetch as an embed in the same round (before, with, or after the commit of the link)
    followed none of its links, so it must not push the page's first fetch on."""
    now = utcnow()
    home, frame = _home_and_embed(now)
    link, fetch = store.CommitBatch(segment="s"), store.CommitBatch(segment="s")
    link.links.append((home, FRAME))
    _embed_fetch(fetch, frame, now)
    if order == "same batch":
        _embed_fetch(link, frame, now)
        batches = [link]
    else:
        batches = [link, fetch] if order == "promotion first" else [fetch, link]
    for batch in batches:
        store.commit_batch(batch, now)
    page = Page.get_by_id(frame)
    assert page.kind == PageKind.PAGE
    assert page.next_fetch <= now, f"the promoted page waits until {page.next_fetch}"


def test_an_embed_fetch_no_link_promoted_keeps_its_interval(project):
    now = utcnow()
    _, frame = _home_and_embed(now)
    batch = store.CommitBatch(segment="s")
    _embed_fetch(batch, frame, now)
    store.commit_batch(batch, now)
    page = Page.get_by_id(frame)
    assert page.kind == PageKind.EMBED
    assert page.next_fetch == now + timedelta(days=12)
