"""The discovery schedule (docs/design.md §11): its estimate, its hub intervals at a budget,
its base for other pages, and the optimum it aims at."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.clock import DAY, HOUR
from recrawl.core.policy.schedule import Change, Corpus, ScheduleInput
from recrawl.core.policy.schedules import DiscoverySchedule, make_schedule
from recrawl.core.policy.schedules.discovery import delay_optimum, solve_scale
from recrawl.core.policy.simulate import corpus_rates
from recrawl.core.policy.simulate_discovery import simulate_discovery

T0 = datetime(2027, 1, 1)


def fetch(
    schedule: DiscoverySchedule,
    at: float,
    new_links: int | None,
    metadata: dict | None = None,
    interval: float = DAY,
    last: float | None = None,
):
    page = ScheduleInput(
        interval=interval,
        fetched_at=T0 + timedelta(seconds=at),
        last_fetched=T0 + timedelta(seconds=last) if last is not None else None,
        metadata=metadata or {},
        new_links=new_links,
    )
    return schedule.after_fetch(page, Change.UNCHANGED)


def discovery(**params) -> DiscoverySchedule:
    schedule = make_schedule("discovery", **params)
    assert isinstance(schedule, DiscoverySchedule)
    return schedule


def test_a_page_is_probed_until_observed_then_a_hub_by_its_new_links():
    schedule = discovery()
    first = fetch(schedule, 0, None)  # nothing to compare with yet
    assert first.interval == 6 * HOUR and first.link_rate is None
    assert first.metadata["discovery"]["n"] == 0
    second = fetch(schedule, 6 * HOUR, 3, first.metadata, first.interval, last=0)
    assert second.interval == 6 * HOUR  # observed once: min_visits is 2
    third = fetch(schedule, 12 * HOUR, 3, second.metadata, second.interval, last=6 * HOUR)
    rate = 6 / (12 * HOUR)  # 12 links a day
    assert third.link_rate == pytest.approx(rate)
    # no corpus yet: a hub of one new link a day would get `budget` fetches a day
    assert third.interval == pytest.approx(math.sqrt(DAY / rate))
    assert third.next_fetch == T0 + timedelta(seconds=12 * HOUR + third.interval)


def test_a_page_without_new_links_keeps_the_base_schedule_and_its_state():
    schedule = discovery(base="change-rate")
    state = {"discovery": {"k": 0.0, "t": DAY, "n": 1.0, "at": T0.isoformat()}}
    decision = fetch(schedule, DAY, 0, state, interval=DAY, last=0)
    assert decision.link_rate == 0.0
    base = make_schedule("change-rate")
    alone = base.after_fetch(
        ScheduleInput(interval=DAY, fetched_at=T0 + timedelta(days=1), last_fetched=T0),
        Change.UNCHANGED,
    )
    assert decision.interval == alone.interval
    assert "change_rate" in decision.metadata and "discovery" in decision.metadata


def test_a_hosts_bounds_hold_for_its_hubs_and_probes():
    # min@HOST is what its pages may be fetched at most: hubs and first probes too (they
    # were every few hours on a host whose pages the user allowed once a day)
    schedule = discovery(hosts={"news.example": {"min": DAY}, "fast.example": {"max": HOUR}})
    state = {"discovery": {"k": 100.0, "t": 2 * DAY, "n": 3.0, "at": T0.isoformat()}}
    for host, low, high in (("news.example", DAY, None), ("fast.example", 0, HOUR)):
        hub = schedule.after_fetch(
            ScheduleInput(
                host=host,
                interval=DAY,
                fetched_at=T0 + timedelta(hours=12),
                last_fetched=T0,
                metadata=state,
                new_links=50,
            ),
            Change.CHANGED,
        )
        probed = schedule.after_fetch(
            ScheduleInput(host=host, interval=10 * DAY, fetched_at=T0), Change.UNKNOWN
        )
        for decision in (hub, probed):
            assert decision.interval >= low
            assert high is None or decision.interval <= high
    elsewhere = schedule.after_fetch(
        ScheduleInput(host="other.example", interval=10 * DAY, fetched_at=T0), Change.UNKNOWN
    )
    assert elsewhere.interval == 6 * HOUR  # the probe, where no bound says otherwise


def test_a_pinned_page_keeps_its_interval():
    state = {"discovery": {"k": 50.0, "t": DAY, "n": 5.0, "at": T0.isoformat()}}
    decision = fetch(discovery(), DAY, 10, {**state, "fixed_interval": 3 * DAY})
    assert decision.interval == 3 * DAY


def test_prepare_spends_the_budget_on_the_hubs_only():
    schedule = discovery(budget=2.0, hub_rate=0.5)
    hubs = np.array([24.0, 4.0, 1.0]) / DAY
    schedule.prepare(
        Corpus(np.empty(0), np.empty(0), link_rates=np.concatenate([hubs, [0.1 / DAY, 0.0]]))
    )
    intervals = schedule.hub_intervals(hubs)
    assert np.sum(1 / intervals) == pytest.approx(2.0 * 3 / DAY)
    # T ∝ 1/√λ
    assert intervals[1] / intervals[0] == pytest.approx(math.sqrt(6))


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(1e-3, 100.0), min_size=1, max_size=30),
    st.floats(0.1, 20.0),
)
def test_the_square_root_split_is_the_least_delay_for_its_budget(per_day, budget):
    rates = np.array(per_day) / DAY
    total = budget * len(rates) / DAY  # fetches per second
    intervals = solve_scale(rates, total, 1e-6, 1e12) / np.sqrt(rates)
    assert np.sum(1 / intervals) == pytest.approx(total, rel=1e-6)
    delay = float(np.sum(rates * intervals / 2) / np.sum(rates))
    assert delay == pytest.approx(delay_optimum(rates, total), rel=1e-6)
    uniform = len(rates) / total  # the same budget, every page alike
    assert delay <= uniform / 2 * (1 + 1e-9)


def test_on_a_corpus_of_hubs_discovery_is_near_the_optimum_and_beats_aronsson():
    rates = corpus_rates(400, seed=3)
    aronsson = simulate_discovery(make_schedule("aronsson"), rates, 120)
    found = simulate_discovery(
        make_schedule("discovery", budget=aronsson.fetches_per_page_per_day), rates, 120
    )
    assert found.mean_discovery_delay_hours < 1.2 * found.optimal_delay_hours
    assert found.mean_discovery_delay_hours < aronsson.mean_discovery_delay_hours / 2
