"""Schedules (docs/design.md §4): bounds, hand-computed values, rate estimation."""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.clock import DAY
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.schedule import Change, ScheduleInput
from recrawl.core.policy.schedules import make_schedule, schedule_names
from recrawl.core.policy.schedules.estimators import (
    RATE_BINS,
    mle_rates,
    optimal_intervals,
    x_for_freshness,
)

T0 = datetime(2027, 1, 1)
CHANGES = st.sampled_from(list(Change))


def page(interval: float, at: datetime = T0, **kw) -> ScheduleInput:
    return ScheduleInput(interval=interval, fetched_at=at, **kw)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["fixed", "aronsson", "nutch-adaptive", "change-rate", "score-tiers"]),
    changes=st.lists(CHANGES, min_size=1, max_size=40),
    gaps=st.lists(st.floats(min_value=0, max_value=400 * DAY), min_size=40, max_size=40),
    start=st.floats(min_value=1, max_value=400 * DAY),
    bounds=st.tuples(st.floats(60, 2 * DAY), st.floats(3 * DAY, 200 * DAY)),
)
def test_every_schedule_stays_in_bounds_and_never_schedules_the_past(
    name, changes, gaps, start, bounds
):
    low, high = bounds
    schedule = make_schedule(name, min=low, max=high)
    interval, now, last, changed_at, meta = start, T0, None, None, {}
    for change, gap in zip(changes, gaps, strict=False):
        decision = schedule.after_fetch(
            ScheduleInput(interval=interval, fetched_at=now, last_fetched=last,
                          content_changed_at=changed_at, metadata=meta),
            change,
        )  # fmt: skip
        assert low - 1e-6 <= decision.interval <= high + 1e-6
        assert decision.next_fetch >= now
        if decision.metadata:
            meta = {**meta, **decision.metadata}
        if change is Change.CHANGED:
            changed_at = now
        interval, last = decision.interval, now
        now = now + timedelta(seconds=gap)  # fetched early, late or on time
    for decision in (
        schedule.after_gone(page(interval, now)),
        schedule.after_retry(page(interval, now)),
    ):
        assert decision.next_fetch >= now


def test_aronsson_settles_at_twice_the_constant_when_always_changing():
    schedule = make_schedule("aronsson")
    interval = schedule.initial_interval()
    assert interval == 10 * DAY
    for _ in range(60):
        interval = schedule.after_fetch(page(interval), Change.CHANGED).interval
    assert interval == pytest.approx(3600.0, rel=1e-6)


@pytest.mark.parametrize("change", [Change.UNCHANGED, Change.UNKNOWN])
def test_aronsson_grows_by_a_fifth_plus_the_constant_when_not_changing(change):
    schedule = make_schedule("aronsson")
    interval = 1000.0
    for _ in range(10):
        after = schedule.after_fetch(page(interval), change).interval
        assert after == pytest.approx(1.2 * interval + 1800)
        interval = after


def test_aronsson_counts_a_failure_as_unchanged_and_retries_in_a_day():
    schedule = make_schedule("aronsson")
    decision = schedule.after_retry(page(1000.0))
    assert decision.interval == pytest.approx(3000.0)
    assert decision.next_fetch == T0 + timedelta(days=1)


def test_nutch_adaptive_matches_hand_computed_values():
    schedule = make_schedule("nutch-adaptive")  # inc 0.4, dec 0.2, sync_delta rate 0.3
    # changed: 30 d × 0.8 = 24 d; delta = 0 (modified now) → next = now + 24 d
    d = schedule.after_fetch(
        page(30 * DAY, content_changed_at=T0 - timedelta(days=3)), Change.CHANGED
    )
    assert d.interval == pytest.approx(24 * DAY)
    assert d.next_fetch == T0 + timedelta(days=24)
    # unchanged: 10 d × 1.4 = 14 d; last change 5 d ago → delta 5 d < 14 d;
    # reference = now − 5 d × 0.3 = now − 1.5 d → next = now + 12.5 d
    d = schedule.after_fetch(
        page(10 * DAY, content_changed_at=T0 - timedelta(days=5)), Change.UNCHANGED
    )
    assert d.interval == pytest.approx(14 * DAY)
    assert d.next_fetch == T0 + timedelta(days=12.5)
    # sync_delta: last change 50 d ago exceeds 30 × 1.4 = 42 d → interval 50 d,
    # next = now − 15 d + 50 d
    d = schedule.after_fetch(
        page(30 * DAY, content_changed_at=T0 - timedelta(days=50)), Change.UNCHANGED
    )
    assert d.interval == pytest.approx(50 * DAY)
    assert d.next_fetch == T0 + timedelta(days=35)
    # unknown leaves the interval; without sync_delta the reference is the fetch
    plain = make_schedule("nutch-adaptive", sync_delta=False)
    d = plain.after_fetch(page(7 * DAY, content_changed_at=T0 - timedelta(days=50)), Change.UNKNOWN)
    assert d.interval == pytest.approx(7 * DAY) and d.next_fetch == T0 + timedelta(days=7)
    # bounds: min 60 s, max 365 d
    assert schedule.after_fetch(page(61.0), Change.CHANGED).interval == 60.0
    assert schedule.after_fetch(page(300 * DAY), Change.UNCHANGED).interval == 365 * DAY


def test_fixed_interval_metadata_and_per_host_bounds():
    schedule = make_schedule(
        "aronsson", max=5 * DAY, hosts={"example.com": {"min": 2 * DAY, "max": 3 * DAY}}
    )
    pinned = page(1000.0, metadata={"fixed_interval": 7200})
    assert schedule.after_fetch(pinned, Change.CHANGED).interval == 7200
    on_host = ScheduleInput(interval=100.0, fetched_at=T0, host="www.example.com")
    assert schedule.after_fetch(on_host, Change.CHANGED).interval == 2 * DAY
    big = ScheduleInput(interval=30 * DAY, fetched_at=T0, host="example.com")
    assert schedule.after_fetch(big, Change.UNCHANGED).interval == 3 * DAY
    other = ScheduleInput(interval=30 * DAY, fetched_at=T0, host="example.org")
    assert schedule.after_fetch(other, Change.UNCHANGED).interval == 5 * DAY


def test_gone_retry_should_fetch_and_force():
    schedule = make_schedule("fixed", max=100 * DAY)
    assert schedule.after_gone(page(10 * DAY)).interval == 15 * DAY
    assert schedule.after_gone(page(90 * DAY)).interval == 100 * DAY
    assert schedule.should_fetch(T0, T0)
    assert not schedule.should_fetch(T0 + timedelta(days=1), T0)
    assert schedule.should_fetch(T0 + timedelta(days=200), T0)  # implausibly far: sanitise
    forced = schedule.force_refetch(page(99 * DAY), T0)
    assert forced.next_fetch == T0 and forced.interval == pytest.approx(90 * DAY)


def test_score_tiers_cap_the_best_pages():
    from recrawl.core.policy.schedule import Corpus

    tiers = make_schedule("score-tiers", base="fixed")
    tiers.prepare(Corpus(np.empty(0), np.arange(1000, dtype=float)))
    top = ScheduleInput(interval=30 * DAY, fetched_at=T0, score=999)
    upper = ScheduleInput(interval=30 * DAY, fetched_at=T0, score=950)
    rest = ScheduleInput(interval=30 * DAY, fetched_at=T0, score=10)
    assert tiers.after_fetch(top, Change.UNCHANGED).interval == DAY
    assert tiers.after_fetch(upper, Change.UNCHANGED).interval == 7 * DAY
    assert tiers.after_fetch(rest, Change.UNCHANGED).interval == 30 * DAY


def test_score_tiers_is_its_base_schedule_outside_the_tiers():
    tiers = make_schedule(
        "score-tiers",
        base="change-rate",
        retry_interval=2 * DAY,
        hosts={"example.com": {"max": 3 * DAY}},
    )
    assert tiers.name == "score-tiers" and tiers.needs_corpus
    assert tiers.retry_interval == 2 * DAY
    assert tiers.hosts == {"example.com": {"max": 3 * DAY}}
    assert tiers.bounds("www.example.com") == (600.0, 3 * DAY)
    assert tiers.bounds("other.org") == (600.0, 365 * DAY)
    assert tiers.initial_interval() == DAY
    retry = tiers.after_retry(page(5 * DAY))
    assert retry.next_fetch == T0 + timedelta(days=2) and retry.interval == 5 * DAY
    assert tiers.after_gone(page(DAY)).interval == 1.5 * DAY


def test_unknown_schedule_and_parameter_are_clear_errors():
    with pytest.raises(InvalidArgument, match="known: fixed, aronsson"):
        make_schedule("weekly")
    with pytest.raises(InvalidArgument, match="no parameter bogus"):
        make_schedule("aronsson", bogus=1)
    assert "score-tiers" in schedule_names()


def test_change_rate_recovers_true_rates_after_50_visits():
    """Pages visited 50 times by the change-rate schedule itself: the estimate is within
    20 % of the true rate for the typical page (the MLE's own spread at 50 visits is
    about 18 %, so single pages scatter around that)."""
    rng = random.Random(5)
    errors = []
    for _ in range(60):
        rate = 10 ** rng.uniform(-6.5, -3.5)  # a change every 50 min … every 36 days
        schedule = make_schedule("change-rate", policy="uniform", min=60.0)
        interval, now, meta = schedule.initial_interval(), T0, {}
        for _ in range(50):
            changed = rng.random() < -math.expm1(-rate * interval)
            last, now = now, now + timedelta(seconds=interval)
            d = schedule.after_fetch(
                page(interval, now, last_fetched=last, metadata=meta),
                Change.CHANGED if changed else Change.UNCHANGED,
            )
            meta, interval = d.metadata, d.interval
        errors.append(abs(d.change_rate / rate - 1))
    assert float(np.median(errors)) < 0.2
    assert float(np.mean(np.array(errors) < 0.35)) > 0.8


def test_change_rate_estimator_on_known_cases():
    # 10 visits a day apart, 5 changed: MLE for regular visits is −ln(1 − 5/10)/day
    counts = np.zeros((1, 16))
    sums = np.zeros((1, 16))
    from recrawl.core.policy.schedules.estimators import rate_bin

    counts[0, rate_bin(DAY)] = 5
    sums[0, rate_bin(DAY)] = 5 * DAY
    estimate = mle_rates(counts, sums, np.array([5 * DAY]), np.array([10.0]))[0]
    exact = -math.log(0.5) / DAY
    assert estimate == pytest.approx(exact, rel=0.1)  # within the pseudo-visits' pull


def test_optimal_split_and_target_freshness():
    x = x_for_freshness(0.8)
    assert (1 - math.exp(-x)) / x == pytest.approx(0.8, abs=1e-6)
    rates = np.array([1 / 3600, 1 / DAY, 1 / (30 * DAY)])
    intervals = optimal_intervals(rates, mu=DAY / 2, low=60, high=365 * DAY)
    # the hourly page is not worth fetching at this price; the others get finite intervals
    assert intervals[0] == 365 * DAY
    assert 60 < intervals[1] < intervals[2] < 365 * DAY


def test_score_tiers_never_fill_a_tier_with_ties():
    from recrawl.core.policy.schedule import Corpus

    tiers = make_schedule("score-tiers", base="fixed")
    tiers.prepare(Corpus(np.empty(0), np.array([0.0] * 95 + [3.0] * 5)))
    tied = ScheduleInput(interval=30 * DAY, fetched_at=T0, score=0.0)
    best = ScheduleInput(interval=30 * DAY, fetched_at=T0, score=3.0)
    assert tiers.after_fetch(tied, Change.UNCHANGED).interval == 30 * DAY
    assert tiers.after_fetch(best, Change.UNCHANGED).interval == 7 * DAY  # 5 % of pages
    tiers.prepare(Corpus(np.empty(0), np.zeros(100)))
    assert tiers.after_fetch(tied, Change.UNCHANGED).interval == 30 * DAY


def test_change_rate_counts_time_since_the_last_comparable_fetch():
    schedule = make_schedule("change-rate", min_visits=1)
    d = schedule.after_fetch(page(DAY, last_fetched=None), Change.UNKNOWN)  # first fetch
    meta = d.metadata
    # a failed attempt a day later is not a fetch the schedule sees; two days after it,
    # a change: the window is three days, not two
    later = T0 + timedelta(days=3)
    d = schedule.after_fetch(
        page(DAY, later, last_fetched=T0 + timedelta(days=1), metadata=meta), Change.CHANGED
    )
    (count, total) = next(iter(d.metadata["change_rate"]["c"].values()))
    assert (count, total) == (1.0, 3 * DAY)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, RATE_BINS - 1), st.integers(1, 30), st.floats(1e2, 1e7)),
        max_size=6,
    ),
    st.floats(0, 1e8),
    st.integers(0, 40),
    st.one_of(st.none(), st.floats(1e-8, 1e-2)),
    st.sampled_from([10, 90]),
)
def test_one_page_rate_estimate_equals_the_vectorised_one(bins, unchanged, extra, previous, its):
    counts, sums = np.zeros(RATE_BINS), np.zeros(RATE_BINS)
    for b, count, mean in bins:
        counts[b], sums[b] = count, count * mean
    visits = counts.sum() + extra or 1.0
    low = None if previous is None else np.array([previous / 4] * 2)
    high = None if previous is None else np.array([previous * 4] * 2)
    one = mle_rates(
        counts[None],
        sums[None],
        np.array([unchanged]),
        np.array([visits]),
        None if low is None else low[:1],
        None if high is None else high[:1],
        its,
    )
    two = mle_rates(
        np.vstack([counts, counts]),
        np.vstack([sums, sums]),
        np.array([unchanged] * 2),
        np.array([visits] * 2),
        low,
        high,
        its,
    )
    assert one[0] == pytest.approx(two[0], rel=1e-9)
