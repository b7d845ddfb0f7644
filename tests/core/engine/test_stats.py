"""What a crawl counts: each recorded attempt is fetched or an error, never both."""

from __future__ import annotations

import pytest
from recrawl.core.engine import RoundFinished
from recrawl.core.engine.stats import CrawlStats
from recrawl.core.engine.update import Outcome

ANSWERED = [
    Outcome.OK,
    Outcome.NOT_MODIFIED,
    Outcome.REDIRECT_PERM,
    Outcome.REDIRECT_TEMP,
    Outcome.GONE,
]


@pytest.mark.parametrize("outcome", ANSWERED)
def test_an_answered_fetch_counts_as_fetched(outcome):
    stats = CrawlStats()
    stats.start_round("s1", 1).count(outcome)
    assert (stats.fetched, stats.errors, stats.attempts) == (1, 0, 1)


@pytest.mark.parametrize("outcome", [Outcome.FAILED, Outcome.THROTTLED])
def test_a_failed_attempt_counts_as_an_error_not_a_page(outcome):
    stats = CrawlStats()
    stats.start_round("s1", 1).count(outcome)
    assert (stats.fetched, stats.errors, stats.attempts) == (0, 1, 1)


def test_a_page_robots_txt_denies_is_not_counted():
    stats = CrawlStats()
    stats.start_round("s1", 1).count(Outcome.ROBOTS_DENIED)
    assert stats.attempts == 0


def test_rounds_add_up_to_the_totals_and_report_their_own_counts():
    stats = CrawlStats()
    first = stats.start_round("s1", 3)
    for outcome in (Outcome.OK, Outcome.FAILED, Outcome.GONE):
        first.count(outcome)
    first.added(5)
    second = stats.start_round("s2", 2)
    second.count(Outcome.NOT_MODIFIED)
    second.added(1)

    assert first.finished() == RoundFinished(1, "s1", fetched=2, errors=1, new_urls=5)
    assert second.finished() == RoundFinished(2, "s2", fetched=1, errors=0, new_urls=1)
    assert (stats.rounds, stats.fetched, stats.errors, stats.new_urls) == (2, 3, 1, 6)
    snapshot = stats.snapshot(paused=True)
    assert (snapshot.round, snapshot.queued, snapshot.fetched, snapshot.errors) == (2, 2, 3, 1)
    assert snapshot.paused


def test_a_round_counts_every_page_it_is_done_with_for_its_progress():
    stats = CrawlStats()
    first = stats.start_round("s1", 2)
    first.count(Outcome.OK)
    first.count(Outcome.OK)
    second = stats.start_round("s2", 3)
    for outcome in (Outcome.FAILED, Outcome.ROBOTS_DENIED):
        second.count(outcome)
    snapshot = stats.snapshot(paused=False)
    # this round's own progress: the crawl's totals (2 fetched) are not this round's
    assert (snapshot.queued, snapshot.round_done, snapshot.fetched) == (3, 2, 2)


def test_pages_per_s_counts_pages_not_failed_attempts():
    stats = CrawlStats()
    stats.started()
    round_ = stats.start_round("s1", 4)
    for _ in range(4):
        round_.count(Outcome.FAILED)
    summary = stats.summary(stopped=False)
    assert summary.errors == 4 and summary.fetched == 0
    assert summary.pages_per_s == 0.0
    assert summary.elapsed_s > 0
    assert set(summary.to_json()) == {
        "rounds", "fetched", "new_urls", "errors", "elapsed_s", "pages_per_s", "segments",
        "new_pages", "changed_pages", "embeds_fetched", "embed_errors", "possible_traps",
        "gone_pages", "back_pages", "baseline_pages",
    }  # fmt: skip
