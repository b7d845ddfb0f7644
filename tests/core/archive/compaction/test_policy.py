"""Compaction by policy (docs/design.md §18): which segments a due fold takes, on plain values.

The folds are applied as compaction applies them (one new segment named from the
period's first instant, moved on a second while the name is taken), so a simulated year
of 6-hourly rounds shows the bound the policy is for.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.archive.compaction.policy import FOLDS, Fold, SegmentState, due_folds, stamp
from recrawl.core.clock import segment_name


def closed(*names: str) -> list[SegmentState]:
    return [SegmentState(name, True) for name in names]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_finished_day_of_this_month_is_folded_and_today_is_not():
    segments = closed(
        "20270301000000", "20270301060000", "20270301120000", "20270301180000",
        "20270302000000", "20270302060000",
    )  # fmt: skip
    folds = due_folds(segments, at("2027-03-02T07:00:00"))
    assert folds == [
        Fold(
            "day",
            "2027-03-01",
            at("2027-03-01T00:00:00"),
            ("20270301000000", "20270301060000", "20270301120000", "20270301180000"),
        )
    ]


def test_a_finished_month_is_folded_whole_and_its_days_are_not_folded_first():
    february = [f"202702{day:02d}{hour:02d}0000" for day in range(1, 29) for hour in (0, 12)]
    folds = due_folds(closed(*february, "20270301000000"), at("2027-03-01T06:00:00"))
    assert [(f.kind, f.period, len(f.names)) for f in folds] == [("month", "2027-02", 56)]
    assert folds[0].start == at("2027-02-01T00:00:00")


def test_one_segment_in_a_period_is_left_as_it_is():
    segments = closed("20270201000001", "20270301000000", "20270302000000")
    assert due_folds(segments, at("2027-03-03T00:00:00")) == []


def test_open_segments_and_names_without_a_stamp_are_never_taken():
    segments = [
        SegmentState("20270301000000", True),
        SegmentState("20270301060000-w1", False),  # another worker's round, still written
        SegmentState("20270301120000-w2", True),
        SegmentState("imported", True),
    ]
    [fold] = due_folds(segments, at("2027-03-02T00:00:00"))
    assert fold.names == ("20270301000000", "20270301120000-w2")


def test_the_day_is_judged_by_the_clock_given_not_by_the_names():
    segments = closed("20270301000000", "20270301060000")
    assert due_folds(segments, at("2027-03-01T23:59:59")) == []  # the day is not over
    assert len(due_folds(segments, at("2027-03-02T00:00:00"))) == 1
    # a clock behind the names (a simulation run back): nothing of its future is folded
    assert due_folds(segments, at("2027-02-10T00:00:00")) == []


def test_the_other_policies():
    segments = closed(
        "20270227000000", "20270227120000", "20270228000000",
        "20270301000000", "20270301120000", "20270302000000",
    )  # fmt: skip
    now = at("2027-03-02T06:00:00")
    by_day = due_folds(segments, now, "day")
    assert [(f.period, len(f.names)) for f in by_day] == [("2027-02-27", 2), ("2027-03-01", 2)]
    by_month = due_folds(segments, now, "month")
    assert [(f.period, len(f.names)) for f in by_month] == [("2027-02", 3)]
    with pytest.raises(ValueError, match="no compaction policy 'weekly'"):
        due_folds(segments, now, "weekly")


def test_stamps():
    assert stamp("20270301060000") == at("2027-03-01T06:00:00")
    assert stamp("20270301060000-machine-42") == at("2027-03-01T06:00:00")
    assert stamp("20271301060000") is None  # month 13
    assert stamp("2027030106000") is None
    assert stamp("x20270301060000") is None


# -- applied as compaction applies them ------------------------------------------------------


def apply(names: set[str], folds: list[Fold], used: set[str]) -> set[str]:
    """The segments after the folds: each fold's names replaced by one named from its
    period's start, moved on a second while taken (segments.allocate_name)."""
    out = set(names)
    for fold in folds:
        instant = fold.start
        while segment_name(instant) in out or segment_name(instant) in used:
            instant += timedelta(seconds=1)
        out -= set(fold.names)
        out.add(segment_name(instant))
        used.add(segment_name(instant))
    return out


def folded_to_the_end(names: set[str], now: datetime, fold: str) -> set[str]:
    used = set(names)
    for _ in range(5):
        folds = due_folds(closed(*names), now, fold)
        if not folds:
            return names
        names = apply(names, folds, used)
    raise AssertionError("the policy never settles")


def test_a_year_of_six_hourly_crawls_stays_within_sixty_segments():
    """Rounds every 6 h from 2027-01-01 and a fold after each, as `crawl --now` does: at
    most 12 months + 31 days + today's rounds at any time; in the end, 11 months, the
    finished days of December and today's."""
    names: set[str] = set()
    used: set[str] = set()
    start = at("2027-01-01T00:00:00")
    most = 0
    for round_ in range(365 * 4):
        now = start + timedelta(hours=6 * round_)
        names.add(segment_name(now))
        used.add(segment_name(now))
        names = apply(names, due_folds(closed(*names), now, "day-month"), used)
        assert due_folds(closed(*names), now, "day-month") == []  # one pass settles it
        most = max(most, len(names))
    assert most <= 60
    last = start + timedelta(hours=6 * (365 * 4 - 1))  # 2027-12-31T18:00
    assert last.date().isoformat() == "2027-12-31"
    assert len(names) == 11 + 30 + 4
    months = {n[:6] for n in names if n[:6] != "202712"}
    assert months == {f"2027{m:02d}" for m in range(1, 12)}


def test_a_year_by_day_keeps_one_segment_a_day():
    names = {segment_name(at("2027-01-01T00:00:00") + timedelta(hours=6 * r)) for r in range(1460)}
    after = folded_to_the_end(names, at("2027-12-31T19:00:00"), "day")
    assert len(after) == 364 + 4


# -- properties ------------------------------------------------------------------------------

instants = st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2028, 12, 31))
segment_lists = st.lists(
    st.tuples(instants, st.booleans(), st.sampled_from(["", "-w1", "-w2"])), max_size=80
)


def states(drawn: list[tuple[datetime, bool, str]]) -> list[SegmentState]:
    by_name = {segment_name(t) + tag: SegmentState(segment_name(t) + tag, c) for t, c, tag in drawn}
    return list(by_name.values())


@given(segment_lists, instants, st.sampled_from(FOLDS))
def test_folds_never_overlap_nor_take_an_open_segment_or_today(drawn, now, fold):
    segments = states(drawn)
    open_names = {s.name for s in segments if not s.closed}
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    folds = due_folds(segments, now, fold)
    taken = [name for f in folds for name in f.names]
    assert len(taken) == len(set(taken))
    assert not open_names & set(taken)
    for f in folds:
        assert len(f.names) >= 2
        for name in f.names:
            when = stamp(name)
            assert when is not None and when < today
            # every segment of a fold lies in its period
            assert when.strftime("%Y-%m-%d" if f.kind == "day" else "%Y-%m") == f.period
    assert [f.start for f in folds] == sorted(f.start for f in folds)


@given(segment_lists, instants, st.sampled_from(FOLDS))
def test_after_its_folds_nothing_more_is_due_and_the_count_is_bounded(drawn, now, fold):
    segments = [s for s in states(drawn) if s.closed]
    names = {s.name for s in segments}
    after = apply(names, due_folds(segments, now, fold), set(names))
    assert due_folds(closed(*after), now, fold) == []
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    this_month = today.replace(day=1)
    past = [t for t in (stamp(n) for n in names) if t is not None and t < today]
    months = {t.strftime("%Y-%m") for t in past if t < this_month}
    days = {t.date() for t in past}
    days_of_month = {t.date() for t in past if t >= this_month}
    bound = {"day-month": len(months) + len(days_of_month), "day": len(days)}.get(
        fold, len(months) + len([t for t in past if t >= this_month])
    )
    assert len([n for n in after if (stamp(n) or today) < today]) <= bound
