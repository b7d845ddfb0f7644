"""What a sitemap or a feed lists (docs/design.md §11), read from the bytes the crawl fetched.

Sitemaps are parsed by ultimate-sitemap-parser (urlsets, indexes, plain-text, RSS and
Atom sitemaps, Google News dates), feeds by feedparser; both get bytes, never a URL, so
neither fetches anything: the crawl fetched them, politely. Pure functions: the same
bytes give the same :class:`Listing`, whatever the input's faults, which it names in
``problems`` (one line each) instead of raising.
"""

from __future__ import annotations

import calendar
import io
import logging
import re
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from time import struct_time

from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical

_GZIP_MAGIC = b"\x1f\x8b"
#: The start of an HTML page (served where a sitemap or feed should be: a site answering
#: every path with a page, a login wall).
_HTML = re.compile(rb"^\s*<(?:!doctype html|html|head|body|p|div|meta|title)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Entry:
    """A page a source lists: its canonical URL, when the source says it last changed
    (a sitemap's ``lastmod``, a feed entry's updated date) and when it was published
    (Google News' publication date, a feed entry's published date)."""

    url: str
    modified: datetime | None = None
    published: datetime | None = None


@dataclass
class Listing:
    """A source's entries, and the sitemaps an index lists; what was wrong with it."""

    entries: list[Entry] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    #: Entries found past ``max_entries`` (not kept).
    skipped: int = 0
    #: Entries that are no URL to fetch.
    malformed: int = 0
    problems: list[str] = field(default_factory=list)


def unpacked(body: bytes, max_bytes: int) -> tuple[bytes, str | None]:
    """A gzip file's content (``sitemap.xml.gz`` served as is), at most ``max_bytes``;
    other bodies as they are. The second value says what was wrong, if anything."""
    if not body.startswith(_GZIP_MAGIC):
        return body, None
    unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        content = unpacker.decompress(body, max_bytes)
    except zlib.error as exc:
        return b"", f"not a readable gzip file ({exc})"
    if unpacker.unconsumed_tail:
        return content, f"more than {max_bytes:,} bytes unpacked: read up to there"
    return content, None


def parse_sitemap(body: bytes, url: str, max_entries: int) -> Listing:
    """The pages and sitemaps a sitemap at ``url`` lists."""
    from usp.objects.sitemap import IndexXMLSitemap, InvalidSitemap, PagesTextSitemap
    from usp.tree import sitemap_from_str

    listing = Listing()
    text = body.decode("utf-8-sig", errors="replace")
    if not text.strip():
        listing.problems.append("empty")
        return listing
    with _usp_problems() as problems:
        parsed = sitemap_from_str(text)
        if isinstance(parsed, IndexXMLSitemap):
            for child in parsed.sub_sitemaps:
                with_url = _canonical(child.url, url)
                if with_url is None:
                    listing.malformed += 1
                elif with_url not in listing.sitemaps:
                    listing.sitemaps.append(with_url)
        elif isinstance(parsed, InvalidSitemap):
            if _HTML.match(body[:1024]):
                listing.problems.append("an HTML page, not a sitemap")
                problems.clear()
            elif not problems:  # else the parser's complaint says more than its verdict
                listing.problems.append(f"not a sitemap ({_unplaced(parsed.reason)})")
            else:
                problems[:] = [problems[0].replace(": read as far as it goes", "")]
        else:
            for page in parsed.all_pages():
                story = page.news_story
                published = story.publish_date if story is not None else None
                _add(listing, page.url, url, page.last_modified, published, max_entries)
            if isinstance(parsed, PagesTextSitemap) and not listing.entries:
                # what is neither XML nor a line of a URL reads as an empty text sitemap
                listing.problems.append("not a sitemap (no XML, and no line is a URL)")
    listing.problems.extend(problems)
    return listing


def parse_feed(body: bytes, url: str, max_entries: int) -> Listing:
    """The pages an RSS or Atom feed at ``url`` links, with their dates."""
    import feedparser

    listing = Listing()
    # bytes through a stream: feedparser would take a str for a URL or a file name
    parsed = feedparser.parse(io.BytesIO(body), sanitize_html=False, resolve_relative_uris=False)
    if not parsed.get("version"):
        if _HTML.match(body[:1024]):
            listing.problems.append("an HTML page, not a feed")
        else:
            reason = parsed.get("bozo_exception")
            listing.problems.append(f"not an RSS or Atom feed ({reason or 'no feed found'})")
        return listing
    if parsed.get("bozo") and parsed.get("bozo_exception") is not None:
        exc = parsed["bozo_exception"]
        if not isinstance(exc, feedparser.CharacterEncodingOverride):
            listing.problems.append(f"malformed ({exc}): read as far as it goes")
    for item in parsed.entries:
        link = item.get("link")
        if not link:
            continue
        # the plain dict's lookup: feedparser's own maps a missing updated date to the
        # published one, with a DeprecationWarning
        modified = _feed_date(dict.get(item, "updated_parsed"))
        published = _feed_date(dict.get(item, "published_parsed")) or modified
        _add(listing, link, url, modified, published, max_entries)
    return listing


def _add(
    listing: Listing,
    href: str,
    base: str,
    modified: datetime | None,
    published: datetime | None,
    max_entries: int,
) -> None:
    if len(listing.entries) >= max_entries:
        listing.skipped += 1
        return
    target = _canonical(href, base)
    if target is None:
        listing.malformed += 1
        return
    listing.entries.append(Entry(target, _naive_utc(modified), _naive_utc(published)))


def _canonical(href: str, base: str) -> str | None:
    try:
        return canonical(href.strip(), base)
    except InvalidUrl:
        return None


def _naive_utc(value: datetime | None) -> datetime | None:
    """Naive UTC, as the store keeps times; a date without a zone is taken as UTC."""
    if value is None:
        return None
    if value.tzinfo is not None:
        try:
            value = value.astimezone(UTC).replace(tzinfo=None)
        except OverflowError:  # year 1 or 9999 moved past the range by its zone: no date
            return None
    return value


def _feed_date(value: struct_time | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromtimestamp(calendar.timegm(value), UTC)
    except (OverflowError, ValueError, OSError):
        return None


def _unplaced(message: str) -> str:
    """The parser's message without the placeholder URL it gives a string it parses."""
    return message.replace(" from URL http://usp-local-dummy.local/", "").replace(
        " from http://usp-local-dummy.local/", ""
    )


# -- the library's complaints, as the reading's problems --------------------------------

_usp_log = logging.getLogger("usp")
_collecting = threading.local()


class _Collector(logging.Handler):
    """Keeps the warnings and errors the parser logs on the thread collecting them."""

    def emit(self, record: logging.LogRecord) -> None:
        problems: list[str] | None = getattr(_collecting, "problems", None)
        if problems is not None and record.levelno >= logging.ERROR and len(problems) < 3:
            problems.append(f"malformed ({_unplaced(record.getMessage())}): read as far as it goes")


_usp_log.addHandler(_Collector())
_usp_log.propagate = False  # said once, in the crawl's log, with the source's URL


@contextmanager
def _usp_problems() -> Iterator[list[str]]:
    problems: list[str] = []
    _collecting.problems = problems
    try:
        yield problems
    finally:
        _collecting.problems = None
