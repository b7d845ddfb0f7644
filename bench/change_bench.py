#!/usr/bin/env python
"""Change-detection benchmark: which signature sees real edits and ignores noise.

Builds a labelled corpus of page-version pairs from four kinds of page (a news article,
a listing of classified ads, a product page, a forum thread), each with realistic
boilerplate (navigation, a sidebar, a footer, ads, a login form). A pair is either a
**meaningful edit** (a corrected number, an added sentence, a new or removed paragraph,
a changed headline, a changed price), with the page's noise re-rolled as it would be on
a real revisit, or **noise only** (a clock, "updated 3 minutes ago", a visitor counter,
a rotating ad or promo block, a CSRF token, a session id in the links, shuffled related
links, the footer's year, or all of them at once). Noise is worded from several
phrasings per kind and sometimes sits inside the article area (under the headline).

For each signature it prints the recall on edits and the false-alarm rate on noise,
overall and per kind, and the CPU time a signature takes per page (the crawl's parse
not included). Target for main-text: recall >= 95 %, false alarms <= 5 %.

    python bench/change_bench.py [--per 10] [--seed 13] [--signatures main-text,md5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from recrawl.core.engine.parse import parse_html
from recrawl.core.policy.signature import Signature, make_signature

EDITS = ("number", "sentence", "paragraph added", "paragraph removed", "headline", "price")
NOISES = (
    "clock",
    "relative time",
    "counter",
    "ad or promo",
    "csrf token",
    "session id",
    "shuffled related",
    "footer year",
    "all noise",
)
TEMPLATES = ("article", "listing", "product", "forum")
SIGNATURES = ("main-text", "text-profile", "md5", "simhash", "outlinks")

# --- words -----------------------------------------------------------------------------

PLACES = [
    "Millbrook", "the eastern valley", "Grossberg", "the old harbour", "Riverside",
    "the northern district", "Lakeview", "the market square", "Oakridge", "the city centre",
]  # fmt: skip
ORGS = [
    "the town council", "the regional water board", "the county museum", "the mapping agency",
    "the rail operator", "the hospital trust", "the football club", "the university",
    "the chamber of commerce", "the housing association",
]  # fmt: skip
PEOPLE = [
    "Maria Keller", "the mayor", "a spokesperson", "Dr Amir Hassan", "the head teacher",
    "local residents", "the project manager", "Jonas Berg", "the chief engineer", "volunteers",
]  # fmt: skip
THINGS = [
    "the new footbridge", "the library extension", "the flood barrier", "the tram line",
    "the summer festival", "the school canteen", "the cycle path", "the solar farm",
    "the renovated station", "the community garden",
]  # fmt: skip
SENTENCES = [
    "{org} said that {thing} would cost {money}, about {pct} percent more than planned.",
    "Work on {thing} began in {year} and is expected to take another {n} months.",
    "{person} told reporters that {place} had waited long enough for {thing}.",
    "The survey counted {big} households in {place}, up from {big2} ten years ago.",
    "According to {org}, the summit of the ridge stands at {height} m above sea level.",
    "{person} pointed out that {thing} had been discussed at {n} public meetings.",
    "Residents of {place} will be able to comment on the plans until the end of the month.",
    "The route runs for {km} km along the river before it turns towards {place}.",
    "{org} expects around {big} people to use {thing} every week once it opens.",
    "Critics argue that the money would be better spent on repairs to existing roads.",
    "The last comparable project, finished in {year}, came in {pct} percent over budget.",
    "{person} said the decision was taken after a long and sometimes heated debate.",
    "A first phase of {thing} is due to open in {place} before the winter.",
    "The museum recorded {big} visitors last year, its best result since {year}.",
    "Tickets for the opening weekend cost {price} for adults and half that for children.",
    "Engineers found that the old structure could carry no more than {n} tonnes.",
    "{org} has promised to publish the full report, including all measurements, online.",
    "In a statement, {person} thanked the {n} volunteers who had helped with the work.",
    "The temperature at the station fell to minus {n} degrees during the night.",
    "Funding comes partly from a national programme and partly from {org}.",
]  # fmt: skip
EXTRA_SENTENCES = [
    "Correction: the summit is {height} m high, not {height2} m as we first reported.",
    "{person} later added that a decision on the second phase is expected in spring.",
    "An earlier version of this article gave the wrong date for the public meeting.",
    "The council will vote on the final plans at its meeting next month.",
    "This article has been amended to include a response from {org}.",
    "A spokesperson for {org} declined to comment on the figures.",
]  # fmt: skip
HEADLINES = [
    "{Thing} delayed again as costs rise", "Council approves plans for {thing}",
    "{Place} residents divided over {thing}", "New figures show {thing} is over budget",
    "{Thing} to open next spring", "Survey finds strong support for {thing}",
    "Engineers raise concerns about {thing}", "Volunteers finish work on {thing}",
]  # fmt: skip
PRODUCTS = [
    ("Trail running shoe", "lightweight shoe with a grippy outsole for muddy paths"),
    ("Insulated water bottle", "steel bottle that keeps drinks cold for a whole day"),
    ("Two-person tent", "freestanding tent that pitches in under five minutes"),
    ("Headlamp 400", "rechargeable headlamp with a red night-vision mode"),
    ("Merino base layer", "soft long-sleeved top that does not itch or smell"),
    ("Folding trekking poles", "aluminium poles that fold to forty centimetres"),
]  # fmt: skip
FORUM_TOPICS = [
    "Best way to waterproof old leather boots?", "Tent condensation on cold nights",
    "Which map app works offline in the mountains?", "Replacing the chain on a 2015 touring bike",
    "Is the northern ridge path open after the storm?", "Cheap stove recommendations",
]  # fmt: skip
ADS = [
    "Buy skis now: 20% off at SkiShop!", "Hotel Alpenblick - book three nights, pay two",
    "Learn Spanish in 3 months with LinguaNow. Try it free.", "New SUV from 299 a month*",
    "Car insurance? Compare 40 quotes in 2 minutes", "Summer sale: up to 50% off outdoor gear",
    "Your ad here - reach 100,000 local readers", "Win a weekend for two in Venice!",
    "Fresh coffee beans delivered weekly. First bag free", "Top 10 gadgets of the year",
    "Mortgage rates from 3.1%. Check your rate today", "Join 2 million members at FitClub",
    "Flights to Lisbon from 49 EUR", "Download our app and save 10% on your first order",
    "Adopt a pet this weekend at the city shelter",
]  # fmt: skip
AD_MARKUP = [
    '<div class="ad-slot">{label}{ad}</div>', '<aside class="promo"><p>{ad}</p></aside>',
    '<div class="sponsored">{label}<a href="https://ads.example.net/c?id={n}">{ad}</a></div>',
    '<div id="banner-top" class="banner">{ad}</div>', '<div class="advert mpu">{label}{ad}</div>',
    '<section class="dfp-ad" data-slot="{n}"><span>{ad}</span></section>',
    '<div class="box partner"><p>{label}{ad}</p></div>',
    '<div id="div-gpt-ad-1612-{n}"><a href="https://ads.example.net/{n}">{ad}</a></div>',
    '<p class="teaser"><strong>{label}</strong>{ad}</p>',
]  # fmt: skip
SITES = ["Valley Courier", "Alpine News", "Riverside Post", "The Harbour Gazette", "Outdoor Hub"]
NAV = ["Home", "News", "Sport", "Culture", "Weather", "Opinion", "Travel", "Shop", "Forum", "About"]
RELATED = [
    "Glaciers retreat faster than expected", "Snow forecast for the weekend",
    "New hut opens on the northern ridge", "Bus timetable changes from Monday",
    "Five walks for a rainy afternoon", "Interview: the last ferryman of the lake",
    "Market square to get new benches", "Photos: the autumn fair in pictures",
    "Why the river smells in August", "School reopens after repairs",
]  # fmt: skip


# --- noise -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Noise:
    """What differs between two fetches of an unchanged page."""

    now: datetime
    minutes_ago: int
    counter: int
    ad: int
    token: str
    session: str
    related_order: tuple[int, ...]
    year: int

    @staticmethod
    def rolled(rng: random.Random, related: int) -> Noise:
        order = list(range(related))
        rng.shuffle(order)
        return Noise(
            now=datetime(2026, 11, 30, 6, 0) + timedelta(minutes=rng.randrange(60 * 24 * 30)),
            minutes_ago=rng.randrange(1, 59),
            counter=rng.randrange(1_000, 2_000_000),
            ad=rng.randrange(len(ADS)),
            token=_token(rng),
            session=_token(rng, short=True),
            related_order=tuple(order),
            year=rng.choice([2025, 2026]),
        )

    def varied(self, kind: str, rng: random.Random) -> Noise:
        """This noise with one kind (or all) moved on, as a later fetch sees it."""
        later = Noise.rolled(rng, len(self.related_order))
        moved = {
            "clock": {"now": self.now + timedelta(minutes=rng.randrange(7, 60 * 24 * 9))},
            "relative time": {"minutes_ago": _other(rng, self.minutes_ago, 1, 59)},
            "counter": {"counter": self.counter + rng.randrange(1, 5_000)},
            "ad or promo": {"ad": _other(rng, self.ad, 0, len(ADS) - 1)},
            "csrf token": {"token": later.token},
            "session id": {"session": later.session},
            "shuffled related": {"related_order": _shuffled(rng, self.related_order)},
            "footer year": {"year": self.year + 1},
        }
        if kind == "all noise":
            changes: dict[str, object] = {}
            for one in moved.values():
                changes.update(one)
            return replace(self, **changes)  # type: ignore[arg-type]
        return replace(self, **moved[kind])  # type: ignore[arg-type]


def _other(rng: random.Random, value: int, low: int, high: int) -> int:
    while (new := rng.randint(low, high)) == value:
        pass
    return new


def _shuffled(rng: random.Random, order: tuple[int, ...]) -> tuple[int, ...]:
    new = list(order)
    while tuple(new) == order:
        rng.shuffle(new)
    return tuple(new)


def _token(rng: random.Random, short: bool = False) -> str:
    style = rng.randrange(3)
    if short:
        return "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([16, 26, 32])))
    if style == 0:
        return "".join(rng.choice("0123456789abcdef") for _ in range(40))
    if style == 1:
        chars = string.ascii_letters + string.digits + "-_"
        return "".join(rng.choice(chars) for _ in range(43))
    hexes = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    return f"{hexes[:8]}-{hexes[8:12]}-{hexes[12:16]}-{hexes[16:20]}-{hexes[20:]}"


def clock_text(now: datetime, style: int) -> str:
    hour12 = now.hour % 12 or 12
    ampm = "am" if now.hour < 12 else "pm"
    return [
        f"{now:%H:%M}",
        f"{now:%a %d %b %Y} {now:%H:%M} UTC",
        f"It is {hour12}:{now:%M} {ampm} in Vienna",
        f"Server time: {now:%Y-%m-%d %H:%M:%S}",
        f"{now:%A, %B} {now.day}, {now.year}",
        f"Local time {now:%H.%M}",
        f"Today is {now:%A %d %B}",
        f"{now:%d/%m/%Y %H:%M}",
    ][style]


def relative_text(minutes: int, style: int) -> str:
    hours = max(1, minutes // 10)
    return [
        f"Updated {minutes} minutes ago",
        f"Last updated {hours} hours ago",
        f"posted {minutes} mins ago",
        f"{hours}h ago",
        f"Edited {minutes} minutes ago by the newsdesk",
        "Refreshed just now" if minutes < 5 else f"Refreshed {minutes} min ago",
        f"Published about {hours} hours ago",
        f"Live: last post {minutes} minutes ago",
    ][style]


def counter_text(count: int, style: int) -> str:
    return [
        f"{count:,} views",
        f"Visitors: {count}",
        f"You are visitor #{count:,}",
        f"Viewed {count:,} times",
        f"{count % 40 + 2} people are viewing this right now",
        f"Online: {count % 90 + 3} members, {count % 300 + 20} guests",
        f"{count % 900 + 10} likes",
        f"Page views {count:,}",
    ][style]


def year_text(year: int, site: str, style: int) -> str:
    return [
        f"© {year} {site}",
        f"Copyright 2003–{year} {site}. All rights reserved.",
        f"(c) {year} {site} Ltd",
        f"{site} © 2010-{year}",
    ][style]


# --- pages -----------------------------------------------------------------------------


@dataclass
class Content:
    """What a reader reads: the part an edit changes."""

    headline: str
    blocks: list[str]  # paragraphs, listing items or forum posts (markup of each)
    price: str = ""


@dataclass(frozen=True)
class Style:
    """How a site lays its page out and words its noise: fixed for both versions."""

    template: str
    site: str
    nav: tuple[str, ...]
    related_count: int
    clock: int
    relative: int
    counter: int
    year: int
    ad_markup: int
    ad_label: bool
    session_style: int
    #: Noise kinds shown inside the article area rather than in the boilerplate.
    inside: frozenset[str] = field(default_factory=frozenset)


def _fill(template: str, rng: random.Random) -> str:
    height = rng.randrange(1200, 4800)
    digits = list(str(height))
    i = rng.randrange(len(digits) - 1)
    digits[i], digits[i + 1] = digits[i + 1], digits[i]
    thing = rng.choice(THINGS)
    place = rng.choice(PLACES)
    return template.format(
        org=rng.choice(ORGS),
        thing=thing,
        Thing=thing[0].upper() + thing[1:],
        place=place,
        Place=place[0].upper() + place[1:],
        person=rng.choice(PEOPLE),
        money=f"€{rng.randrange(2, 90)}.{rng.randrange(1, 9)} million",
        pct=rng.randrange(3, 60),
        year=rng.randrange(1950, 2024),
        n=rng.randrange(3, 40),
        big=f"{rng.randrange(1_000, 90_000):,}",
        big2=f"{rng.randrange(1_000, 90_000):,}",
        height=f"{height:,}",
        height2=f"{int(''.join(digits)):,}",
        km=rng.randrange(2, 60),
        price=f"€{rng.randrange(5, 40)}",
    ).replace("the the", "the")


def sentence(rng: random.Random) -> str:
    text = _fill(rng.choice(SENTENCES), rng)
    return text[0].upper() + text[1:]


def paragraph(rng: random.Random, sentences: tuple[int, int] = (3, 5)) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(*sentences)))


def make_content(template: str, rng: random.Random) -> Content:
    headline = _fill(rng.choice(HEADLINES), rng)
    if template == "article":
        return Content(headline, [f"<p>{paragraph(rng)}</p>" for _ in range(rng.randint(4, 8))])
    if template == "listing":
        return Content(headline, [listing_item(rng) for _ in range(rng.randint(6, 12))])
    if template == "product":
        name, blurb = rng.choice(PRODUCTS)
        price = f"€{rng.randrange(15, 400)}.{rng.choice(['00', '90', '95', '99'])}"
        blocks = [f"<p>The {name.lower()} is a {blurb}. {paragraph(rng, (2, 3))}</p>"]
        blocks += [f"<p>{paragraph(rng, (2, 4))}</p>" for _ in range(rng.randint(2, 4))]
        return Content(name, blocks, price)
    topic = rng.choice(FORUM_TOPICS)
    return Content(topic, [forum_post(rng) for _ in range(rng.randint(3, 8))])


def listing_item(rng: random.Random) -> str:
    title = _fill(rng.choice(HEADLINES), rng)
    price = f"€{rng.randrange(20, 9000):,}"
    return (
        f'<div class="item"><h2><a href="/ad/{rng.randrange(10**6)}">{title}</a></h2>'
        f'<p>{paragraph(rng, (1, 2))}</p><p class="price">Price: {price}</p></div>'
    )


def forum_post(rng: random.Random) -> str:
    user = rng.choice(["hillwalker", "kettle_jo", "M.Berg", "riverrat", "anna_k", "old_pete"])
    return (
        f'<div class="post"><div class="author">{user} <span class="stats">@@STATS@@</span></div>'
        f'<div class="body"><p>{paragraph(rng, (2, 4))}</p></div>'
        f'<div class="sig">-- {user} from {rng.choice(PLACES)}</div></div>'
    )


def make_style(template: str, rng: random.Random) -> Style:
    inside = {
        k for k in ("clock", "relative time", "counter", "ad or promo") if rng.random() < 0.35
    }
    return Style(
        template=template,
        site=rng.choice(SITES),
        nav=tuple(rng.sample(NAV, rng.randint(5, 9))),
        related_count=rng.randint(3, 7),
        clock=rng.randrange(8),
        relative=rng.randrange(8),
        counter=rng.randrange(8),
        year=rng.randrange(4),
        ad_markup=rng.randrange(len(AD_MARKUP)),
        ad_label=rng.random() < 0.5,
        session_style=rng.randrange(4),
        inside=frozenset(inside),
    )


def link(href: str, style: Style, noise: Noise) -> str:
    sid = noise.session
    return [
        f"{href}?sid={sid}",
        f"{href};jsessionid={sid.upper()}",
        f"{href}?PHPSESSID={sid}",
        f"{href}?s={sid}&amp;ref=nav",
    ][style.session_style]


def render(content: Content, style: Style, noise: Noise) -> str:
    def a(href: str, text: str) -> str:
        return f'<a href="{link(href, style, noise)}">{text}</a>'

    nav = " ".join(a(f"/{n.lower()}", n) for n in style.nav)
    clock = clock_text(noise.now, style.clock)
    relative = relative_text(noise.minutes_ago, style.relative)
    counter = counter_text(noise.counter, style.counter)
    label = "<small>Advertisement</small> " if style.ad_label else ""
    ad = AD_MARKUP[style.ad_markup].format(ad=ADS[noise.ad], label=label, n=noise.ad)
    related_titles = RELATED[: style.related_count]
    related = "".join(
        f"<li>{a('/story/' + str(i), related_titles[i])}</li>" for i in noise.related_order
    )
    meta = " · ".join(
        f"<span>{text}</span>"
        for kind, text in (("clock", clock), ("relative time", relative), ("counter", counter))
        if kind in style.inside
    )
    inline_ad = ad if "ad or promo" in style.inside else ""
    side_ad = "" if inline_ad else ad
    blocks = [
        b.replace("@@STATS@@", f"Posts: {noise.counter % 7000 + i * 37:,}")
        for i, b in enumerate(content.blocks)
    ]
    if "relative time" in style.inside and style.relative % 2:
        # the update note as a sentence of the article, not a widget
        note = f"This story was updated {noise.minutes_ago} minutes ago and may change."
        blocks.insert(0, f"<p><em>{note}</em></p>")
    if inline_ad and len(blocks) > 2:
        blocks.insert(2, inline_ad)
    heading = {"article": "h1", "listing": "h1", "product": "h1", "forum": "h2"}[style.template]
    price = (
        f'<p class="price"><strong>{content.price}</strong> incl. VAT</p>'
        f'<form action="/cart" method="post"><input type="hidden" name="csrf_token" '
        f'value="{noise.token}"><button>Add to basket</button></form>'
        if content.price
        else ""
    )
    main = (
        f'<{heading} class="title">{content.headline}</{heading}>'
        + (f'<div class="meta">{meta}</div>' if meta else "")
        + price
        + "\n".join(blocks)
    )
    wrapper = {"article": "article", "listing": "main", "product": "main", "forum": "div"}
    tag = wrapper[style.template]
    boiler_clock = "" if "clock" in style.inside else f'<div class="clock">{clock}</div>'
    boiler_relative = "" if "relative time" in style.inside else f'<p class="latest">{relative}</p>'
    boiler_counter = "" if "counter" in style.inside else f'<span class="hits">{counter}</span>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{content.headline} | {style.site}</title>
<meta name="csrf-token" content="{noise.token}">
<link rel="stylesheet" href="/static/site.css">
<script>window.__state = {{"session": "{noise.session}", "ts": {noise.counter}}};</script>
</head><body>
<header class="site-header"><div class="logo">{a("/", style.site)}</div>
<nav class="main-nav">{nav}</nav>{boiler_clock}
<form class="search" action="/search"><input type="hidden" name="_token" value="{noise.token}">
<input name="q" placeholder="Search"><button>Go</button></form></header>
<div class="layout"><{tag} class="content" id="main">
{main}
</{tag}>
<aside class="sidebar"><h3>Related</h3><ul class="related">{related}</ul>
{boiler_relative}{side_ad}</aside></div>
<footer class="site-footer"><p>{year_text(noise.year, style.site, style.year)}</p>
<p>{a("/about", "About us")} · {a("/contact", "Contact")} · {a("/privacy", "Privacy")}</p>
{boiler_counter}</footer></body></html>"""


# --- edits -----------------------------------------------------------------------------


def edited(content: Content, kind: str, rng: random.Random) -> Content:
    blocks = list(content.blocks)
    if kind == "headline":
        while (headline := _fill(rng.choice(HEADLINES), rng)) == content.headline:
            pass
        return replace(content, headline=headline)
    if kind == "price":
        if content.price:
            euros = int(content.price[1:].split(".")[0])
            return replace(content, price=f"€{euros + rng.choice([-5, -2, 1, 3, 10])}.00")
        return _price_in_text(content, rng)
    if kind == "number":
        return _number_changed(content, rng)
    if kind == "sentence":
        i = rng.randrange(len(blocks))
        extra = _fill(rng.choice(EXTRA_SENTENCES + SENTENCES), rng)
        blocks[i] = blocks[i].replace("</p>", f" {extra[0].upper()}{extra[1:]}</p>", 1)
        return replace(content, blocks=blocks)
    if kind == "paragraph added":
        new = make_content(content_template(content), rng).blocks[0]
        blocks.insert(rng.randrange(len(blocks) + 1), new)
        return replace(content, blocks=blocks)
    if kind == "paragraph removed":
        del blocks[rng.randrange(len(blocks))]
        return replace(content, blocks=blocks)
    raise ValueError(kind)


def content_template(content: Content) -> str:
    first = content.blocks[0]
    if first.startswith('<div class="item">'):
        return "listing"
    if first.startswith('<div class="post">'):
        return "forum"
    return "product" if content.price else "article"


def _numbers(block: str) -> list[tuple[int, int]]:
    import re

    text_only = re.sub(r"<[^>]+>", lambda m: " " * len(m.group()), block)
    return [m.span() for m in re.finditer(r"\d[\d,.]*\d|\d", text_only)]


def _number_changed(content: Content, rng: random.Random) -> Content:
    blocks = list(content.blocks)
    candidates = [(i, span) for i, b in enumerate(blocks) for span in _numbers(b)]
    i, (start, end) = rng.choice(candidates)
    old = blocks[i][start:end]
    digits = [c for c in old if c.isdigit()]
    new = old
    while new == old:
        j = rng.randrange(len(digits))
        digits[j] = str((int(digits[j]) + rng.randrange(1, 9)) % 10)
        it = iter(digits)
        new = "".join(next(it) if c.isdigit() else c for c in old)
    blocks[i] = blocks[i][:start] + new + blocks[i][end:]
    return replace(content, blocks=blocks)


def _price_in_text(content: Content, rng: random.Random) -> Content:
    import re

    blocks = list(content.blocks)
    priced = [i for i, b in enumerate(blocks) if "€" in b]
    if not priced:  # give the page a price first: the pair's old version has it too
        raise LookupError("no price")
    i = rng.choice(priced)
    blocks[i] = re.sub(
        r"€([\d,]+)", lambda m: f"€{int(m.group(1).replace(',', '')) + 7:,}", blocks[i], count=1
    )
    return replace(content, blocks=blocks)


# --- the corpus ------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    template: str
    label: str  # "edit" or "noise"
    kind: str
    old: str
    new: str
    #: An edit's new version with all the noise moved on too, as a real revisit sees it.
    noisy: str | None = None


def corpus(per: int, seed: int) -> list[Pair]:
    rng = random.Random(seed)
    pairs = []
    for template in TEMPLATES:
        for kind in EDITS + NOISES:
            made = 0
            while made < per:
                content = make_content(template, rng)
                style = make_style(template, rng)
                noise = Noise.rolled(rng, style.related_count)
                if kind in EDITS:
                    try:
                        after = edited(content, kind, rng)
                    except LookupError:
                        continue
                    new = render(after, style, noise)
                    noisy: str | None = render(after, style, noise.varied("all noise", rng))
                    label = "edit"
                else:
                    new = render(content, style, noise.varied(kind, rng))
                    noisy, label = None, "noise"
                old = render(content, style, noise)
                pairs.append(Pair(template, label, kind, old, new, noisy))
                made += 1
    return pairs


# --- measuring -------------------------------------------------------------------------


@dataclass
class Tally:
    hits: int = 0
    total: int = 0

    def rate(self) -> float:
        return 100.0 * self.hits / self.total if self.total else float("nan")


def measure(pairs: list[Pair], kinds: list[str]) -> None:
    parsed: dict[str, tuple[str | None, tuple[str, ...]]] = {}
    url = "https://news.example.org/story/1"
    for pair in pairs:
        for html in (pair.old, pair.new, pair.noisy):
            if html is not None and html not in parsed:
                result = parse_html(html.encode(), url, "text/html; charset=utf-8")
                parsed[html] = (result.text, tuple(link.url for link in result.links))

    by_kind: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    overall: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    by_template: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    cost: dict[str, list[float]] = defaultdict(list)
    for kind in kinds:
        signature = make_signature(kind)
        signature.compute(b"<p>warm up</p>", "warm up", ())  # imports, caches
        memo: dict[str, bytes] = {}
        spent = cost[kind]

        def sign(
            html: str,
            signature: Signature = signature,
            memo: dict[str, bytes] = memo,
            spent: list[float] = spent,
        ) -> bytes:
            if html not in memo:
                text, links = parsed[html]
                start = time.process_time()
                memo[html] = signature.compute(html.encode(), text, links)
                spent.append(time.process_time() - start)
            return memo[html]

        for pair in pairs:
            old, new = sign(pair.old), sign(pair.new)
            changed = not signature.same(old, new)
            for table, key in ((by_kind, pair.kind), (overall, pair.label)):
                tally = table[key][kind]
                tally.total += 1
                tally.hits += changed
            tally = by_template[f"{pair.template} {pair.label}"][kind]
            tally.total += 1
            tally.hits += changed
            if pair.noisy is not None:
                tally = overall["edit + all noise"][kind]
                tally.total += 1
                tally.hits += not signature.same(old, sign(pair.noisy))

    edits = sum(p.label == "edit" for p in pairs)
    print(f"{len(pairs)} pairs: {edits} meaningful edits, {len(pairs) - edits} noise only\n")
    _table(
        "overall",
        ["recall on edits", "recall, edit + all noise", "false alarms"],
        kinds,
        overall,
        ["edit", "edit + all noise", "noise"],
    )
    print()
    _table("edit kind (recall %)", list(EDITS), kinds, by_kind, list(EDITS))
    print()
    _table("noise kind (false alarm %)", list(NOISES), kinds, by_kind, list(NOISES))
    print()
    rows = [f"{t} {label}" for t in TEMPLATES for label in ("edit", "noise")]
    _table("page kind (changed %)", rows, kinds, by_template, rows)
    print()
    print(f"{'CPU per page (ms)':<28}" + "".join(f"{k:>14}" for k in kinds))
    for name, pick in (
        ("mean", statistics.fmean),
        ("median", statistics.median),
        ("p95", lambda xs: statistics.quantiles(xs, n=20)[-1]),
        ("max", max),
    ):
        print(f"{name:<28}" + "".join(f"{1000 * pick(cost[k]):>14.2f}" for k in kinds))
    main = overall["edit"].get("main-text"), overall["noise"].get("main-text")
    if main[0] is not None and main[1] is not None:
        ok = main[0].rate() >= 95 and main[1].rate() <= 5
        print(
            f"\nmain-text: recall {main[0].rate():.1f} % (target >= 95 %), false alarms "
            f"{main[1].rate():.1f} % (target <= 5 %): {'met' if ok else 'NOT met'}"
        )


def _table(
    title: str,
    names: list[str],
    kinds: list[str],
    table: dict[str, dict[str, Tally]],
    keys: list[str],
) -> None:
    print(f"{title:<28}" + "".join(f"{k:>14}" for k in kinds))
    for name, key in zip(names, keys, strict=True):
        row = table[key]
        count = row[kinds[0]].total
        cells = "".join(f"{row[k].rate():>13.1f}%" for k in kinds)
        print(f"{f'{name} ({count})':<28}{cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per", type=int, default=10, help="pairs per page kind and label kind")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--signatures", default=",".join(SIGNATURES))
    parser.add_argument("--show", metavar="KIND", help="print one pair of this kind and exit")
    args = parser.parse_args(argv)
    pairs = corpus(args.per, args.seed)
    if args.show:
        pair = next(p for p in pairs if p.kind == args.show)
        print(pair.old, "\n\n----- later -----\n\n", pair.new, sep="")
        return 0
    measure(pairs, args.signatures.split(","))
    return 0


if __name__ == "__main__":
    sys.exit(main())
