"""Link and embed extraction from HTML (selectolax Lexbor) and CSS, with charset handling.

Bodies other than HTML and CSS are stored, not parsed. The parser sees the page up to
the parse bounds (core/content/markup_bounds.py); a page past one says where it was cut.
Links and embeds are resolved against ``<base href>`` (a stylesheet's against its own
URL) and canonicalized; malformed ones are counted and the first ``parse.max_invalid_links`` of
a page kept with the reason, never fatal. What a page embeds (docs/design.md §14) is found by
:mod:`recrawl.core.content.embeds` and :mod:`recrawl.core.content.css`, as written; here
it becomes URLs as a browser requests them (:func:`~recrawl.core.net.urls.embed_url`:
what a replayed page asks for), at most ``ParseSettings.max_embeds`` of them.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple
from urllib.parse import urljoin

from recrawl.core.config import ParseSettings
from recrawl.core.content.css import stylesheet_embeds
from recrawl.core.content.embeds import html_embeds
from recrawl.core.content.link_header import link_header_embeds
from recrawl.core.content.maintext import SNIFF_BYTES
from recrawl.core.content.markup_bounds import find_cut
from recrawl.core.content.published import Unstated, stated_date
from recrawl.core.content.refs import EmbedRef, EmbedSet
from recrawl.core.content.scripts import script_guesses
from recrawl.core.content.search_text import SearchDocument, tree_document
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical, embed_url
from selectolax.lexbor import LexborHTMLParser
from w3lib.encoding import html_to_unicode

HTML_TYPES = ("text/html", "application/xhtml+xml")
_LINKS = (
    "a[href], area[href], frame[src], iframe[src], base[href], meta[http-equiv], "
    "link[href][rel][type]"
)
#: ``<link rel="alternate" type=...>`` types of the feeds a page advertises (docs/design.md §11).
FEED_TYPES = ("application/rss+xml", "application/atom+xml")
_REFRESH_URL = re.compile(r"""^\s*\d*(?:\.\d*)?\s*[;,]?\s*(?:url\s*=\s*)?['"]?([^'"]+)""", re.I)
_SKIPPED = ("javascript:", "mailto:", "tel:", "data:", "#")


class Outlink(NamedTuple):
    # a tuple, not a dataclass: a page's links cross from its analysis process to the
    # crawl's loop by the tens, and a frozen dataclass unpickles a field at a time
    url: str
    nofollow: bool = False


@dataclass(frozen=True, slots=True)
class InvalidLink:
    """A link that is no URL the crawl can fetch: as written, resolved against the page
    where that can be done, cut past ``parse.max_invalid_chars`` (its length said); and
    what is wrong with it."""

    url: str
    reason: str


@dataclass
class ParseResult:
    links: list[Outlink] = field(default_factory=list)
    text: str | None = None
    #: Links that are no fetchable URL: all of them counted, the first
    #: ``parse.max_invalid_links`` kept.
    malformed: int = 0
    invalid: list[InvalidLink] = field(default_factory=list)
    #: The page asked robots not to follow its links (<meta name=robots content=nofollow>).
    nofollow_all: bool = False
    #: Where and why the parse stopped before the page's end (a parse bound), if it did.
    cut: str | None = None
    #: The document's <title>, whitespace collapsed, at most MAX_TITLE characters.
    title: str | None = None
    #: When the page says it was published (naive UTC), when asked (``date_by``).
    published: datetime | None = None
    #: The RSS and Atom feeds it advertises (``<link rel="alternate">``), canonical, at
    #: most ``parse.max_feeds``.
    feeds: list[str] = field(default_factory=list)
    #: What it embeds (docs/design.md §14).
    embeds: EmbedList | None = None
    #: Its text for search (docs/design.md §19), when asked (``document``); not pickled:
    #: the analysis sends the indexed text instead.
    document: SearchDocument | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # its links as URLs and the places of the nofollow ones: a third of the time
        # to unpickle in the crawl's loop, where every page's analysis arrives
        nofollow = [i for i, link in enumerate(self.links) if link.nofollow]
        urls = [link.url for link in self.links]
        rest = (self.text, self.malformed, self.invalid, self.nofollow_all, self.cut)
        last = (self.title, self.published, self.feeds, self.embeds)
        return (_unpickled, (urls, nofollow, *rest, *last))


def _unpickled(
    urls: list[str],
    nofollow: list[int],
    text: str | None,
    malformed: int,
    invalid: list[InvalidLink],
    nofollow_all: bool,
    cut: str | None,
    title: str | None,
    published: datetime | None,
    feeds: list[str],
    embeds: EmbedList | None,
) -> ParseResult:
    make = tuple.__new__  # Outlink's own __new__ is a Python function; this is not
    links: list[Outlink] = [make(Outlink, (url, False)) for url in urls]
    for i in nofollow:
        links[i] = Outlink(urls[i], True)
    return ParseResult(
        links, text, malformed, invalid, nofollow_all, cut, title, published, feeds, embeds
    )


@dataclass
class EmbedList:
    """What a page or stylesheet embeds (docs/design.md §14): URLs as a browser asks for them
    (:func:`~recrawl.core.net.urls.embed_url`), in document
    order, each once, at most ``ParseSettings.max_embeds``; those past it counted."""

    urls: list[str] = field(default_factory=list)
    #: References that are no URL to fetch, as written (resolved where possible), with
    #: why: the first ``parse.max_invalid_links``.
    invalid: list[InvalidLink] = field(default_factory=list)
    #: Distinct references past the per-page limit, not kept.
    dropped: int = 0
    #: Bounds the extraction hit (a stylesheet cut at its size bound), one line each.
    notes: list[str] = field(default_factory=list)
    #: Those of ``urls`` a stylesheet ``@import``s: part of it, at its own hop.
    imports: list[str] = field(default_factory=list)
    #: Those of ``urls`` only guessed from a script's text (:mod:`~recrawl.core.content.scripts`):
    #: fetched, but not missing when they are not there.
    guesses: list[str] = field(default_factory=list)


def resolve_embeds(
    refs: Iterable[EmbedRef],
    base: str,
    own_url: str,
    limit: int,
    dropped: int = 0,
    notes: Sequence[str] = (),
) -> EmbedList:
    """The references as a browser requests them (against ``base`` unless one names its own),
    without ``own_url`` (a page embedding itself) and duplicates, at most ``limit``."""
    found = EmbedList(dropped=dropped, notes=list(notes))
    seen = {own_url}
    kept: set[str] = set()
    for ref in refs:
        try:
            url = embed_url(ref.url, ref.base or base)
        except InvalidUrl as exc:
            if len(found.invalid) < ParseSettings.max_invalid_links:
                text = ref.url
                with contextlib.suppress(ValueError):
                    text = urljoin(ref.base or base, text)
                if text not in kept:
                    kept.add(text)
                    found.invalid.append(InvalidLink(bounded(text), exc.reason))
            continue
        if url in seen:
            continue
        seen.add(url)
        if len(found.urls) >= limit:
            found.dropped += 1
            continue
        found.urls.append(url)
        if ref.context == "css-import":
            found.imports.append(url)
        elif ref.context == "script-guess":
            found.guesses.append(url)
    return found


def header_embeds(value: str, url: str) -> list[str]:
    """The preloads and stylesheets a ``Link`` response header names (as requested)."""
    refs = link_header_embeds(value, limit=ParseSettings.max_header_embeds)
    found = resolve_embeds(refs, url, url, ParseSettings.max_header_embeds)
    return found.urls


def is_script(content_type: str | None, url: str) -> bool:
    """A script: served as JavaScript, or with no type and a ``.js`` or ``.mjs`` path."""
    kind = media_type(content_type)
    if kind:
        return kind in SCRIPT_TYPES
    return url.split("?", 1)[0].lower().endswith((".js", ".mjs"))


def parse_script(body: bytes, url: str, bounds: ParseSettings | None = None) -> EmbedList:
    """The files a script names outright (guesses), resolved against its own URL."""
    bounds = bounds or ParseSettings()
    refs = EmbedSet(bounds.max_embeds)
    script_guesses(body.decode("utf-8", "replace"), refs)
    found = refs.embeds()
    return resolve_embeds(found.refs, url, url, bounds.max_embeds, found.dropped)


SCRIPT_TYPES = (
    "application/javascript",
    "text/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "text/ecmascript",
)
CSS_TYPES = ("text/css",)


def is_css(content_type: str | None, url: str) -> bool:
    """A stylesheet: served as CSS (browsers apply no other type), or with no type at all
    and a ``.css`` path."""
    kind = media_type(content_type)
    if kind:
        return kind in CSS_TYPES
    return url.split("?", 1)[0].lower().endswith(".css")


def parse_stylesheet(
    body: bytes, url: str, content_type: str | None, bounds: ParseSettings | None = None
) -> EmbedList:
    """What a stylesheet embeds (its imports, images, fonts), resolved against its URL."""
    bounds = bounds or ParseSettings()
    text = decode_stylesheet(body, content_type)
    found = stylesheet_embeds(text, bounds.max_embeds, max_chars=bounds.max_stylesheet_chars)
    return resolve_embeds(found.refs, url, url, bounds.max_embeds, found.dropped, found.notes)


_CHARSET = re.compile(rb'^@charset "([A-Za-z0-9_.:-]{1,40})";')


def decode_stylesheet(body: bytes, content_type: str | None) -> str:
    """A stylesheet's text as CSS Syntax decodes it: a BOM, then the HTTP charset, then
    ``@charset``, then UTF-8; what does not decode is replaced (URLs are ASCII)."""
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:].decode("utf-8", "replace")
    if body.startswith(_UTF16_BOMS):
        return body.decode("utf-16", "replace")
    charset = None
    for part in (content_type or "").split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"')
    if charset is None and (match := _CHARSET.match(body)):
        charset = match.group(1).decode("ascii")
    try:
        return body.decode(charset or "utf-8", "replace")
    except LookupError:  # a charset no codec knows
        return body.decode("utf-8", "replace")


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def is_html(content_type: str | None, body: bytes) -> bool:
    kind = media_type(content_type)
    if kind:
        return kind in HTML_TYPES and not looks_binary(content_type, body)
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))


_UTF16_BOMS = (b"\xfe\xff", b"\xff\xfe")


def looks_binary(content_type: str | None, body: bytes) -> bool:
    """A NUL byte in the body's head, with no UTF-16 or UTF-32 byte-order mark or
    charset: binary, whatever its Content-Type says (an image served as text/html). Its
    "tags" would be noise, and a parse of a megabyte of them hits the parse bounds."""
    if b"\x00" not in body[:SNIFF_BYTES] or body.startswith(_UTF16_BOMS):
        return False
    charset = (content_type or "").lower()
    return "utf-16" not in charset and "utf-32" not in charset


def parse_html(
    body: bytes,
    url: str,
    content_type: str | None,
    bounds: ParseSettings | None = None,
    *,
    date_by: datetime | None = None,
    document: bool = False,
) -> ParseResult:
    """The page's links and text, parsed up to ``bounds`` (the defaults if None); with
    ``date_by``, the publication date it states, at the latest that instant's
    (``result.published``: read from the parse tree, core/content/published.py); with
    ``document``, its text for search (``result.document``, from the same tree)."""
    bounds = bounds or ParseSettings()
    _, text = html_to_unicode(content_type, body)
    result = ParseResult()
    cut = find_cut(text, bounds.max_depth, bounds.max_elements)
    if cut is not None:
        result.cut = (
            f"parsed up to character {cut.at:,} of {len(text):,} ({cut.reason}): "
            "links past it not followed"
        )
        text = text[: cut.at]
    tree = LexborHTMLParser(text)
    dated = stated_date(text, url, date_by, tree) if date_by is not None else None
    del text  # the tree has its own copy: two of a 10 MB page are enough
    raw_links, base_href, raw_feeds = _raw_links(tree, result)
    if document:
        result.document = tree_document(tree)
    embedded = html_embeds(
        tree, bounds.max_embeds, max_css_chars=bounds.max_stylesheet_chars, bounds=bounds
    )
    del tree  # a page's links and its parse tree are not held at once
    # htmldate parses the page again: not while the tree is held
    result.published = dated.find() if isinstance(dated, Unstated) else dated
    invalid: set[str] = set()
    base = embed_base = url
    if base_href is not None:
        try:
            base = canonical(base_href, url)
            embed_base = embed_url(base_href, url)
        except InvalidUrl as exc:
            _invalid(result, base_href, url, exc, invalid)
    # one entry per target; followable if any link to it is followable
    merged: dict[str, bool] = {}
    for href, nofollow in raw_links:
        head = href.lstrip()[:11].lower()
        if not head or head.startswith(_SKIPPED):
            continue  # no link, or none to fetch (a script, a mail address, this page)
        try:
            link = canonical(href, base)
        except InvalidUrl as exc:
            _invalid(result, href, base, exc, invalid)
            continue
        merged[link] = merged.get(link, True) and (nofollow or result.nofollow_all)
    result.links = [Outlink(link, nofollow) for link, nofollow in merged.items()]
    result.embeds = resolve_embeds(
        embedded.refs, embed_base, url, bounds.max_embeds, embedded.dropped, embedded.notes
    )
    for href in raw_feeds:
        with contextlib.suppress(InvalidUrl):  # a feed that is no URL is no feed to read
            feed = canonical(href, base)
            if feed not in result.feeds and len(result.feeds) < bounds.max_feeds:
                result.feeds.append(feed)
    return result


def _raw_links(
    tree: LexborHTMLParser, result: ParseResult
) -> tuple[list[tuple[str, bool]], str | None, list[str]]:
    """The links as written (href, rel=nofollow), the first ``<base href>`` and the feeds
    advertised; sets the result's text and ``nofollow_all``."""
    base_href: str | None = None
    raw_links: list[tuple[str, bool]] = []
    raw_feeds: list[str] = []
    for node in tree.css(_LINKS):
        attrs = node.attributes
        tag = node.tag
        if tag == "link":
            kind = (attrs.get("type") or "").split(";")[0].strip().lower()
            rel = (attrs.get("rel") or "").lower().split()
            href = attrs.get("href")
            if href and kind in FEED_TYPES and "alternate" in rel:
                raw_feeds.append(href)
            continue
        if tag == "base":
            href = attrs.get("href")
            if href and base_href is None:  # the first <base href> is the one that counts
                base_href = href
            continue
        if tag == "meta":
            equiv = (attrs.get("http-equiv") or "").lower()
            if equiv == "refresh":
                match = _REFRESH_URL.match(attrs.get("content") or "")
                if match and not match.group(1).strip().isdigit():
                    raw_links.append((match.group(1).strip(), False))
            continue
        href = attrs.get("src") if tag in ("frame", "iframe") else attrs.get("href")
        if not href:
            continue
        rel = (attrs.get("rel") or "").lower().split()
        raw_links.append((href, "nofollow" in rel))
    for node in tree.css('meta[name="robots" i]'):
        directives = {d.strip() for d in (node.attributes.get("content") or "").lower().split(",")}
        if directives & {"nofollow", "none"}:
            result.nofollow_all = True
    title = tree.css_first("head > title")  # not an <svg>'s <title> in the body
    if title is not None:
        result.title = " ".join(title.text().split())[: ParseSettings.max_title] or None
    body_node = tree.body
    result.text = body_node.text(separator=" ") if body_node is not None else ""
    return raw_links, base_href, raw_feeds


def _invalid(result: ParseResult, href: str, base: str, exc: InvalidUrl, kept: set[str]) -> None:
    """Count a malformed link; keep the first ``parse.max_invalid_links`` distinct ones
    with the reason."""
    result.malformed += 1
    if len(result.invalid) >= ParseSettings.max_invalid_links:
        return
    text = href.strip()
    with contextlib.suppress(ValueError):  # as the page means it, where it can be read
        text = urljoin(base, text)
    if text in kept:
        return
    kept.add(text)
    result.invalid.append(InvalidLink(bounded(text), exc.reason))


def bounded(url: str) -> str:
    """``url`` as a record keeps it: cut past ``parse.max_invalid_chars``, its length said."""
    if len(url) <= ParseSettings.max_invalid_chars:
        return url
    return f"{url[: ParseSettings.max_invalid_chars]}… (cut: {len(url):,} characters)"
