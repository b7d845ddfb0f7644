"""TEMPORARY stub of the embed extraction (replaced by step13-extract's module)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from selectolax.lexbor import LexborHTMLParser


class EmbedRef(NamedTuple):
    url: str
    context: str
    base: str | None = None


@dataclass
class HtmlEmbeds:
    refs: list[EmbedRef] = field(default_factory=list)
    dropped: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class CssEmbeds:
    refs: list[EmbedRef] = field(default_factory=list)
    dropped: int = 0
    notes: list[str] = field(default_factory=list)


_SKIP = ("data:", "javascript:", "about:", "blob:", "mailto:", "#")
MAX_CSS_CHARS = 5_000_000


def _add(out: HtmlEmbeds | CssEmbeds, seen: set[str], url: str, context: str, limit: int) -> None:
    url = url.strip()
    if not url or url.lower().startswith(_SKIP) or url in seen:
        return
    seen.add(url)
    if len(out.refs) >= limit:
        out.dropped += 1
        return
    out.refs.append(EmbedRef(url, context))


def html_embeds(
    tree: LexborHTMLParser, limit: int, *, max_css_chars: int = 5_000_000
) -> HtmlEmbeds:
    out = HtmlEmbeds()
    seen: set[str] = set()
    for node in tree.css("img[src], script[src], link[href][rel], iframe[src], style"):
        attrs = node.attributes
        if node.tag == "img":
            _add(out, seen, attrs.get("src") or "", "img", limit)
        elif node.tag == "script":
            _add(out, seen, attrs.get("src") or "", "script", limit)
        elif node.tag == "iframe":
            _add(out, seen, attrs.get("src") or "", "iframe", limit)
        elif node.tag == "style":
            for ref in stylesheet_embeds(node.text() or "", limit).refs:
                _add(out, seen, ref.url, "style-block", limit)
        else:
            rel = (attrs.get("rel") or "").lower().split()
            if {"stylesheet", "icon"} & set(rel):
                _add(out, seen, attrs.get("href") or "", "stylesheet", limit)
    return out


_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


def stylesheet_embeds(text: str, limit: int, *, max_chars: int = MAX_CSS_CHARS) -> CssEmbeds:
    out = CssEmbeds()
    seen: set[str] = set()
    for m in _URL.finditer(text[:max_chars]):
        _add(out, seen, m.group(1) or m.group(2), "css-url", limit)
    return out


def link_header_embeds(value: str) -> list[EmbedRef]:
    refs = []
    for part in value.split(","):
        m = re.match(r"\s*<([^>]*)>(.*)", part)
        if m and re.search(r"rel=\"?(preload|stylesheet)", m.group(2)):
            refs.append(EmbedRef(m.group(1), "link-header"))
    return refs
