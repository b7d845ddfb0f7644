"""The main-text signature (issue 13 point 5): real edits are changes, noise is not."""

from __future__ import annotations

import pickle

import pytest
from recrawl.core.policy import choices
from recrawl.core.policy.maintext_signature import MainTextSignature
from recrawl.core.policy.schedule import Change
from recrawl.core.policy.signature import compare, make_signature

ARTICLE = """\
<p>Surveyors from the national mapping agency returned from the summit last week with
new measurements of the Grossberg, the highest peak in the eastern range.</p>
<p>The survey team spent four days on the mountain, using satellite receivers and a
laser rangefinder to measure the rock beneath the snow cap. The new figure replaces
one that had been in use since the 1950s.</p>
<p>Local guides welcomed the news, saying it would help climbers plan their ascents
with more accurate altitude information on their maps and devices.</p>
<p>The agency will publish the full report, with the measurements of eleven other
summits of the range, in the spring.</p>"""


def page(
    article: str = ARTICLE,
    *,
    headline: str = "The Grossberg is taller than thought",
    clock: str = "Mon 30 Nov 2026, 18:42 UTC",
    updated: str = "Updated 3 minutes ago",
    views: str = "1,234 views",
    visitors: str = "Visitors: 123456",
    ad: str = "Buy skis now: 20% off at SkiShop!",
    token: str = "8f3a9c2e7b1d4f60a9e3c1d2",
    session: str = "a81f9e0c3b7d4e2f",
    related: tuple[str, ...] = (
        "Glaciers retreat faster than expected",
        "Snow forecast for the weekend",
        "New hut opens on the northern ridge",
    ),
    year: str = "2026",
) -> bytes:
    items = "".join(
        f'<li><a href="/r/{i}?sid={session}">{t}</a></li>' for i, t in enumerate(related)
    )
    html = f"""<!doctype html><html><head><title>{headline} - Alpine News</title></head><body>
<header><nav><a href="/?sid={session}">Home</a> <a href="/news?sid={session}">News</a>
<a href="/sport?sid={session}">Sport</a></nav><div class="clock">{clock}</div>
<form action="/login"><input type="hidden" name="csrf" value="{token}"><button>Log in</button>
</form></header>
<aside class="sidebar"><h3>Related</h3><ul>{items}</ul><div class="ad">{ad}</div></aside>
<article><h1>{headline}</h1><p class="meta">{updated} · {views}</p>
{article}
</article>
<footer>© {year} Alpine News · <a href="/about?sid={session}">About</a> · {visitors}</footer>
</body></html>"""
    return html.encode("utf-8")


SIG = MainTextSignature()


def change(old: bytes, new: bytes) -> Change:
    return compare(SIG, SIG.compute(old, "text", ()), "main-text", SIG.compute(new, "text", ()))


def test_a_new_project_uses_main_text() -> None:
    assert choices.DEFAULT_SIGNATURE == "main-text"
    assert make_signature("main-text") == MainTextSignature()


def test_the_signature_is_a_plain_picklable_value() -> None:
    # the crawl may compute signatures in a process pool
    copy = pickle.loads(pickle.dumps(SIG))
    assert copy == SIG
    assert copy.compute(page(), "text", ()) == SIG.compute(page(), "text", ())


def test_the_same_page_is_unchanged() -> None:
    assert change(page(), page()) is Change.UNCHANGED


@pytest.mark.parametrize(
    "edited",
    [
        # the examples: a correction sentence added, one sentence added
        ARTICLE.replace(
            "since the 1950s.",
            "since the 1950s. Correction: the mountain is 2,345 m, not 2,435 m.",
        ),
        ARTICLE.replace("in the spring.", "in the spring. A public lecture follows in May."),
        ARTICLE.replace("eleven other", "twelve other"),  # a corrected number
        ARTICLE.replace("four days", "five days"),
        ARTICLE + "<p>Update: the agency has confirmed the figure in a statement.</p>",
        ARTICLE.split("<p>Local guides")[0],  # a paragraph removed
    ],
    ids=["correction", "sentence", "number", "word", "new paragraph", "removed paragraph"],
)
def test_meaningful_edits_are_changes(edited: str) -> None:
    assert change(page(), page(edited)) is Change.CHANGED


def test_a_changed_headline_is_a_change() -> None:
    assert change(page(), page(headline="The Grossberg is shorter than thought")) is Change.CHANGED


def test_a_changed_price_is_a_change() -> None:
    old = ARTICLE + "<p>The printed map costs €24.90 in the agency's shop.</p>"
    assert change(page(old), page(old.replace("€24.90", "€26.50"))) is Change.CHANGED


@pytest.mark.parametrize(
    "noise",
    [
        {"clock": "Tue 1 Dec 2026, 07:05 UTC"},
        {"updated": "Updated 17 minutes ago"},
        {"updated": "Last updated: 2026-12-01T07:05:11Z"},
        {"views": "1,301 views"},
        {"visitors": "Visitors: 123999"},
        {"ad": "Hotel Alpenblick: book three nights, pay two"},
        {"token": "Zx81KqP0aa93LmNw2cVb7TyU"},
        {"session": "0c9d2e11ab44f7c1"},
        {
            "related": (
                "New hut opens on the northern ridge",
                "Glaciers retreat faster than expected",
                "Snow forecast for the weekend",
            )
        },
        {"year": "2027"},
    ],
    ids=lambda n: next(iter(n)),
)
def test_noise_is_no_change(noise: dict[str, str]) -> None:
    assert change(page(), page(**noise)) is Change.UNCHANGED  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "noise",
    [
        "Updated 3 minutes ago",
        "Page generated at 18:42:07",
        "Read 1,234 times",
        "As of 30 November 2026",
        "Posted Monday, November 30, 2026 at 6:42 pm",
    ],
)
def test_noise_inside_the_article_is_no_change(noise: str) -> None:
    later = (
        noise.replace("3 minutes", "9 minutes")
        .replace("18:42:07", "19:01:55")
        .replace("1,234", "1,240")
        .replace("30 November", "1 December")
        .replace("Monday, November 30", "Tuesday, December 1")
    )
    assert later != noise
    old = f"<p>{noise}</p>{ARTICLE}"
    new = f"<p>{later}</p>{ARTICLE}"
    assert change(page(old), page(new)) is Change.UNCHANGED


def test_a_number_in_a_sentence_is_content_not_a_counter() -> None:
    old = ARTICLE + "<p>The hut welcomed 1,200 hikers last summer and expects more.</p>"
    assert change(page(old), page(old.replace("1,200", "1,500"))) is Change.CHANGED


def test_non_html_text_and_binary_payloads() -> None:
    text = b"station report\ntemperature 12.5 C\ngenerated 2026-11-30T18:42:07Z\n"
    later = text.replace(b"18:42:07", b"18:57:00")
    assert SIG.compute(text, None, ()) == SIG.compute(later, None, ())
    assert SIG.compute(text, None, ()) != SIG.compute(text.replace(b"12.5", b"13.5"), None, ())
    png = b"\x89PNG\r\n\x1a\n\x00\x00"
    assert SIG.compute(png, "", ()) != SIG.compute(png + b"\x01", "", ())


def test_markup_over_the_bound_is_hashed_from_the_parsed_text() -> None:
    small = MainTextSignature(max_markup_chars=100)
    text = "Grossberg 2,345 m\nupdated 3 minutes ago"
    first = small.compute(page(), text, ())
    assert first == small.compute(page(), text.replace("3 minutes", "8 minutes"), ())
    assert first != small.compute(page(), text.replace("2,345", "2,435"), ())
