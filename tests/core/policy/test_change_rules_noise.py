"""A site's own noise inside its content (issue 28): the default signature sees each as a
change, the rule an archivist writes for it does not, and a real edit is still one.

One page of each of ``bench/change_bench.py``'s site-noise cases — a "Trending now"
ticker (``remove``), a rotating quote beside the article's body (``only``), a live score
in a sentence of the article (``ignore``), a listing whose ads expire (``added_only``) —
signed as the crawl signs it: the page parsed, then the signature ``RuledSignatures``
gives its URL.
"""

from __future__ import annotations

import pytest
from recrawl.core.content.diff import diff_lines
from recrawl.core.content.maintext import payload_text
from recrawl.core.engine.parse import parse_html
from recrawl.core.policy.change_rules import (
    ChangeRule,
    ChangeRules,
    RuledSignature,
    RuledSignatures,
)
from recrawl.core.policy.signature import Signature, make_signature

URL = "https://news.example.org/story/1"
PREFIX = "https://news.example.org/"

PARAGRAPHS = (
    "Surveyors from the national mapping agency returned from the summit last week with "
    "new measurements of the Grossberg, the highest peak in the eastern range.",
    "The survey team spent four days on the mountain, using satellite receivers and a "
    "laser rangefinder to measure the rock beneath the snow cap.",
    "Local guides welcomed the news, saying it would help climbers plan their ascents "
    "with more accurate altitude information on their maps and devices.",
    "The agency will publish the full report, with the measurements of eleven other "
    "summits of the range, in the spring.",
)
EDITED = PARAGRAPHS[1].replace("four days", "five days")


def article(
    paragraphs: tuple[str, ...] = PARAGRAPHS,
    *,
    widget: str = "",
    at: int = 1,
    beside: str = "",
    ad: str = "",
    views: str = "1,234 views",
) -> str:
    """A news page: ``widget`` among the paragraphs (before paragraph ``at``), ``beside``
    after the article's body, ``ad`` between its paragraphs; the usual boilerplate."""
    blocks = [f"<p>{p}</p>" for p in paragraphs]
    if widget:
        blocks.insert(at, widget)
    if ad:
        blocks.insert(2, ad)
    body = "\n".join(blocks)
    return f"""<!doctype html><html><head><title>The Grossberg is taller | Alpine News</title>
</head><body><header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header>
<article id="main"><h1 class="title">The Grossberg is taller than thought</h1>
<p class="meta">{views}</p>
<div class="story-body">{body}</div>{beside}
</article>
<aside class="sidebar"><h3>Related</h3><ul><li><a href="/r/1">Snow forecast</a></li></ul></aside>
<footer>© 2026 Alpine News · <a href="/about">About</a></footer></body></html>"""


def ticker(*headlines: str) -> str:
    return f'<p id="hot-stories"><b>Trending now:</b> {" | ".join(headlines)}</p>'


def quote(text: str, who: str) -> str:
    return f'<blockquote class="daily-quote"><p>“{text}”</p><footer>— {who}</footer></blockquote>'


def score(home: int, away: int, minute: int) -> str:
    return f"Live: Millbrook FC {home}–{away} Riverside United after {minute} minutes."


def scored(home: int, away: int, minute: int, paragraphs: tuple[str, ...] = PARAGRAPHS) -> str:
    first = f"{paragraphs[0]} {score(home, away, minute)}"
    return article((first, *paragraphs[1:]))


def listing(*ads: str, headline: str = "Bikes for sale") -> str:
    items = "".join(
        f'<div class="item"><h2><a href="/ad/{i}">{title}</a></h2><p>{text}</p>'
        f'<p class="price">Price: €{price}</p></div>'
        for i, (title, text, price) in enumerate(ad.split("|") for ad in ads)
    )
    return f"""<!doctype html><html><head><title>{headline} | Valley Courier</title></head>
<body><header><nav><a href="/">Home</a> <a href="/ads">Classifieds</a></nav></header>
<main id="main"><h1 class="title">{headline}</h1>{items}</main>
<footer>© 2026 Valley Courier</footer></body></html>"""


ADS = (
    "Touring bike, 2015|Steel frame, new chain and tyres, ridden on the northern ridge path "
    "every summer and kept in a dry garage.|420",
    "Child seat for a bike|Fits most carriers, washable cover, used for one season only "
    "and in very good condition.|35",
    "Racing bike, carbon|Light carbon frame with electronic gears, serviced last month by "
    "the shop in the market square.|1,900",
    "Trailer for two children|Folds flat, with a rain cover and a flag, collection from "
    "Riverside only, no delivery.|150",
)
NEW_AD = (
    "Cargo bike with a box|Carries two children or the weekly shopping, electric motor "
    "with a range of about sixty kilometres.|2,400"
)


def sign(signature: Signature, html: str) -> bytes:
    """The page's signature as the crawl computes it (its parsed text, its links)."""
    payload = html.encode("utf-8")
    parsed = parse_html(payload, URL, "text/html; charset=utf-8")
    return signature.compute(payload, parsed.text, tuple(link.url for link in parsed.links))


def changed(signature: Signature, old: str, new: str) -> bool:
    return not signature.same(sign(signature, old), sign(signature, new))


def under(rule: ChangeRule) -> Signature:
    """The signature the crawl signs ``URL`` with when ``rule`` is the project's only one."""
    signature = RuledSignatures(make_signature("main-text"), ChangeRules((rule,))).for_url(URL)
    assert isinstance(signature, RuledSignature)
    return signature


DEFAULT = make_signature("main-text")

TICKER_OLD = ticker("Storm closes the pass road", "Bakery wins national prize")
TICKER_NEW = ticker("Zoo welcomes two snow leopards", "Lost ring found after forty years")
QUOTE_OLD = quote("Knowledge is power.", "Francis Bacon")
QUOTE_NEW = quote("Well begun is half done.", "Aristotle")

#: case: (rule, the page, the page with its noise moved on, the page edited and moved on)
CASES = {
    "ticker": (
        ChangeRule(PREFIX, remove=("#hot-stories",)),
        article(widget=TICKER_OLD),
        article(widget=TICKER_NEW),
        article((PARAGRAPHS[0], EDITED, *PARAGRAPHS[2:]), widget=TICKER_NEW),
    ),
    "rotating quote": (
        ChangeRule(PREFIX, only=(".title", ".story-body")),
        article(beside=QUOTE_OLD),
        article(beside=QUOTE_NEW),
        article((PARAGRAPHS[0], EDITED, *PARAGRAPHS[2:]), beside=QUOTE_NEW),
    ),
    "live score": (
        ChangeRule(PREFIX, ignore=(r"Live: [^.]* after \d+ minutes\.",)),
        scored(1, 0, 52),
        scored(2, 0, 67),
        scored(2, 0, 67, (PARAGRAPHS[0], EDITED, *PARAGRAPHS[2:])),
    ),
    "expired ads": (
        ChangeRule(PREFIX, added_only=True),
        listing(*ADS),
        listing(ADS[0], ADS[2], ADS[3]),  # the child seat sold
        listing(ADS[0], ADS[2], ADS[3], NEW_AD),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_the_default_signature_sees_the_sites_noise_as_a_change(case: str) -> None:
    _, old, moved, _ = CASES[case]
    assert changed(DEFAULT, old, moved)


@pytest.mark.parametrize("case", CASES)
def test_the_rule_makes_the_noise_no_change(case: str) -> None:
    rule, old, moved, _ = CASES[case]
    assert not changed(under(rule), old, moved)


@pytest.mark.parametrize("case", CASES)
def test_a_real_edit_is_still_a_change_under_the_rule(case: str) -> None:
    rule, old, _, edited = CASES[case]
    assert changed(under(rule), old, edited)


#: What each case's widget says on the edited page (not to be shown as a change).
WIDGET_WORDS = {"ticker": "Zoo welcomes", "rotating quote": "Well begun", "live score": "Millbrook"}


@pytest.mark.parametrize("case", WIDGET_WORDS)
def test_the_diff_under_the_rule_shows_the_edit_without_the_widget(case: str) -> None:
    rule, old, _, edited = CASES[case]

    def text(html: str, with_rule: ChangeRule | None) -> tuple[str, ...]:
        return payload_text(html.encode(), "text/html; charset=utf-8", URL, with_rule).paragraphs

    plain = diff_lines(text(old, None), text(edited, None))
    assert any(WIDGET_WORDS[case] in line for line in plain.added)  # without the rule
    ruled = diff_lines(text(old, rule), text(edited, rule))
    assert any("five days" in line for line in ruled.added)
    assert not any(WIDGET_WORDS[case] in line for line in [*ruled.added, *ruled.removed])


def test_a_corrected_score_line_is_no_change_but_the_sentence_beside_it_is_kept() -> None:
    # the pattern takes the score out of the paragraph, not the paragraph with it
    rule = CASES["live score"][0]
    first = f"{PARAGRAPHS[0]} {score(1, 0, 52)}"
    lines = under(rule).text_lines(scored(1, 0, 52).encode(), first)
    assert lines is not None
    assert PARAGRAPHS[0] in lines
    assert not any("Millbrook" in line for line in lines)


def test_added_only_counts_a_changed_price_but_not_a_removed_ad() -> None:
    rule = CASES["expired ads"][0]
    cheaper = ADS[2].replace("|1,900", "|1,700")
    assert changed(under(rule), listing(*ADS), listing(ADS[0], cheaper, ADS[3]))
    assert not changed(under(rule), listing(*ADS), listing(ADS[0], ADS[3]))


# -- both selectors at once; ads inside what `only` keeps ---------------------------------


def test_remove_applies_inside_what_only_keeps() -> None:
    # `--only .story-body --remove .ticker`: the ticker sits inside the body
    rule = ChangeRule(PREFIX, remove=("#hot-stories",), only=(".title", ".story-body"))
    assert "Storm closes" not in rule.markup(article(widget=TICKER_OLD))
    assert "taller than thought" in rule.markup(article(widget=TICKER_OLD))
    assert not changed(under(rule), article(widget=TICKER_OLD), article(widget=TICKER_NEW))
    edited = article((PARAGRAPHS[0], EDITED, *PARAGRAPHS[2:]), widget=TICKER_NEW)
    assert changed(under(rule), article(widget=TICKER_OLD), edited)


def test_an_ad_inside_what_only_keeps_is_no_change_as_without_a_rule() -> None:
    # the default leaves ads out by their class; narrowing it to the article must not
    # bring them back
    rule = ChangeRule(PREFIX, only=(".title", ".story-body"))
    old = article(ad='<div class="ad-slot">Buy skis now: 20% off at SkiShop!</div>')
    new = article(ad='<div class="ad-slot">Flights to Lisbon from 49 EUR</div>')
    assert not changed(DEFAULT, old, new)
    assert not changed(under(rule), old, new)


def test_only_keeps_an_element_inside_another_kept_one_once_whatever_the_order() -> None:
    # `--only .price --only .story-body`: a price inside the body is the body's, once
    html = article(("A bike for sale. <span class='price'>Price: €420</span>",))
    for only in ((".price", ".story-body"), (".story-body", ".price")):
        kept = ChangeRule(PREFIX, only=only).markup(html)
        assert kept.count("€420") == 1, only
