"""A page's main text: the article without navigation, sidebars, footers and ads.

trafilatura finds the main text; a page it finds none in (a listing, a form, a page of
links) falls back to all of its visible text, so a diff or a signature never sees an
empty page where the user sees words. Either way the text is one paragraph per line.

Both parsers see the markup only up to the crawl's parse bounds (nesting depth and
element count, :mod:`.markup_bounds`): past them a parser's time grows with the square
of the page, and 20,000 nested ``<div>`` elements held this module for ten seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from recrawl.core.config import ParseSettings
from recrawl.core.content.markup_bounds import find_cut
from recrawl.core.errors import NotText
from selectolax.lexbor import LexborHTMLParser, LexborNode

#: Where the text came from: the main-text extractor, its fallback, or a text file.
Source = Literal["main text", "visible text", "text"]

HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Media types read as text besides ``text/*``: the lines of the file are its paragraphs.
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript")
_TEXT_SUFFIXES = ("+xml", "+json")
#: The head of a body looked at for NUL bytes (binary), as the crawl's parser does.
_SNIFF_BYTES = 1445

#: Elements whose text no reader sees.
_HIDDEN = frozenset({"script", "style", "noscript", "template", "head", "svg", "iframe"})
#: Elements that start a new paragraph (the fallback's line breaks).
_BLOCKS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "td",
        "th",
        "tr",
        "ul",
        "caption",
        "option",
    ]
)


@dataclass(frozen=True)
class MainText:
    title: str | None
    paragraphs: tuple[str, ...]
    source: Source

    @property
    def text(self) -> str:
        return "\n".join(self.paragraphs)


def main_text(html: str, url: str | None = None) -> MainText:
    """The page's main text, or its visible text when no main text is found."""
    import trafilatura  # loaded on first use: quick commands never need it

    html = bounded(html)
    title = _title(html)
    extracted = trafilatura.extract(
        html,
        url=url,
        output_format="txt",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        deduplicate=False,
        # without its fallback extractors (jusText, readability): a fifth less time on
        # every fetched page, the same judgement (bench/change_bench.py: recall 99.6 %,
        # false alarms 0.8 %, against 100 % and 1.1 % with them)
        fast=True,
    )
    paragraphs = _lines(extracted or "")
    if paragraphs:
        return MainText(title, paragraphs, "main text")
    return MainText(title, _visible_text(html), "visible text")


def payload_text(body: bytes, content_type: str | None, url: str | None = None) -> MainText:
    """What a payload says, one paragraph a line: a page's main text, a text file's lines.

    ``body`` is decoded (Content-Encoding undone); its charset comes from
    ``content_type``, a byte-order mark or the page's ``<meta charset>``. Raises
    :class:`NotText` for anything else (an image, a PDF, bytes with NULs in their head).
    """
    from w3lib.encoding import html_to_unicode  # loaded with the payload, as main_text's

    kind = (content_type or "").split(";")[0].strip().lower()
    head = body[:_SNIFF_BYTES]
    utf16 = head.startswith((b"\xfe\xff", b"\xff\xfe")) or "utf-16" in (content_type or "")
    if b"\x00" in head and not utf16:
        raise NotText(f"not text: {kind or 'no Content-Type'}, and binary bytes")
    sniffed = not kind and head.lstrip().lower().startswith((b"<!doctype html", b"<html"))
    if kind in HTML_TYPES or sniffed:
        _, html = html_to_unicode(content_type, body)
        return main_text(html, url)
    if not kind or kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(_TEXT_SUFFIXES):
        _, text = html_to_unicode(content_type, body)
        return MainText(None, _lines(text), "text")
    raise NotText(f"not text: {kind or 'no Content-Type'}")


def bounded(html: str, bounds: ParseSettings | None = None) -> str:
    """``html`` up to the parse bounds (the crawl's defaults if None)."""
    bounds = bounds or ParseSettings()
    cut = find_cut(html, bounds.max_depth, bounds.max_elements)
    return html if cut is None else html[: cut.at]


def page_title(html: str) -> str | None:
    return _title(bounded(html))


def _title(html: str) -> str | None:
    tree = LexborHTMLParser(html)
    node = tree.css_first("title")
    if node is None:
        return None
    title = " ".join(node.text(deep=True).split())
    return title or None


def visible_text(html: str) -> tuple[str, ...]:
    """All text a reader sees, one paragraph (block element) per line."""
    return _visible_text(bounded(html))


def _visible_text(html: str) -> tuple[str, ...]:
    tree = LexborHTMLParser(html)
    root = tree.body or tree.root
    if root is None:
        return ()
    lines: list[str] = []
    current: list[str] = []

    def end_line() -> None:
        line = " ".join("".join(current).split())
        if line:
            lines.append(line)
        current.clear()

    # An explicit stack, not recursion: the markup may nest deeper than Python recurses.
    # ``None`` marks the end of a block element.
    stack: list[LexborNode | None] = [root]
    while stack:
        node = stack.pop()
        if node is None:
            end_line()
            continue
        tag = node.tag
        if tag == "-text":
            current.append(node.text_content or "")
            continue
        if tag in _HIDDEN or tag is None or tag.startswith("-"):
            continue
        if tag in _BLOCKS:
            end_line()
            stack.append(None)
        children: list[LexborNode] = []
        child = node.child
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend(reversed(children))
    end_line()
    return tuple(lines)


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line for raw in text.splitlines() if (line := " ".join(raw.split())))
