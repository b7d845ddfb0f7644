"""How a search result reads: its snippet's runs, its seen line, its timeline's marks."""

from __future__ import annotations

from datetime import datetime, timedelta

from recrawl.core.archive.search import Period, SearchHit
from recrawl.gui.common.formatting import local_time
from recrawl.gui.search.search_model import (
    HIT_ROLE,
    MIN_WIDTH,
    RUNS_ROLE,
    ResultsModel,
    Span,
    bar,
    seen_line,
    snippet_runs,
)

T = datetime(2027, 1, 1)
DAY = timedelta(days=1)


def hit(*periods: Period, url: str = "http://a.example/") -> SearchHit:
    return SearchHit(
        url=url,
        title="A",
        snippet="the harbour wall will close",
        marks=((4, 11), (12, 16)),
        first_seen=periods[0].start,
        last_seen=periods[-1].end,
        gone_at=periods[-1].gone,
        captures=3,
        periods=periods,
        rank=1.0,
    )


def test_a_snippet_is_cut_into_plain_and_matching_runs() -> None:
    assert snippet_runs("the harbour wall will close", ((4, 11), (12, 16))) == (
        ("the ", False),
        ("harbour", True),
        (" ", False),
        ("wall", True),
        (" will close", False),
    )
    # spans out of order, overlapping or past the end lose nothing of the text
    runs = snippet_runs("abcdef", ((3, 9), (0, 2), (1, 4)))
    assert "".join(text for text, _ in runs) == "abcdef"
    assert [text for text, bold in runs if bold] == ["ab", "cd", "ef"]
    assert snippet_runs("plain", ()) == (("plain", False),)


def test_the_seen_line_is_in_local_time_and_says_when_it_is_still_there() -> None:
    gone = hit(Period(T, T + DAY, T + 2 * DAY))
    assert seen_line(gone) == (
        f"First seen {local_time(T)} · last seen {local_time(T + DAY)} · "
        f"gone {local_time(T + 2 * DAY)} (local time)"
    )
    there = hit(Period(T, T + DAY, None))
    assert seen_line(there).endswith("· still there (local time)")


def test_the_timeline_places_periods_fading_stretches_and_gone_points() -> None:
    span = Span(T, T + 100 * DAY)
    back = (
        Period(T + 10 * DAY, T + 30 * DAY, T + 40 * DAY),
        Period(T + 70 * DAY, T + 70 * DAY, None),  # back for one capture, still there
    )
    marks = bar(back, span, 101)
    assert marks.present == ((10, 30), (70, 70 + MIN_WIDTH))
    assert marks.fading == ((30, 40),)
    assert marks.gone == (40,)
    # at the right edge, a one-capture period stays inside the bar
    edge = bar((Period(span.end, span.end, None),), span, 101)
    assert edge.present == ((101 - MIN_WIDTH, 101),)


def test_the_span_runs_over_the_project_and_the_results() -> None:
    hits = [hit(Period(T + 10 * DAY, T + 20 * DAY, T + 30 * DAY))]
    assert Span.of_hits(hits) == Span(T + 10 * DAY, T + 30 * DAY)
    project = Span(T, T + 25 * DAY)  # a round still being written is later than its end
    assert Span.of_hits(hits, project) == Span(T, T + 30 * DAY)
    assert Span.of_hits([], project) is None


def test_the_model_hands_each_row_its_hit_and_runs(qtmodeltester) -> None:
    model = ResultsModel()
    rows = [hit(Period(T, T, None)), hit(Period(T, T + DAY, None), url="http://b.example/")]
    model.set_rows(rows)
    qtmodeltester.check(model)
    assert model.index(1, 0).data(HIT_ROLE) is rows[1]
    assert model.index(0, 0).data() == "A"
    assert [t for t, bold in model.index(0, 0).data(RUNS_ROLE) if bold] == ["harbour", "wall"]
    assert model.hits() == rows
