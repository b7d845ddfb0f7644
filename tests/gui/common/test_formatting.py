"""How publication dates read in the window (gui/common/formatting.py): a date alone as it is,
a time in local time, and the delay between publication and first sight (issue 14)."""

from __future__ import annotations

import time
from datetime import date, datetime

import pytest
from recrawl.gui.common import formatting

TODAY = date(2026, 11, 20)


@pytest.fixture
def new_york(monkeypatch):
    """The local clock five hours behind UTC in November."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_date_alone_keeps_its_day_west_of_utc_and_a_time_moves_to_local_time(new_york):
    assert formatting.published(datetime(2026, 11, 2)) == "2026-11-02"
    assert formatting.published(datetime(2026, 11, 2, 3, 0)) == "2026-11-01 22:00"
    assert formatting.published(None) == ""
    assert "no time was given" in formatting.published_tip(datetime(2026, 11, 2))


def test_published_and_first_seen_with_the_delay_between(new_york):
    seen = datetime(2026, 11, 3, 15, 0)  # 10:00 in New York
    show = formatting.published_and_seen
    # a date alone: whole days between the two days
    assert show(datetime(2026, 11, 2), seen, TODAY) == "published 2 Nov, first seen 3 Nov (+1 d)"
    assert show(datetime(2026, 11, 3), seen, TODAY) == (
        "published 3 Nov, first seen 3 Nov (same day)"
    )
    # a time: minutes, hours, then whole days
    assert show(datetime(2026, 11, 3, 14, 20), seen, TODAY).endswith("(+40 min)")
    assert show(datetime(2026, 11, 3, 9, 0), seen, TODAY).endswith("(+6 h)")
    assert show(datetime(2026, 10, 30, 16, 0), seen, TODAY) == (
        "published 30 Oct, first seen 3 Nov (+3 d)"
    )
    # seen before the date the page states (an article dated ahead, or updated)
    assert show(datetime(2026, 11, 3, 20, 0), seen, TODAY).endswith("(−5 h)")
    # another year's dates carry their year
    assert show(datetime(2025, 12, 30), datetime(2026, 1, 2, 15), TODAY) == (
        "published 30 Dec 2025, first seen 2 Jan (+3 d)"
    )
