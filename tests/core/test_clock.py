"""Times and durations at the edges: ISO 8601 in, human units out, editable text back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.clock import duration_text, human_duration, parse_duration, parse_iso, to_iso
from recrawl.core.errors import InvalidArgument


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(45, "45 s"), (600, "10 min"), (5400, "90 min"), (3.5 * 3600, "3.5 h"),
     (10 * 86400, "10.0 d"), (None, "")],
)  # fmt: skip
def test_human_duration_picks_the_unit_people_read(seconds, text):
    assert human_duration(seconds) == text


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
