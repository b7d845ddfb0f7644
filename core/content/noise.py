"""What changes on every fetch of a page without the page changing, masked by its context.

A page's text carries noise: a clock, a date line, "updated 3 minutes ago", a visitor
counter, a session id or a CSRF token that leaked into the text, the footer's copyright
year, a "related" list shuffled on each visit. :func:`normalised_lines` masks them so
that a signature over the rest changes exactly when the words a reader reads change: a
corrected number in a sentence, an added sentence, a new headline or price.

Context decides, not the digits alone: "2,345 m" in a sentence is content, "1,234 views"
is a counter; a bare date or clock time is masked on a short line (a date line, a
widget) or after a word that says it is a timestamp ("updated", "as of"), and kept in a
sentence that merely mentions it. Dates joined to a clock time, ISO timestamps,
relative times and copyright years are masked wherever they are.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser

#: A line of at most this many words is a "short line": a date line, a widget, an item
#: of a list of links. Its dates and times are masked, and a run of such lines is sorted.
SHORT_LINE_WORDS = 12
#: A line of at least this many words with a full stop is prose: its numbers are content.
PROSE_WORDS = 8

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_WEEKDAYS = r"(?:mon|tue|wed|thu|fri|sat|sun)(?:[a-z]{0,6})?\.?"
_ZONE = r"(?:\s*(?:utc|gmt|z|[a-z]{1,4}[sd]?t|[+-]\d{2}:?\d{2})(?![a-z]))?"
_HOUR = r"(?<![\d.,€$£¥])(?:[01]?\d|2[0-3])"
_CLOCK = rf"{_HOUR}[:.h][0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:\s*[ap]\.?\s?m\.?)?{_ZONE}"
_CLOCK_12H = rf"{_HOUR}\s*[ap]\.?\s?m\.?{_ZONE}"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = (
    r"(?:"
    rf"(?:{_WEEKDAYS},?\s+)?{_DAY}\.?\s+(?:of\s+)?{_MONTHS},?(?:\s+\d{{4}})?"  # 30 Nov 2026
    rf"|(?:{_WEEKDAYS},?\s+)?{_MONTHS}\s+{_DAY}(?:,?\s+\d{{4}})?"  # Nov 30, 2026
    r"|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"  # 2026-11-30
    r"|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})"  # 30/11/2026, 11.30.26
    rf"|{_WEEKDAYS}(?=[\s,]|$)"  # a weekday alone, as in "Monday, 18:42"
    r")"
)
#: A date and a time together, or an ISO timestamp: a timestamp wherever it stands.
_TIMESTAMP = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}[t ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?(?:z|[+-]\d{{2}}:?\d{{2}})?"
    rf"|{_DATE}(?:,|\s+at|\s+-|\s+·|\s+\|)?\s+(?:{_CLOCK}|{_CLOCK_12H})"
    rf"|(?:{_CLOCK}|{_CLOCK_12H}),?\s+(?:on\s+)?{_DATE})",
)
_DOTTED = re.compile(r"\d{1,2}\.\d{2}")
_DATE_OR_TIME = re.compile(rf"\b(?:{_DATE}|{_CLOCK}|{_CLOCK_12H})(?![\w:])")
#: Words that say the date or time after them is a timestamp of the page, not content.
_STAMP_CUE = re.compile(
    r"\b(?:updated|update|posted|published|modified|edited|revised|generated|rendered"
    r"|refreshed|retrieved|accessed|fetched|cached|loaded|as\s+of|last|current|server"
    r"|local\s+time|time\s+now|now|today|date|time|stand|stamp|timestamp)\b[^.!?]{0,24}$",
)
_NUMBER_WORDS = r"(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|several)"
_UNITS = (
    r"(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|mos?|months?"
    r"|y|yrs?|years?)"
)
_RELATIVE = re.compile(
    rf"\b(?:(?:about|around|over|almost|nearly|less\s+than|more\s+than|under)\s+)?"
    rf"{_NUMBER_WORDS}\s*{_UNITS}\.?\s+ago\b"
    r"|\b(?:in\s+the\s+)?(?:last|past)\s+\d+\s*" + _UNITS + r"\b"
    r"|\b(?:just\s+now|moments?\s+ago|a\s+moment\s+ago|right\s+now|yesterday|today|tonight"
    r"|tomorrow)\b",
)
_COUNT = r"(?:\d{1,3}(?:[,.' ]\d{3})+|\d+(?:[.,]\d+)?)(?:\s*[km]\b|\+)?"
_COUNTED = (
    r"(?:page\s*views?|views?|viewers?|visitors?|visits?|hits|reads|readers|comments?"
    r"|replies|responses|likes?|dislikes?|shares|followers?|subscribers?|downloads?|votes?"
    r"|reactions?|retweets?|reposts?|watchers?|clicks?|impressions?|plays|listens|bookmarks?"
    r"|favou?rites?|kudos|guests?|members?|users?|online(?:\s+now)?"
    r"|people\s+(?:are\s+)?(?:viewing|watching|reading|online|looking|here)"
    r"|posts|topics|threads|items?\s+in\s+(?:your\s+)?(?:cart|basket))"
)
_COUNTER = re.compile(
    # 1,234 views · 12 people are reading this · 3 online
    rf"\b{_COUNT}\s+(?:[a-z]+\s+)?{_COUNTED}\b"
    # Visitors: 123456 · Views 1.2k · Comments (12)
    rf"|\b{_COUNTED}\s*(?:count|total)?\s*[:(\[]?\s*{_COUNT}(?:\s*[)\]])?",
)
#: Counters in any line, a sentence included: "viewed 1,234 times", "visitor #12,345".
_COUNTER_PHRASE = re.compile(
    rf"\b(?:viewed|read|seen|downloaded|played|shared|visited|liked|accessed)\s+{_COUNT}\s+times\b"
    rf"|\b(?:visitor|viewer|reader|customer|member)\s*(?:no\.?|number|nr\.?|#)\s*#?\s*{_COUNT}",
)
_COPYRIGHT = re.compile(
    r"(?:©|\(c\)|copyright|&copy;)\s*(?:[a-z]+\s+)?(?:\d{4}\s*(?:[-–—/]|to)\s*)?\d{4}"
    r"|\b\d{4}\s*(?:[-–—]\s*\d{4}\s*)?(?:©|\(c\))",
)
#: Session ids and tokens named as such in the text or a URL in it.
_NAMED_TOKEN = re.compile(
    r"\b(?:sid|sessionid|session_id|session|phpsessid|jsessionid|aspsessionid\w*|token"
    r"|csrf\w*|xsrf\w*|nonce|_?ga|utm_\w+|fbclid|gclid|ref)=[^\s&#\"'<>]*",
)
#: Long runs of letters, digits and token punctuation (hex, base64, UUIDs, JWTs).
_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/_=.\-]{16,}")
#: A line that says it is an ad (its block had no class or id that says so).
_AD_LABEL = re.compile(
    r"(?:advertisement|anzeige|werbung|publicité|sponsored(?: content)?|paid content|promoted)"
    r"\b(?!\s+(?:of|for|by|is|was|were|has|had|and|in)\b)|ad:"
)
_WORDS = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
_SENTENCE_END = re.compile(r"[.!?:;]\s*$")
_PROSE_END = re.compile(r"[.!?][\"')\]]*(?:\s|$)")


#: Elements that are ads or promotions by their class or id, as ad blockers' generic
#: rules find them: a rotating ad inside the article is not the article.
_AD_WORDS = (
    "ad", "ads", "adv", "advert", "advertisement", "adsbygoogle", "adslot", "ad-slot",
    "ad-container", "ad-banner", "banner-ad", "dfp-ad", "mpu", "promo", "promos", "promobox",
    "promo-box", "inline-promo", "sponsor", "sponsored", "sponsored-content",
)  # fmt: skip
_AD_PREFIXES = ("ad-", "ad_", "ads-", "ads_", "gpt-ad", "div-gpt-ad", "google_ads", "dfp-")
_AD_PARTS = (" ad-", "-ad-", "_ad_", "advert", "sponsored", "adsbygoogle", "outbrain", "taboola")
_AD_ELEMENTS = ",".join(
    [
        *(f'[class~="{w}" i],[id~="{w}" i]' for w in _AD_WORDS),
        *(f'[class^="{w}" i],[id^="{w}" i]' for w in _AD_PREFIXES),
        *(f'[class*="{w}" i],[id*="{w}" i]' for w in _AD_PARTS),
    ]
)


def without_ads(markup: str) -> str:
    """The markup without the elements that are ads or promotions by their class or id."""
    tree = LexborHTMLParser(markup)
    found = tree.css(_AD_ELEMENTS)
    if not found:
        return markup
    for node in found:
        node.decompose()
    return tree.html or ""


def _mask_token(match: re.Match[str]) -> str:
    run = match.group()
    letters = sum(c.isalpha() for c in run)
    digits = sum(c.isdigit() for c in run)
    # A word, a number, a plain URL path or a domain is not a token: a token mixes
    # letters and digits throughout, which words and paths do not.
    if digits >= 2 and letters >= 2 and digits + letters >= 16 and not _is_wordlike(run):
        return "<token>"
    return run


def _is_wordlike(run: str) -> bool:
    # a path or a hyphenated phrase: every piece is a word or a number of its own
    pieces = [p for p in re.split(r"[/_.\-]+", run) if p]
    return all(p.isalpha() or p.isdigit() or len(p) < 8 for p in pieces) and len(pieces) > 1


def _mask_dates(line: str, prose: bool) -> str:
    def replace(match: re.Match[str]) -> str:
        text = match.group()
        # "12.50" is as often a price or a measure as a time: a time only after a cue
        dotted = _DOTTED.fullmatch(text) is not None
        if (not prose and not dotted) or _STAMP_CUE.search(line, 0, match.start()):
            return "<date>"
        return text

    return _DATE_OR_TIME.sub(replace, line)


@lru_cache(maxsize=8192)
def normalise_line(line: str) -> str:
    """One line with its noise masked, its white space collapsed, lower-cased.

    The patterns are written in lower case: the line is lowered before they run. Kept
    per process for the lines seen last: a site's pages, and a page's captures (as a
    preview or re-signing reads them), repeat most of their lines, and the masks cost
    half a main-text signature.
    """
    line = unicodedata.normalize("NFKC", line)
    line = " ".join(line.split()).lower()
    prose = is_prose(line)
    if "=" in line:
        line = _NAMED_TOKEN.sub(lambda m: m.group().split("=", 1)[0] + "=<token>", line)
    line = _RELATIVE.sub("<ago>", line)
    if _DIGIT.search(line) is None:  # most lines of prose: nothing below can match but
        return line if prose else _mask_dates(line, prose)  # a weekday in a date line
    line = _TOKEN_RUN.sub(_mask_token, line)
    line = _COPYRIGHT.sub("©", line)
    line = _TIMESTAMP.sub("<date>", line)
    line = _COUNTER_PHRASE.sub("<count>", line)
    if not prose:  # "1,234 views" in a widget; "1,234 visitors came" in a sentence is content
        line = _COUNTER.sub("<count>", line)
    return _mask_dates(line, prose)


@lru_cache(maxsize=8192)  # as normalise_line: lines repeat
def is_short(line: str) -> bool:
    """A line of a few words that is no sentence: a date line, an item of a list."""
    return len(_WORDS.findall(line)) <= SHORT_LINE_WORDS and not _SENTENCE_END.search(line)


def is_prose(line: str) -> bool:
    """A line of sentences (words and full stops), not a widget, a date line or a menu."""
    return len(_WORDS.findall(line)) >= PROSE_WORDS and _PROSE_END.search(line) is not None


def normalised_lines(lines: Iterable[str]) -> list[str]:
    """The lines with noise masked; runs of short lines in a stable order.

    A line labelled as an ad ("Advertisement", "Sponsored", "Anzeige") is left out. A
    run of two or more short lines is a list (related links, tags, a menu) whose
    order a site may shuffle on every visit: it is sorted, so a shuffle is no change
    while an item added, removed or renamed still is one.
    """
    out: list[str] = []
    run: list[str] = []
    for raw in lines:
        short = is_short(raw)
        line = normalise_line(raw)
        if not line or _AD_LABEL.match(line):
            continue
        if short:
            run.append(line)
            continue
        out.extend(sorted(run) if len(run) > 1 else run)
        run = []
        out.append(line)
    out.extend(sorted(run) if len(run) > 1 else run)
    return out
