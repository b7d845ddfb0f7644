"""A page's own publication date (docs/design.md §11), read from its parse tree.

A page states its date in its metadata, in its address, or in the text of an element
that says it holds one. Where, and in what order (the first found within the bounds
wins; an original date before one of a later change):

1. ``<meta>`` properties and names that htmldate reads as the publication date (Open
   Graph's ``article:published_time``, Dublin Core's ``DC.date`` and ``dcterms.created``,
   ``date``, ``pubdate``, ``publish-date``...; :data:`PUBLISHED_NAMES`), ``itemprop``
   ``datePublished`` (on any element, with ``content`` or ``datetime``), ``<meta
   http-equiv="date">``: the first in the document;
2. JSON-LD's ``datePublished`` (``<script type="application/ld+json">``), the first;
3. a ``<time datetime>`` marked as the publication's (``pubdate``, or a class
   ``entry-date``), then the address (``/2026/11/02/``: a day, after those which often
   give the time too; the page's own, then its ``og:url``), then the earliest other
   ``<time datetime>``;
4. a date of the last change (``article:modified_time``, ``dateModified``,
   ``http-equiv="last-modified"``), a copyright year (its 1 January), a date in the
   address of its ``og:image``;
5. htmldate (fast mode, ``extensive_search=False``) reads what else it can, but only
   for a page that has what its fast mode reads besides those: an element whose class,
   id or itemprop says it holds a date (``class="date"``, ``<footer>``...) or an
   ``<abbr class="published">`` with a date in its text, a title or ``<h1>`` with one,
   a ``<time>`` with a date as text, a phrase like "Published: 02.11.2026". Its last
   resorts, a date anywhere in the page's text, are no publication date: 23 of the 530
   pages of Python's documentation were dated by a timestamp in an example (a log line).
   The extensive mode reads free text with dateparser, which is not in the packaged app.

Dates are stored as naive UTC: one with a time zone is converted; one without (a date
alone, or a time with no zone) is taken as UTC, a date alone at its midnight, as a
sitemap's date-only ``lastmod`` is (the window shows such a date's day as it is, not
shifted into the local time zone: gui/common/formatting.py). A date is taken from 1995 on, and
until the day after the fetch (a time zone ahead of UTC is on the next day already).
Nothing a page holds makes the reading fail: what cannot be read is no date.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, NamedTuple

from recrawl.core.config import ParseSettings
from selectolax.lexbor import LexborHTMLParser, LexborNode

# htmldate logs pages it cannot read as errors; they are only pages without a date. A
# handler of its own keeps them off stderr (Python's last-resort handler) and still
# lets an application that configures logging see them.
logging.getLogger("htmldate").addHandler(logging.NullHandler())

#: What htmldate is asked for: the time and its zone when the page gives them.
_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
#: The earliest date taken (htmldate's own default, kept explicit): the web's early years.
EARLIEST = datetime(1995, 1, 1)

#: ``<meta>`` names and properties of a publication date: htmldate 1.11's
#: ``DATE_ATTRIBUTES`` (core.py), which its fast mode reads.
PUBLISHED_NAMES = frozenset(
    [
        "analyticsattributes.articledate",
        "article.created",
        "article_date_original",
        "article:post_date",
        "article.published",
        "article:published",
        "article:published_date",
        "article:published_time",
        "article:publicationdate",
        "bt:pubdate",
        "citation_date",
        "citation_publication_date",
        "content_create_date",
        "created",
        "cxenseparse:recs:publishtime",
        "date",
        "date_created",
        "date_published",
        "datecreated",
        "dateposted",
        "datepublished",
        "dc.date",
        "dc.created",
        "dc.date.created",
        "dc.date.issued",
        "dc.date.publication",
        "dcsext.articlefirstpublished",
        "dcterms.created",
        "dcterms.date",
        "dcterms.issued",
        "dc:created",
        "dc:date",
        "displaydate",
        "doc_date",
        "field-name-post-date",
        "gentime",
        "mediator_published_time",
        "meta",
        "og:article:published",
        "og:article:published_time",
        "og:datepublished",
        "og:pubdate",
        "og:publish_date",
        "og:published_time",
        "og:question:published_time",
        "og:regdate",
        "originalpublicationdate",
        "parsely-pub-date",
        "pdate",
        "ptime",
        "pubdate",
        "publishdate",
        "publish_date",
        "publish_time",
        "publish-date",
        "published-date",
        "published_date",
        "published_time",
        "publisheddate",
        "publication_date",
        "rbpubdate",
        "release_date",
        "rnews:datepublished",
        "sailthru.date",
        "shareaholic:article_published_time",
        "timestamp",
        "twt-published-at",
        "video:release_date",
        "vr:published_time",
    ]
)
#: Names (``name=``) and properties of the last change's date: htmldate's
#: ``NAME_MODIFIED`` and ``PROPERTY_MODIFIED``.
MODIFIED_NAMES = frozenset(
    [
        "lastdate",
        "lastmod",
        "lastmodified",
        "last-modified",
        "modified",
        "utime",
        "article:modified",
        "article:modified_date",
        "article:modified_time",
        "article:post_modified",
        "bt:moddate",
        "datemodified",
        "dc.modified",
        "dcterms.modified",
        "modified_time",
        "modificationdate",
        "og:article:modified_time",
        "og:modified_time",
        "og:updated_time",
        "revision_date",
        "updated_time",
    ]
)
_ITEMPROP_PUBLISHED = frozenset({"datecreated", "datepublished"})
_ITEMPROP_MODIFIED = frozenset({"datemodified", "dateupdate"})
#: A date in an address (htmldate's ``COMPLETE_URL``): /2026/11/02/, 2026-11-02, 2026_11_02.
_URL_DATE = re.compile(r"\D(199\d|20[0-3]\d)[/_-]([0-1]?\d)[/_-]([0-3]?\d)(?:\D|$)")
#: JSON-LD that is no JSON, searched as htmldate does (its ``JSON_PUBLISHED``).
_JSON_PUBLISHED = re.compile(
    r'"datePublished": ?"((?:199\d|20[0-3]\d)-[0-1]?\d-[0-3]?\d'
    r"(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?)",
    re.IGNORECASE,
)
_STATED = "meta, time, script[type], [itemprop]"
#: Where the head ends (patterns that start with a literal are searched fastest).
_HEAD_END = re.compile(r"<(?:/[hH][eE][aA][dD]\s*>|[bB][oO][dD][yY][\s>])")
#: What is read of a page's body when its markup has it there (written in lower case,
#: as pages write them: a page's head is read whatever its case).
_IN_BODY = (
    ("meta", "<meta"),
    ("time", "<time"),
    ("[itemprop]", "itemprop"),
    ("script[type]", "+json"),
)
_JSON_TYPES = ("application/ld+json", "application/settings+json")


def page_date(
    markup: str, url: str, fetched_at: datetime, tree: LexborHTMLParser | None = None
) -> datetime | None:
    """When the page at ``url`` says it was published (naive UTC), or None.

    ``fetched_at`` (naive UTC) bounds it (see the module's docstring). ``tree`` is the
    page's parse of ``markup``, when the caller has one (else it is parsed here).
    """
    found = stated_date(markup, url, fetched_at, tree or LexborHTMLParser(markup))
    return found.find() if isinstance(found, Unstated) else found


class Unstated(NamedTuple):
    """A page whose tree states no date, where htmldate may find one (step 5): asked by
    :meth:`find`, once its caller has let the tree go (htmldate parses the page again:
    two parse trees of a big page at once cost more memory than a crawl allows)."""

    markup: str
    url: str
    latest: date

    def find(self) -> datetime | None:
        return _htmldate(self.markup, self.url, self.latest)


def stated_date(
    markup: str, url: str, fetched_at: datetime, tree: LexborHTMLParser
) -> datetime | Unstated | None:
    """The date the page's tree states (steps 1 to 4), :class:`Unstated` if htmldate
    may find one, or None."""
    latest = fetched_at.date() + timedelta(days=1)
    try:
        stated = _Reading(latest).stated(tree, markup, url)
        if stated is not None:
            return stated
        if not _worth_htmldate(markup, latest):
            return None
    except Exception:  # a page the reading trips on (a parser's surprise): no date
        return None
    return Unstated(markup, url, latest)


def _stating(tree: LexborHTMLParser, markup: str) -> list[LexborNode]:
    """The elements that may state a date, in the page's order. A query of the whole
    tree costs half a parse: the head is read, and the body only for what its markup
    has (a ``<meta>`` after the head, a ``<time>``, an ``itemprop``, JSON-LD)."""
    head = tree.head
    nodes = head.css("meta, script[type]") if head is not None else []
    end = _HEAD_END.search(markup)
    body = end.end() if end is not None else 0
    wanted = [selector for selector, needle in _IN_BODY if markup.find(needle, body) >= 0]
    if head is None or wanted:
        in_head = {node.mem_id for node in nodes}
        nodes += [
            node for node in tree.css(", ".join(wanted or [_STATED])) if node.mem_id not in in_head
        ]
        if head is not None:  # back in the page's order: the head comes first
            nodes.sort(key=lambda node: not _in(node, head))
    return nodes


def _in(node: LexborNode, ancestor: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.mem_id == ancestor.mem_id:
            return True
        parent = parent.parent
    return False


class _Reading:
    """A page's dates as its tree states them, each read within the bounds."""

    def __init__(self, latest: date) -> None:
        self.latest = latest

    def value(self, text: str | None) -> datetime | None:
        """A stated date or time, as naive UTC, if it reads as one within the bounds."""
        if not text:
            return None
        text = text.strip()[:64]
        try:
            found: datetime | None = datetime.fromisoformat(text)
        except ValueError:  # not ISO 8601: read as htmldate reads one
            found = _htmldate_value(text, self.latest) if _few_digits(text) else None
        if found is None:
            return None
        if found.tzinfo is not None:
            found = found.astimezone(UTC).replace(tzinfo=None)
        return found if found >= EARLIEST and found.date() <= self.latest else None

    def address(self, url: str | None) -> datetime | None:
        match = _URL_DATE.search(url or "")
        if match is None:
            return None
        try:
            found = datetime(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return None
        return found if found >= EARLIEST and found.date() <= self.latest else None

    def stated(self, tree: LexborHTMLParser, markup: str, url: str) -> datetime | None:
        """The first date of steps 1 to 4 of the module's docstring, or None."""
        marked_time: datetime | None = None
        times: list[datetime] = []
        modified: datetime | None = None
        copyright_year: datetime | None = None
        scripts: list[str] = []
        og_url = og_image = None
        for node in _stating(tree, markup):
            attrs = node.attributes
            tag = node.tag
            if tag == "script":
                if (attrs.get("type") or "").strip().lower() in _JSON_TYPES:
                    scripts.append(node.text(deep=True))
                continue
            itemprop = (attrs.get("itemprop") or "").strip().lower()
            stamp = attrs.get("datetime") or attrs.get("content")
            if tag == "meta":
                if "content" not in attrs and "datetime" not in attrs:
                    continue
                kind, name = _meta_kind(attrs, itemprop)
            else:
                kind = name = None
                if itemprop in _ITEMPROP_PUBLISHED:
                    kind = "published"
                elif itemprop in _ITEMPROP_MODIFIED:
                    kind = "modified"
            if kind == "published":
                found = self.value(stamp)
                if found is not None:
                    return found  # the first statement of the publication: step 1
            elif kind == "modified":
                modified = self.value(stamp) or modified  # (htmldate keeps the last)
            elif kind == "copyright" and copyright_year is None:
                year = (stamp or "").strip()
                if len(year) == 4 and year.isdigit():
                    copyright_year = self.value(f"{year}-01-01")
            elif name == "og:url":
                og_url = stamp
            elif name == "og:image":
                og_image = stamp
            elif tag == "time":
                if len(attrs.get("datetime") or "") <= 6:
                    continue  # (htmldate's bound: a time of day, a year alone)
                found = self.value(attrs.get("datetime"))
                if found is None:
                    continue
                classes = (attrs.get("class") or "").strip()
                if "pubdate" in attrs or classes.startswith(("entry-date", "entry-time")):
                    marked_time = marked_time or found
                else:
                    times.append(found)
        for script in scripts:
            found = self.json_published(script)
            if found is not None:
                return found
        return (
            marked_time
            or self.address(url)
            or self.address(og_url)
            or (min(times) if times else None)
            or modified
            or copyright_year
            or self.address(og_image)
        )

    def json_published(self, script: str) -> datetime | None:
        """JSON-LD's first ``datePublished`` (in the order it is written)."""
        if "ublished" not in script:
            return None
        data: Any = None
        if len(script) <= ParseSettings.max_json_chars:
            try:
                data = json.loads(script)
            except (ValueError, RecursionError):
                data = None
        if data is None:  # no JSON (a trailing comma, a comment), or too big to parse
            match = _JSON_PUBLISHED.search(script)
            return self.value(match[1]) if match else None
        for value in _published_values(data):
            found = self.value(value)
            if found is not None:
                return found
        return None


def _meta_kind(attrs: dict[str, str | None], itemprop: str) -> tuple[str | None, str]:
    """What a ``<meta>`` states (``published``, ``modified``, ``copyright`` or None), and
    its name or property; as htmldate's ``examine_header`` reads one."""
    if "name" in attrs:
        name = (attrs.get("name") or "").strip().lower()
        if name in PUBLISHED_NAMES:
            return "published", name
        return ("modified" if name in MODIFIED_NAMES else None), name
    if "property" in attrs:
        name = (attrs.get("property") or "").strip().lower()
        if name in PUBLISHED_NAMES:
            return "published", name
        return ("modified" if name in MODIFIED_NAMES else None), name
    if itemprop:
        if itemprop in _ITEMPROP_PUBLISHED:
            return "published", itemprop
        if itemprop in _ITEMPROP_MODIFIED:
            return "modified", itemprop
        return ("copyright" if itemprop == "copyrightyear" else None), itemprop
    if (attrs.get("pubdate") or "").lower() == "pubdate":
        return "published", "pubdate"
    equiv = (attrs.get("http-equiv") or "").strip().lower()
    if equiv == "date":
        return "published", equiv
    return ("modified" if equiv == "last-modified" else None), equiv


def _published_values(data: Any) -> Iterator[str]:
    """The ``datePublished`` values of parsed JSON-LD, in the order they are written
    (depth first), at most ``parse.max_json_values`` values walked."""
    stack = [data]
    walked = 0
    while stack and walked < ParseSettings.max_json_values:
        value = stack.pop()
        walked += 1
        if isinstance(value, dict):
            for key, item in value.items():
                if key.lower() == "datepublished":
                    if isinstance(item, dict):
                        item = item.get("@value")
                    if isinstance(item, list) and item:
                        item = item[0]
                    if isinstance(item, str):
                        yield item
            stack.extend(
                reversed([item for item in value.values() if isinstance(item, dict | list)])
            )
        elif isinstance(value, list):
            stack.extend(reversed([item for item in value if isinstance(item, dict | list)]))


# -- step 5: htmldate, where it can find what the tree does not say -----------------------
#
# htmldate's fast mode reads, besides what steps 1 to 4 read: the start (52 characters)
# of the text of elements whose class, id or itemprop says they hold a date, of every
# <footer>, <small>, <abbr>, <title>, <h1> and <time>, and their title attributes; a
# phrase like "Published: 02.11.2026" anywhere; Facebook's <abbr data-utime>. Each needs
# a date written with a year of four digits (from 1995), a day and month and a year of
# two ("02.11.26"), or digits only ("20261102"). So the markup is searched for those
# (patterns that start with a literal, the ones searched fastest, not a tree's walk:
# that costs half a parse), and htmldate is called only when one is in such a place
# and reads as a date there (htmldate's own reading of a short text, which is cheap).

#: A year written out (from 1995; then perhaps a month and day, "20261102"), and a day
#: and month before a year of two digits or more.
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"20[0-3]\d(?:[01]\d[0-3]\d)?(?!\d)"), ""),
    (re.compile(r"199\d(?:[01]\d[0-3]\d)?(?!\d)"), ""),
    (re.compile(r"\.\d{1,2}\.\d{2}"), "."),  # (the separator: the date starts before it)
    (re.compile(r"/\d{1,2}/\d{2}"), "/"),
    (re.compile(r"-\d{1,2}-\d{2}"), "-"),
)
#: Dates (not parts of longer numbers) looked at, at most: a page with more is given to
#: htmldate.
_MAX_SHAPES = 400
#: Text read of an element (htmldate's ``MAX_SEGMENT_LEN``; it skips a shorter one than
#: ``MIN_SEGMENT_LEN``), and how far back its start tag is looked for.
_SEGMENT = 52
_MIN_SEGMENT = 6
_LOOK_BACK = 1000
_TRAILING_WORDS = re.compile(r"\D+$")
#: Tags htmldate's fast mode reads the text of when their class, id or itemprop says so
#: (its ``FAST_TAGS``), and those it reads whatever their attributes.
_CANDIDATE_TAGS = frozenset(["div", "h2", "h3", "h4", "li", "p", "span", "time", "ul"])
_ALWAYS_TAGS = frozenset(["footer", "small", "abbr", "title", "h1", "time"])
_START_TAG = re.compile(
    r"<(footer|small|abbr|title|h[1-4]|time|div|li|p|span|ul)(?=[\s/>])([^<>]*)>", re.IGNORECASE
)
#: A start tag that may be one htmldate reads (a quick test, before the exact one).
_MAY_BE_CANDIDATE = re.compile(
    r"<(?:footer|small|abbr|title|h1|time)[\s/>]|(?:class|id|itemprop)\s*=[^<>]*?(?:dat|meta|"
    r"time|publi|footer|info|post|byline|subline|submitted|auth|autor|field-content|fa-c|"
    r"fecha|parution)",
    re.IGNORECASE,
)
_ATTRIBUTE = re.compile(r"""([^\s"'=<>/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?""")
_TAG_OR_COMMENT = re.compile(r"<!--.*?(?:-->|$)|<[^<>]*>?", re.DOTALL)
_ID_CLASS_CUES = re.compile("[Mm]eta|time|publish|footer")
_CLASS_CUES = re.compile(
    "info|post_detail|block-content|byline|subline|posted|submitted|created-post|"
    "publication|author|autor|field-content|fa-clock-o|fa-calendar|fecha|parution"
)
#: What says a numeric date follows (htmldate's ``TEXT_PATTERNS`` cues, as whole words:
#: "on" alone, in "Python 3.8.12", dated pages of Python's documentation 3 August 2012).
_SAYS_DATE = re.compile(
    r'(?:\bdate[^0-9"]{0,20}|\b(?:updated|last-modified|published|posted|on)[ :]{0,9}'
    r"|\b(?:datum|stand|veröffentlicht am):? ?"
    r"|(?:güncellen?me|yayı(?:m|n)lan?ma) {0,9}(?:tarihi)? {0,9}:? {0,9})$",
    re.IGNORECASE,
)
_SAYS_DATE_AFTER = re.compile(
    r"\d* {0,9}(?:'de|'da|'te|'ta|’de|’da|’te|’ta|tarihinde) {0,9}(?:güncellendi|yayı(?:m|n)landı)",
    re.IGNORECASE,
)


def _worth_htmldate(markup: str, latest: date) -> bool:
    """Whether htmldate's fast mode may find a date that steps 1 to 4 did not (above)."""
    if "data-utime" in markup:
        return True
    looked = 0
    for shape, separator in _SHAPES:
        for match in shape.finditer(markup):
            start = match.start()
            if separator:  # the day (or year) before the separator
                while start > match.start() - 4 and start > 0 and markup[start - 1].isdigit():
                    start -= 1
                if start == match.start():
                    continue
                if separator != "-" and _said_date(markup, start, match.end()):
                    return True
            elif start > 0 and markup[start - 1].isdigit():
                continue  # part of a longer number
            looked += 1
            if looked > _MAX_SHAPES:
                return True
            if _in_candidate(markup, start, latest):
                return True
    return False


def _said_date(markup: str, start: int, end: int) -> bool:
    """Whether a numeric date is said to be one ("Published: 02.11.2026")."""
    if _SAYS_DATE.search(markup, max(0, start - 40), start):
        return True
    return _SAYS_DATE_AFTER.match(markup, end) is not None


def _in_candidate(markup: str, at: int, latest: date) -> bool:
    """Whether the date at ``at`` starts the text (or is in the title) of an element
    htmldate reads, and reads as a date there."""
    back = max(0, at - _LOOK_BACK)
    opened = markup.rfind("<", back, at)
    closed = markup.rfind(">", back, at)
    if opened > closed:  # in a tag: its title attribute
        tag = _START_TAG.match(markup, opened)
        if tag is None:
            return False
        attributes = _attributes(tag[2])
        return _candidate(tag[1], attributes) and _dated(attributes.get("title"), latest)
    if len(_text(markup[max(closed + 1, back) : at])) >= _SEGMENT:
        return False  # too far into the text of the nearest element, and of any other
    if not _MAY_BE_CANDIDATE.search(markup, back, at):
        return False
    for tag in reversed(list(_START_TAG.finditer(markup, back, at))):
        before = _text(markup[tag.end() : at])
        if len(before) >= _SEGMENT:
            return False  # farther ones start farther from it
        if _candidate(tag[1], _attributes(tag[2])):
            content = _content(markup, tag.end(), at + 4 * _SEGMENT, tag[1])
            if _dated(_text(content), latest):
                return True
    return False


def _content(markup: str, start: int, end: int, name: str) -> str:
    """The markup of an element from ``start`` (after its start tag), up to its end tag
    (or ``end``): the text htmldate reads is its own."""
    depth = 0
    for tag in re.finditer(rf"<(/?){re.escape(name)}(?=[\s/>])", markup[start:end], re.IGNORECASE):
        if not tag[1]:
            depth += 1
        elif depth == 0:
            return markup[start : start + tag.start()]
        else:
            depth -= 1
    return markup[start:end]


def _attributes(text: str) -> dict[str, str]:
    attributes: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        value = match[2] or ""
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        attributes.setdefault(match[1].lower(), html.unescape(value))
    return attributes


def _text(markup: str) -> str:
    """Markup as text, whitespace collapsed."""
    return " ".join(html.unescape(_TAG_OR_COMMENT.sub("", markup)).split())


def _candidate(tag: str, attributes: dict[str, str]) -> bool:
    """Whether htmldate reads the element's text (its ``is_date_candidate``: of id and
    class, the first written counts)."""
    tag = tag.lower()
    if tag in _ALWAYS_TAGS:
        return True
    if tag not in _CANDIDATE_TAGS:
        return False
    first = next((attributes[key] for key in attributes if key in ("id", "class")), None)
    for cue in (first, attributes.get("itemprop")):
        if cue is not None:
            folded = cue.replace("D", "d")
            if "date" in folded or "datum" in folded:
                return True
    if first is None:
        return False
    if _ID_CLASS_CUES.search(first):
        return True
    classes = attributes.get("class")
    if classes is not None and _CLASS_CUES.search(classes):
        return True
    return "footer-info-lastmod" in attributes.get("id", "")


def _dated(text: str | None, latest: date) -> bool:
    """Whether htmldate reads a date (within the bounds) in an element's text, as its
    ``examine_text`` reads one: whitespace collapsed, its start, no trailing words."""
    text = " ".join((text or "").split())
    if len(text) <= _MIN_SEGMENT:
        return False
    text = _TRAILING_WORDS.sub("", text[:_SEGMENT])
    return _few_digits(text) and _htmldate_value(text, latest) is not None


def _few_digits(text: str) -> bool:
    """htmldate's first test of a date: 4 to 18 digits."""
    return 4 <= sum(char.isdigit() for char in text) <= 18


def _bounds(latest: date) -> tuple[datetime, datetime]:
    # htmldate, given a date past its bound, falls back to that date's month (a page
    # dated 9 Nov fetched on 5 Nov would be dated 1 Nov): so its bound is loose, a year
    # on, and a date past the next day is dropped here. Day-granular, so one bound
    # serves a whole day's pages and htmldate's validation caches stay warm.
    return EARLIEST, datetime.combine(latest + timedelta(days=365), time.max)


#: What any date htmldate reads in a short text has (its ``custom_parse``: four digits
#: first, eight together, a year with a month, a day and month before a year, a month's
#: name with a day and a year), so that a text without is not handed to it: most pages
#: then never load it (a footer's "© Copyright 2001-2026" has none of them).
_YEAR = r"(?:199\d|20[0-3]\d)"
_MAY_BE_A_DATE = re.compile(
    rf"^\d{{4}}|\b\d{{8}}\b"
    rf"|(?:\D|^)(?:{_YEAR}[-/.][0-1]?\d|[0-3]?\d[-/.][0-1]?\d[-/.]\d{{2,4}}|[0-1]?\d[-/.]{_YEAR})(?:\D|$)"
    rf"|[^\W\d_]{{3,}}\s[0-3]?\d(?:st|nd|rd|th)?,? {_YEAR}"
    rf"|[0-3]?\d(?:st|nd|rd|th|\.)? (?:of )?[^\W\d_]{{3,}}[,.]? {_YEAR}",
    re.IGNORECASE,
)


def _htmldate_value(text: str, latest: date) -> datetime | None:
    """A date as htmldate reads one in a value or a short text (``try_date_expr``)."""
    if not _MAY_BE_A_DATE.search(" ".join(text.split())):
        return None
    from htmldate.extractors import try_date_expr  # here: most pages never need it

    earliest, loose = _bounds(latest)
    try:
        found = try_date_expr(text, _FORMAT, False, earliest, loose)
    except Exception:  # any text htmldate trips on: no date
        return None
    return _as_utc(found) if found else None


def _htmldate(markup: str, url: str, latest: date) -> datetime | None:
    from htmldate import find_date

    earliest, loose = _bounds(latest)
    try:
        # bytes, not str: a str starting "http" with no space is a URL htmldate fetches
        found = find_date(
            markup.encode("utf-8", "replace"),
            extensive_search=False,
            original_date=True,
            outputformat=_FORMAT,
            url=url,
            min_date=earliest,
            max_date=loose,
            # the markup's full date and time first, the URL's date alone as a fallback
            deferred_url_extractor=True,
        )
    except Exception:  # any page htmldate trips on (its parsers' errors): no date
        return None
    published = _as_utc(found) if found else None
    if published is None or published.date() > latest:
        return None
    return published


def _as_utc(text: str) -> datetime | None:
    try:
        value = datetime.strptime(text, _FORMAT)
    except ValueError:  # no zone given: taken as UTC (module docstring)
        try:
            return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")
        except ValueError:
            return None
    return value.astimezone(UTC).replace(tzinfo=None)
