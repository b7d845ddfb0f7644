"""A watcher goes on with the search index's build between rounds (docs/design.md §19)."""

from __future__ import annotations

from dataclasses import replace

from recrawl.core.clock import Clock
from recrawl.core.config import SearchSettings, WatchSettings
from recrawl.core.engine import LogMessage, inject
from recrawl.core.policy import choices
from recrawl.core.store.models import SearchVersion
from recrawl.core.store.search import STALE, search_state
from recrawl.core.watch.watcher import Watcher

from tests.core.watch.test_watcher import Running, Seen
from tests.support.crawling import DAY, T0, crawl, fast_settings


def test_a_watcher_completes_the_index_a_crawl_without_indexing_left(project, server):
    server.html("/", '<a href="/b">b</a><p>front page words</p>')
    choices.set_schedule("fixed", ["initial=5h"])
    inject([server.url("/")], T0)
    off = replace(fast_settings(), search=SearchSettings(index=False))
    for r in range(2):
        server.html("/b", f"<p>b version {r}</p>")
        crawl(project, off, clock=Clock(T0 + r * DAY))
    assert search_state().state == STALE and SearchVersion.select().count() == 0
    seen = Seen()
    settings = replace(fast_settings(), watch=WatchSettings(round_gap=0.0, wake_check=0.05))
    run = Running(Watcher(project, settings, observer=seen, clock=Clock(T0 + 2 * DAY)))
    try:
        seen.wait(
            lambda: any("search index complete" in e.text for e in seen.of(LogMessage)),
            "the index built between rounds",
        )
    finally:
        run.end()
    assert search_state().complete
    # the front page once, /b's two versions, and the round's own fetches (revisits)
    assert SearchVersion.select().count() == 3
