from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.config import PolitenessSettings
from recrawl.core.net.politeness import HostSlot, retry_after_seconds


@given(st.floats(min_value=0.01, max_value=20), st.floats(min_value=0, max_value=1))
def test_jittered_delay_stays_within_its_band(delay, jitter):
    slot = HostSlot("http://h", replace(PolitenessSettings(), delay=delay, jitter=jitter))
    assert slot.reserve() == 0  # the first request may start at once
    waits = [slot.reserve() for _ in range(5)]  # each later one waits a jittered delay more
    spacing = [b - a for a, b in itertools.pairwise(waits)]
    for step in spacing:
        assert delay * (1 - jitter) - 0.05 <= step <= delay * (1 + jitter) + 0.05


def test_crawl_delay_is_honoured_up_to_the_cap():
    slot = HostSlot("http://h", PolitenessSettings())
    slot.honour_crawl_delay(5)
    assert slot.delay == 5
    slot.honour_crawl_delay(3600)
    assert slot.delay == 30
    slot.honour_crawl_delay(0.1)  # never below the user's own delay
    assert slot.delay == PolitenessSettings().delay


def test_retry_after_forms_and_exponential_backoff():
    assert retry_after_seconds("120") == 120
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert retry_after_seconds("soon") is None
    slot = HostSlot("http://h", PolitenessSettings())
    assert slot.throttled(None) == 5.0
    assert slot.throttled(None) == 10.0
    assert slot.throttled("2") == 2.0
