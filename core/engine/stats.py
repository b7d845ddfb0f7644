"""What a crawl counts, per round and in total (the meanings: :mod:`.events`, "Counts")."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from recrawl.core.engine.events import BaselineDone, CrawlSummary, RoundFinished, StatsSnapshot
from recrawl.core.engine.update import Outcome
from recrawl.core.store.models import NewsKind

#: Outcomes counted as errors; the other outcomes of a request count as fetched.
FAILED_OUTCOMES = frozenset({Outcome.FAILED, Outcome.THROTTLED})


@dataclass
class CrawlStats:
    """A crawl's totals since :meth:`started`, and the current round's queue size."""

    rounds: int = 0
    fetched: int = 0
    errors: int = 0
    new_urls: int = 0
    #: News (docs/design.md §10): pages fetched successfully for the first time; changed,
    #: gone and back pages; pages archived by their host's first crawl (§15).
    new_pages: int = 0
    changed_pages: int = 0
    gone_pages: int = 0
    back_pages: int = 0
    baseline_pages: int = 0
    #: What pages embed (docs/design.md §14), counted apart: fetched, and failed.
    embeds_fetched: int = 0
    embed_errors: int = 0
    segments: list[str] = field(default_factory=list)
    #: Pages queued for the current (or last) round, and how many of them are done.
    queued: int = 0
    round_done: int = 0
    _started: float = field(default=0.0, repr=False)

    @property
    def attempts(self) -> int:
        return self.fetched + self.errors

    def started(self) -> None:
        self._started = time.perf_counter()

    def elapsed_s(self) -> float:
        return time.perf_counter() - self._started

    def pages_per_s(self) -> float:
        elapsed = self.elapsed_s()
        return self.fetched / elapsed if elapsed > 0 else 0.0

    def start_round(self, segment: str, queued: int) -> RoundStats:
        self.rounds += 1
        self.queued = queued
        self.round_done = 0
        return RoundStats(self.rounds, segment, queued, self)

    def snapshot(self, paused: bool) -> StatsSnapshot:
        return StatsSnapshot(
            round=self.rounds,
            queued=self.queued,
            round_done=self.round_done,
            fetched=self.fetched,
            errors=self.errors,
            new_urls=self.new_urls,
            pages_per_s=self.pages_per_s(),
            paused=paused,
            embeds_fetched=self.embeds_fetched,
            embed_errors=self.embed_errors,
        )

    def summary(self, stopped: bool) -> CrawlSummary:
        elapsed = self.elapsed_s()
        return CrawlSummary(
            rounds=self.rounds,
            fetched=self.fetched,
            new_urls=self.new_urls,
            errors=self.errors,
            elapsed_s=elapsed,
            pages_per_s=self.fetched / elapsed if elapsed > 0 else 0.0,
            segments=list(self.segments),
            stopped=stopped,
            new_pages=self.new_pages,
            changed_pages=self.changed_pages,
            embeds_fetched=self.embeds_fetched,
            embed_errors=self.embed_errors,
            gone_pages=self.gone_pages,
            back_pages=self.back_pages,
            baseline_pages=self.baseline_pages,
        )


#: The counter of each news kind, in :class:`CrawlStats` and :class:`RoundStats`.
_NEWS_COUNTS = {
    NewsKind.NEW: "new_pages",
    NewsKind.CHANGED: "changed_pages",
    NewsKind.GONE: "gone_pages",
    NewsKind.BACK: "back_pages",
    NewsKind.BASELINE: "baseline_pages",
}


@dataclass
class RoundStats:
    """One round's counts; each one also goes to the crawl's totals."""

    number: int
    segment: str
    queued: int
    totals: CrawlStats = field(repr=False)
    fetched: int = 0
    errors: int = 0
    new_urls: int = 0
    new_pages: int = 0
    changed_pages: int = 0
    gone_pages: int = 0
    back_pages: int = 0
    baseline_pages: int = 0
    embeds_fetched: int = 0
    embed_errors: int = 0

    def count(self, outcome: Outcome) -> None:
        """Count one recorded fetch attempt by its outcome ("Counts" in :mod:`.events`)."""
        self.totals.round_done += 1
        if outcome is Outcome.ROBOTS_DENIED:
            return  # never requested
        if outcome in FAILED_OUTCOMES:
            self.errors += 1
            self.totals.errors += 1
        else:
            self.fetched += 1
            self.totals.fetched += 1

    def count_embed(self, outcome: Outcome) -> None:
        """Count one recorded fetch of an embed (as :meth:`count` counts pages, apart)."""
        if outcome is Outcome.ROBOTS_DENIED:
            return
        if outcome in FAILED_OUTCOMES:
            self.embed_errors += 1
            self.totals.embed_errors += 1
        else:
            self.embeds_fetched += 1
            self.totals.embeds_fetched += 1

    def added(self, new_urls: int) -> None:
        """The store committed a batch that added ``new_urls`` pages."""
        self.new_urls += new_urls
        self.totals.new_urls += new_urls

    def news(self, kinds: Iterable[str]) -> None:
        """Count the news of a batch handed to the store (its items' ``kind``s, and
        ``baseline`` for each page its host's first crawl archived)."""
        for kind in kinds:
            name = _NEWS_COUNTS.get(kind)
            if name is not None:
                setattr(self, name, getattr(self, name) + 1)
                setattr(self.totals, name, getattr(self.totals, name) + 1)

    def finished(self, baselines_done: Iterable[BaselineDone] = ()) -> RoundFinished:
        return RoundFinished(
            self.number,
            self.segment,
            self.fetched,
            self.errors,
            self.new_urls,
            new_pages=self.new_pages,
            changed_pages=self.changed_pages,
            embeds_fetched=self.embeds_fetched,
            embed_errors=self.embed_errors,
            gone_pages=self.gone_pages,
            back_pages=self.back_pages,
            baseline_pages=self.baseline_pages,
            baselines_done=tuple(baselines_done),
        )
