"""Link extraction from HTML (selectolax Lexbor), with charset handling.

Non-HTML bodies are stored, not parsed. Links are resolved against ``<base href>`` and
canonicalized; malformed ones are counted, never fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical
from selectolax.lexbor import LexborHTMLParser
from w3lib.encoding import html_to_unicode

HTML_TYPES = ("text/html", "application/xhtml+xml")
_LINKS = "a[href], area[href], frame[src], iframe[src], base[href], meta[http-equiv]"
_REFRESH_URL = re.compile(r"""^\s*\d*(?:\.\d*)?\s*[;,]?\s*(?:url\s*=\s*)?['"]?([^'"]+)""", re.I)


@dataclass(frozen=True)
class Outlink:
    url: str
    nofollow: bool = False


@dataclass
class ParseResult:
    links: list[Outlink] = field(default_factory=list)
    text: str | None = None
    malformed: int = 0
    #: The page asked robots not to follow its links (<meta name=robots content=nofollow>).
    nofollow_all: bool = False


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def is_html(content_type: str | None, body: bytes) -> bool:
    kind = media_type(content_type)
    if kind:
        return kind in HTML_TYPES
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))


def parse_html(body: bytes, url: str, content_type: str | None) -> ParseResult:
    _, text = html_to_unicode(content_type, body)
    tree = LexborHTMLParser(text)
    result = ParseResult()
    base = url
    based = False
    raw_links: list[tuple[str, bool]] = []
    for node in tree.css(_LINKS):
        attrs = node.attributes
        tag = node.tag
        if tag == "base":
            href = attrs.get("href")
            if href and not based:  # the first <base href> is the one that counts
                based = True
                try:
                    base = canonical(href, url)
                except InvalidUrl:
                    result.malformed += 1
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
    # one entry per target; followable if any link to it is followable
    merged: dict[str, bool] = {}
    for href, nofollow in raw_links:
        if href.lstrip().lower().startswith(("javascript:", "mailto:", "tel:", "data:", "#")):
            continue
        try:
            link = canonical(href, base)
        except InvalidUrl:
            result.malformed += 1
            continue
        merged[link] = merged.get(link, True) and (nofollow or result.nofollow_all)
    result.links = [Outlink(link, nofollow) for link, nofollow in merged.items()]
    body_node = tree.body
    result.text = body_node.text(separator=" ") if body_node is not None else ""
    return result
