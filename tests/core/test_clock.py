"""Times and durations at the edges: ISO 8601 in, human units out, editable text back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.clock import duration_text, human_duration, parse_duration, parse_iso, to_iso
from recrawl.core.errors import InvalidArgument


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.4, "0.4 s"), (1, "1 s"), (45, "45 s"), (117, "2 min"), (59.7, "1 min"), (600, "10 min"),
     (3569, "59 min"), (3580, "1.0 h"), (5400, "1.5 h"), (3.5 * 3600, "3.5 h"),
     (86000, "23.9 h"), (86300, "1.0 d"), (10 * 86400, "10.0 d"), (8685 * 60, "6.0 d"), (None, "")],
)  # fmt: skip
def test_human_duration_picks_the_unit_people_read(seconds, text):
    # each unit until the next is reached: never "117 s" beside "8 min" (issue 25)
    assert human_duration(seconds) == text


@given(st.floats(min_value=0.0, max_value=3650 * 86400.0, allow_nan=False))
def test_what_human_duration_writes_parse_duration_reads_within_its_rounding(seconds):
    text = human_duration(seconds)
    back = parse_duration(text)
    # to the digit shown: a tenth of a second, a minute's half, a twentieth of h or d
    unit = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}[text.split()[1]]
    tolerance = (0.05 if text.split()[1] in ("h", "d") or seconds < 9.95 else 0.5) * unit
    assert back == pytest.approx(seconds, abs=tolerance)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("6.0 d", 6 * 86400), ("90 min", 5400), ("90min", 5400), ("45 s", 45), ("8 h", 8 * 3600),
     ("12m", 720), ("30d", 30 * 86400), ("1w", 604800), ("90", 90)],
)  # fmt: skip
def test_parse_duration_reads_the_human_format_and_the_short_one(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(30 * 86400, "30d"), (12 * 3600, "12h"), (1800, "30m"), (90, "90s"),
     (1.5 * 86400, "36h"), (1234567.8, "14.289d"), (0.25, "0.25s"), (None, "")],
)  # fmt: skip
def test_duration_text_is_the_shortest_text_the_parser_reads(seconds, text):
    assert duration_text(seconds) == text


@given(st.floats(min_value=0.001, max_value=3650 * 86400.0, allow_nan=False))
def test_duration_text_reads_back_to_within_a_thousandth_of_its_unit(seconds):
    back = parse_duration(duration_text(seconds))
    assert back == pytest.approx(seconds, rel=1e-3, abs=1e-3)


def test_iso_round_trip_and_a_clear_error():
    assert to_iso(parse_iso("2026-11-30T03:52:12+01:00")) == "2026-11-30T02:52:12Z"
    with pytest.raises(InvalidArgument, match="not an ISO 8601 time"):
        parse_iso("yesterday")
