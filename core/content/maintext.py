"""A page's main text: the article without navigation, sidebars, footers and ads.

trafilatura finds the main text; a page it finds none in (a listing, a form, a page of
links) falls back to all of its visible text, so a diff or a signature never sees an
empty page where the user sees words. Either way the text is one paragraph per line.

Two readings of it. :func:`main_text`, the ``main-text`` signature's, is trafilatura's
plain text, whose lines follow the markup's own line breaks inside a paragraph: it
stays exactly so, since any change to it would change the signature of every page a
project has fetched (all of them would look changed on their next fetch).
:func:`block_text`, what a diff compares and shows (``recrawl diff``, the app's diff
view), is the same main text cut at the page's blocks — paragraphs, list items,
headings, table cells, code blocks, quotes — with the whitespace inside a block
collapsed, and without the permalink marks documentation generators put after each
heading (Sphinx's "¶").

Both parsers see the markup only up to the crawl's parse bounds (nesting depth and
element count, :mod:`.markup_bounds`): past them a parser's time grows with the square
of the page, and 20,000 nested ``<div>`` elements held this module for ten seconds.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from typing import Any, Literal

from recrawl.core.config import ParseSettings
from recrawl.core.content.markup_bounds import find_cut
from recrawl.core.content.text_rule import TextRule
from recrawl.core.errors import NotText
from selectolax.lexbor import LexborHTMLParser, LexborNode

#: Where the text came from: the main-text extractor, its fallback, or a text file.
Source = Literal["main text", "visible text", "text"]

HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Media types read as text besides ``text/*``: the lines of the file are its paragraphs.
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript")
_TEXT_SUFFIXES = ("+xml", "+json")
#: The head of a body looked at for NUL bytes (binary): the MIME Sniffing Standard's
#: "resource header" length (the crawl's parser looks at as much).
SNIFF_BYTES = 1445

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


#: A main text of one paragraph with this share of the page's visible words is the
#: extractor's dump of the whole body, not a paragraph of the page.
DUMPED = 0.5
#: trafilatura's XML elements that hold a paragraph of their own (or paragraphs).
_XML_BLOCKS = frozenset(
    {"doc", "main", "div", "head", "p", "list", "item", "table", "row", "cell", "quote", "note"}
)
#: trafilatura's XML elements with no text of the page's.
_XML_SKIPPED = frozenset({"comments", "graphic"})
#: What a permalink anchor shows: Sphinx's and MkDocs' "¶", "§", "#", a link symbol.
_PERMALINK_TEXT = frozenset({"", "¶", "§", "#", "🔗", "⚓", "⁋", "link"})
#: Classes of permalink anchors (Sphinx, MkDocs, Jupyter, VuePress, Docusaurus, anchor.js).
_PERMALINK_CLASSES = frozenset(
    {"headerlink", "anchor-link", "header-anchor", "hash-link", "anchorjs-link", "permalink"}
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
    """The page's main text, or its visible text when no main text is found (the
    signature's text: one line per line of trafilatura's plain text)."""
    html = bounded(html)
    title = _title(html)
    paragraphs = _lines(_extract(html, url, "txt") or "")
    if paragraphs:
        return MainText(title, paragraphs, "main text")
    return MainText(title, _visible_text(html), "visible text")


def block_text(html: str, url: str | None = None) -> MainText:
    """The page's main text (else its visible text) as a diff shows it: a paragraph a
    block of the page, its whitespace collapsed, permalink marks left out."""
    html = _without_permalinks(bounded(html))
    title = _title(html)
    extracted = _extract(html, url, "xml")
    paragraphs = _xml_blocks(extracted) if extracted else ()
    visible: tuple[str, ...] | None = None
    if len(paragraphs) == 1:
        # trafilatura's last resort for a page it finds no main text in dumps all of the
        # body's text in one paragraph, which tells no blocks: the visible text's do
        visible = _visible_text(html)
        if len(paragraphs[0].split()) >= DUMPED * len(" ".join(visible).split()):
            paragraphs = ()
    if paragraphs:
        return MainText(title, paragraphs, "main text")
    return MainText(title, _visible_text(html) if visible is None else visible, "visible text")


def _extract(html: str, url: str | None, output_format: str) -> str | None:
    import trafilatura  # loaded on first use: quick commands never need it

    found: str | None = trafilatura.extract(
        html,
        url=url,
        output_format=output_format,
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
    return found


def _without_permalinks(html: str) -> str:
    """``html`` without the anchors that mark a heading's permalink (``<a class=
    "headerlink" href="#id">¶</a>``): a mark, not the page's text."""
    tree = LexborHTMLParser(html)
    found = False
    for node in tree.css("a"):
        text = node.text(deep=True).strip().strip("\u200b\ufe0f").strip()
        if text not in _PERMALINK_TEXT:
            continue
        classes = set((node.attributes.get("class") or "").split())
        if classes & _PERMALINK_CLASSES or (node.attributes.get("href") or "").startswith("#"):
            node.decompose()
            found = True
    return (tree.html or html) if found else html


class _Paragraphs:
    """Text gathered into paragraphs: whitespace inside one collapsed (a paragraph's line
    breaks in the markup are spaces), empty ones left out."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current: list[str] = []

    def end(self) -> None:
        line = " ".join("".join(self.current).split())
        if line:
            self.lines.append(line)
        self.current.clear()


def _xml_blocks(xml: str) -> tuple[str, ...]:
    """The paragraphs of trafilatura's XML output: one per block element, its
    whitespace collapsed (a paragraph's line breaks in the markup are spaces)."""
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError:
        return ()
    main = root.find("main")
    paragraphs = _Paragraphs()
    current, end_line = paragraphs.current, paragraphs.end

    # An explicit stack, not recursion (the markup may nest deep): an element with
    # whether it is a block, its text and tails as strings, None a block's end.
    stack: list[tuple[ElementTree.Element[Any], bool] | str | None] = [
        (main if main is not None else root, True)
    ]
    while stack:
        item = stack.pop()
        if item is None:
            end_line()
            continue
        if isinstance(item, str):
            current.append(item)
            continue
        element, block = item
        if element.tag in _XML_SKIPPED:
            continue
        if element.tag == "lb":  # a <br>: the line ends (as the visible text's does)
            end_line()
            continue
        if block:
            end_line()
        children = list(element)
        # a code element among blocks is a code block; inside a paragraph's text, a word
        alone = element.tag not in ("p", "head") and not (element.text or "").strip()
        alone = alone and not any((child.tail or "").strip() for child in children)
        pushed: list[tuple[ElementTree.Element[Any], bool] | str | None] = []
        if element.text:
            pushed.append(element.text)
        for child in children:
            child_block = child.tag in _XML_BLOCKS or (child.tag == "code" and alone)
            pushed.append((child, child_block))
            if child.tail:
                pushed.append(child.tail)
        if block:
            pushed.append(None)
        stack.extend(reversed(pushed))
    end_line()
    return tuple(paragraphs.lines)


def payload_text(
    body: bytes, content_type: str | None, url: str | None = None, rule: TextRule | None = None
) -> MainText:
    """What a payload says, as a diff compares it: a page's blocks (:func:`block_text`),
    a text file's lines; under a change ``rule``, what the rule leaves of them.

    ``body`` is decoded (Content-Encoding undone); its charset comes from
    ``content_type``, a byte-order mark or the page's ``<meta charset>``. Raises
    :class:`NotText` for anything else (an image, a PDF, bytes with NULs in their head).
    """
    from w3lib.encoding import html_to_unicode  # loaded with the payload, as main_text's

    kind = (content_type or "").split(";")[0].strip().lower()
    head = body[:SNIFF_BYTES]
    utf16 = head.startswith((b"\xfe\xff", b"\xff\xfe")) or "utf-16" in (content_type or "")
    if b"\x00" in head and not utf16:
        raise NotText(f"not text: {kind or 'no Content-Type'}, and binary bytes")
    sniffed = not kind and head.lstrip().lower().startswith((b"<!doctype html", b"<html"))
    if kind in HTML_TYPES or sniffed:
        _, html = html_to_unicode(content_type, body)
        if rule is None:
            return block_text(html, url)
        found = block_text(rule.markup(bounded(html)), url)
        return MainText(found.title, tuple(rule.lines(found.paragraphs)), found.source)
    if not kind or kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(_TEXT_SUFFIXES):
        _, text = html_to_unicode(content_type, body)
        lines = _lines(text)
        return MainText(None, lines if rule is None else tuple(rule.lines(lines)), "text")
    raise NotText(f"not text: {kind or 'no Content-Type'}")


def bounded(html: str, bounds: ParseSettings | None = None) -> str:
    """``html`` up to the parse bounds (the crawl's defaults if None)."""
    bounds = bounds or ParseSettings()
    cut = find_cut(html, bounds.max_depth, bounds.max_elements)
    return html if cut is None else html[: cut.at]


def page_title(html: str) -> str | None:
    return _title(bounded(html))


def _title(html: str) -> str | None:
    return tree_title(LexborHTMLParser(html))


def tree_title(tree: LexborHTMLParser) -> str | None:
    """:func:`page_title` of a page parsed already."""
    node = tree.css_first("title")
    if node is None:
        return None
    title = " ".join(node.text(deep=True).split())
    return title or None


def visible_text(html: str) -> tuple[str, ...]:
    """All text a reader sees, one paragraph (block element) per line."""
    return _visible_text(bounded(html))


def _visible_text(html: str) -> tuple[str, ...]:
    return tree_text(LexborHTMLParser(html))


def tree_text(tree: LexborHTMLParser) -> tuple[str, ...]:
    """:func:`visible_text` of a page parsed already (the crawl's parse tree: search
    indexes its text without parsing the page again)."""
    root = tree.body or tree.root
    if root is None:
        return ()
    paragraphs = _Paragraphs()
    current, end_line = paragraphs.current, paragraphs.end

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
    return tuple(paragraphs.lines)


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line for raw in text.splitlines() if (line := " ".join(raw.split())))
