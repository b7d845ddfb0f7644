from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.config import PolitenessSettings
from recrawl.core.net.politeness import Backoff, HostSlot, retry_after_seconds


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
    assert slot.throttled(None) == Backoff(5.0)
    assert slot.throttled(None) == Backoff(10.0)
    assert slot.throttled("2") == Backoff(2.0)


WEEK = 7 * 86400.0


def test_a_huge_retry_after_is_capped_at_a_week_and_says_so():
    slot = HostSlot("http://h", PolitenessSettings())
    backoff = slot.throttled("999999999")
    assert backoff.wait == WEEK and backoff.asked == 999999999.0
    assert backoff.note is not None
    assert "11,574.1 days" in backoff.note and "7.0 days" in backoff.note
    # the host's next request waits the capped week, not the year asked for
    assert WEEK - 5 < slot.reserve() <= WEEK
    assert slot.throttled("60").note is None  # under the cap: nothing to say


def test_absurd_retry_after_values_are_capped_not_fatal():
    slot = HostSlot("http://h", replace(PolitenessSettings(), retry_after_cap=3600.0))
    # thousands of digits: int() would raise ValueError (Python's digit limit)
    backoff = slot.throttled("9" * 5000)
    assert backoff.wait == 3600.0 and backoff.note and "forever" in backoff.note
    assert slot.throttled("Fri, 31 Dec 9999 23:59:59 GMT").wait == 3600.0
    assert retry_after_seconds("\u00b2") is None  # a digit to str.isdigit, not to HTTP


def test_exponential_backoff_stops_at_the_cap():
    slot = HostSlot("http://h", replace(PolitenessSettings(), backoff=5.0, retry_after_cap=30.0))
    waits = [slot.throttled(None).wait for _ in range(5)]
    assert waits == [5.0, 10.0, 20.0, 30.0, 30.0]


def test_the_new_limits_are_settings_a_project_can_keep():
    from recrawl.core.config import CrawlSettings, with_overrides

    settings = with_overrides(
        CrawlSettings(), {"politeness.retry_after_cap": 3600, "fetch.total_timeout": 20}
    )
    assert settings.politeness.retry_after_cap == 3600.0
    assert settings.fetch.whole_request_timeout == 20.0
    # not kept: the whole-request limit follows the read timeout
    follows = with_overrides(CrawlSettings(), {"fetch.read_timeout": 2})
    assert follows.fetch.whole_request_timeout == 20.0
