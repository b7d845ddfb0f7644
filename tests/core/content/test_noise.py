"""Noise masked by its context (core/content/noise.py): what a signature ignores."""

from __future__ import annotations

import pytest
from recrawl.core.content.noise import normalise_line, normalised_lines, without_ads


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Mon 30 Nov 2026, 18:42 UTC", "Tue 1 Dec 2026, 07:05 UTC"),
        ("Local time 18.42", "Local time 19.07"),
        ("Server time: 2026-11-30 18:42:07", "Server time: 2026-12-01 07:05:11"),
        ("Updated 3 minutes ago", "Updated 41 minutes ago"),
        ("Published about 2 hours ago", "Published about 5 hours ago"),
        ("posted 5 mins ago", "posted just now"),
        ("1,234 views", "1,301 views"),
        ("Visitors: 123456", "Visitors: 123999"),
        ("12 people are viewing this right now", "31 people are viewing this right now"),
        ("Online: 34 members, 120 guests", "Online: 41 members, 97 guests"),
        ("© 2025 Alpine News", "© 2026 Alpine News"),
        ("Copyright 2003–2025 Alpine News. All rights reserved.", "Copyright 2003–2026 Alpine News. All rights reserved."),
        ("session a81f9e0c3b7d4e2f9a0b", "session 0c9d2e11ab44f7c1de33"),
        ("/news?sid=a81f9e0c", "/news?sid=77ee01"),
        (
            "This article has been viewed 1,234 times since it was published last spring.",
            "This article has been viewed 1,240 times since it was published last spring.",
        ),
    ],
)  # fmt: skip
def test_noise_is_masked(before: str, after: str) -> None:
    assert normalise_line(before) == normalise_line(after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # numbers in sentences are content, however they look
        ("The summit is 2,345 m high, not 2,435 m as the old maps say.",
         "The summit is 2,435 m high, not 2,435 m as the old maps say."),
        ("The museum recorded 23,292 visitors last year, its best result.",
         "The museum recorded 73,292 visitors last year, its best result."),
        ("The meeting on 3 March starts at 18:30 in the town hall.",
         "The meeting on 3 March starts at 19:30 in the town hall."),
        # a price, even one that looks like a time
        ("€12.50 incl. VAT", "€12.90 incl. VAT"),
        ("Price: 51.99", "Price: 46.00"),
        ("Tickets cost €12 for adults", "Tickets cost €19 for adults"),
    ],
)  # fmt: skip
def test_content_is_not_masked(before: str, after: str) -> None:
    assert normalise_line(before) != normalise_line(after)


def test_a_shuffled_list_is_the_same_an_added_item_is_not() -> None:
    items = ["Glaciers retreat faster", "Snow forecast for the weekend", "New hut opens"]
    prose = "A paragraph of the article, with a few words in a sentence of its own."
    assert normalised_lines([prose, *items]) == normalised_lines([prose, *reversed(items)])
    assert normalised_lines([prose, *items]) != normalised_lines([prose, *items, "Bus timetable"])
    # paragraphs keep their order: a list is only short lines in a row
    assert normalised_lines([prose, "Another sentence here, long enough to be prose."]) != (
        normalised_lines(["Another sentence here, long enough to be prose.", prose])
    )


def test_ads_go_by_class_or_id_the_content_stays() -> None:
    markup = (
        '<div class="ad-slot">Buy skis</div><aside class="promo">Sale</aside>'
        '<div id="div-gpt-ad-1612-3">Flights</div><div class="x advert mpu">Cars</div>'
        '<p class="header">Headline</p><div class="price-promo">€12.50</div>'
        '<div class="shadow road">Text</div>'
    )
    kept = without_ads(markup)
    assert all(ad not in kept for ad in ("Buy skis", "Sale", "Flights", "Cars"))
    assert all(text in kept for text in ("Headline", "€12.50", "Text"))


def test_a_line_labelled_as_an_ad_is_left_out() -> None:
    prose = "Sponsored by the town council, the festival runs for three days in June."
    lines = ["Advertisement Mortgage rates from 3.1%. Check your rate today", prose, "Ad: flights"]
    assert normalised_lines(lines) == [normalise_line(prose)]
