"""The crawl's writes: one batch of results applied in one transaction, and scores.

A round hands its results over in slices (:class:`CommitBatch`): pages updated, fetch
events and the news they make, new pages and links, rejected links, OPIC cash;
:func:`commit_batch` applies a slice atomically, together with how far the segment's
WARC is committed (so a kill never leaves a fetch event without its news item).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from peewee import fn
from recrawl.core.content.search_text import IndexedText
from recrawl.core.store.baselines import record_baseline_pages
from recrawl.core.store.captures import CaptureRow, add_captures
from recrawl.core.store.embeds import (
    Completeness,
    promote_linked,
    promoted_due,
    record_completeness,
)
from recrawl.core.store.filtered import filtered_ids, keep_filtered
from recrawl.core.store.models import DB, FetchEvent, Link, News, Page, PageKind, Segment
from recrawl.core.store.pages import NewPage, insert_pages, page_ids_and_embeds
from recrawl.core.store.rejected import record_rejected
from recrawl.core.store.search import STALE, add_texts, search_state, set_search_state
from recrawl.core.store.sources import NewSource, insert_sources
from recrawl.core.store.sql import chunks, executemany, insert_rows, update_pages, writing
from recrawl.core.store.workers import check_leases


@dataclass
class CommitBatch:
    """What one slice of a round changes; applied atomically by :func:`commit_batch`."""

    segment: str
    committed_bytes: int = 0
    records: int = 0
    page_updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # keyed by page id
    #: News items (docs/design.md §10): (page id, host, at, kind).
    news: list[tuple[int, str, datetime, str]] = field(default_factory=list)
    #: Pages archived by their host's first crawl (docs/design.md §15): (page id, host, at),
    #: counted into its baseline instead of being news of their own.
    baseline: list[tuple[int, str, datetime]] = field(default_factory=list)
    new_pages: list[NewPage] = field(default_factory=list)
    links: list[tuple[int, str]] = field(default_factory=list)  # (source page id, target url)
    rejected: list[tuple[str, str, int | None]] = field(default_factory=list)
    #: Pages whose in-link count must be recounted (inlinks scoring; see rescore_inlinks).
    rescore: set[str] = field(default_factory=set)
    #: OPIC cash handed to pages: (url, amount), and paid out by fetched pages.
    cash: list[tuple[str, float]] = field(default_factory=list)
    payouts: list[tuple[str, float]] = field(default_factory=list)
    #: Feeds pages advertise (docs/design.md §11), read from the next round on.
    sources: list[NewSource] = field(default_factory=list)
    #: Page captures whose embeds are all done: what they found (docs/design.md §14).
    completeness: list[Completeness] = field(default_factory=list)
    #: The ids of ``page_updates`` that are fetches of embeds: a worker fetches those
    #: wherever they are hosted (§14), even once a link made one a page meanwhile.
    embed_fetches: set[int] = field(default_factory=set)
    #: The captures the segment's WARC holds up to ``committed_bytes`` that no batch
    #: before carried: findable from this commit on (the capture table, docs/design.md §7).
    captures: list[CaptureRow] = field(default_factory=list)
    #: The texts of the pages' new versions among them, for search (docs/design.md §19).
    texts: list[IndexedText] = field(default_factory=list)
    #: A page's new version was committed without its text (``search.index`` off): the
    #: index is marked stale, for the background build to complete.
    unindexed: bool = False

    def __len__(self) -> int:
        return len(self.page_updates)

    def snapshot(self) -> tuple[int, ...]:
        """Sizes to :meth:`restore` to, taking back entries added since."""
        return (
            self.records, len(self.page_updates), len(self.events), len(self.news),
            len(self.new_pages), len(self.links), len(self.rejected), len(self.cash),
            len(self.payouts), len(self.sources), len(self.completeness), len(self.baseline),
            len(self.texts),
        )  # fmt: skip

    def restore(self, sizes: tuple[int, ...]) -> None:
        records, updates, events, news, new_pages, links, rejected, cash, payouts, *rest = sizes
        sources, completeness, baseline, texts = rest
        self.records = records
        del self.page_updates[updates:], self.events[events:], self.news[news:]
        del self.new_pages[new_pages:], self.links[links:], self.rejected[rejected:]
        del self.cash[cash:], self.payouts[payouts:], self.sources[sources:]
        del self.completeness[completeness:], self.baseline[baseline:], self.texts[texts:]


def commit_batch(batch: CommitBatch, now: datetime, worker: str | None = None) -> int:
    """Apply a batch in one transaction; returns how many new pages it added.

    ``worker``: the batch is a crawl worker's; it is refused whole (LeaseLost) unless
    that worker still holds the host of every page it updates (docs/design.md §12).
    """
    with writing():
        if worker is not None:
            fetched = [page_id for page_id, _ in batch.page_updates]
            check_leases(worker, [i for i in fetched if i not in batch.embed_fetches])
        added = insert_pages(batch.new_pages, now) if batch.new_pages else 0
        # a page filtered while its fetch was in flight keeps its capture, and stays out
        filtered = filtered_ids([page_id for page_id, _ in batch.page_updates])
        update_pages(batch.page_updates)
        keep_filtered(filtered)
        add_captures(batch.captures)
        # with their captures: a kill leaves neither without the other
        add_texts(batch.texts)
        if batch.unindexed and (state := search_state()).state != STALE:
            set_search_state(STALE, state.format)
        if batch.events:
            insert_rows(FetchEvent, list(batch.events[0]), [list(e.values()) for e in batch.events])
        insert_rows(News, ["page", "host", "at", "kind"], batch.news)
        if batch.baseline:
            record_baseline_pages(batch.baseline)
        # a slice at a time: a page of 100,000 links makes no 100,000 rows at once
        for links in chunks(list(dict.fromkeys(batch.links)), 5000):
            ids, embeds = page_ids_and_embeds(target for _, target in links)
            rows = [[source, ids[target], now] for source, target in links if target in ids]
            insert_rows(Link, ["source", "target", "first_seen"], rows, ignore=True)
            # a page links to it and the chain accepts it: an embed becomes a page (§14)
            if embeds:
                promote_linked(embeds, now)
        if batch.embed_fetches:
            # whichever came first in the round, the promotion (an earlier commit) or
            # this fetch of it as an embed, a promoted page is fetched as a page next
            promoted_due(batch.embed_fetches, now)
        if batch.completeness:
            record_completeness(batch.completeness)
        _apply_scores(batch)
        record_rejected(batch.rejected, now)
        if batch.sources:
            insert_sources(batch.sources, now)
        Segment.update(
            committed_bytes=batch.committed_bytes,
            bytes=batch.committed_bytes,
            records=Segment.records + batch.records,
        ).where(Segment.name == batch.segment).execute()
    return added


def give_cash(amount: float) -> None:
    """Every page holds ``amount`` of OPIC cash (switching a project to OPIC); embeds
    hold none (they pay nothing out: no links of theirs are followed)."""
    Page.update(cash=amount).where(Page.kind == PageKind.PAGE).execute()


def rescore_inlinks(urls: set[str]) -> None:
    """Set each page's score to its number of known in-links."""
    inlinks = Link.select(fn.COUNT(Link.id)).where(Link.target == Page.id)
    with DB.atomic():
        for chunk in chunks(sorted(urls)):
            Page.update(score=inlinks).where(Page.url.in_(chunk)).execute()


def _apply_scores(batch: CommitBatch) -> None:
    # In-link counts (batch.rescore) are recounted once per round by the engine: a
    # popular page is linked from every batch, and counting it each time is wasted.
    if batch.cash:
        gains: dict[str, float] = {}
        for url, amount in batch.cash:
            gains[url] = gains.get(url, 0.0) + amount
        sample_url, sample_gain = next(iter(gains.items()))
        query = Page.update(cash=Page.cash + sample_gain, score=Page.score + sample_gain).where(
            Page.url == sample_url
        )
        executemany(query, [[gain, gain, url] for url, gain in gains.items()])
    if batch.payouts:
        sample_url, sample_paid = batch.payouts[0]
        query = Page.update(cash=Page.cash - sample_paid).where(Page.url == sample_url)
        executemany(query, [[paid, url] for url, paid in batch.payouts])
