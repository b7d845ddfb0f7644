"""A page's main text: the article without navigation, sidebars, footers and ads.

trafilatura finds the main text; a page it finds none in (a listing, a form, a page of
links) falls back to all of its visible text, so a diff or a signature never sees an
empty page where the user sees words. Either way the text is one paragraph per line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from selectolax.lexbor import LexborHTMLParser, LexborNode

#: Where the text came from: the main-text extractor, or the fallback.
Source = Literal["main text", "visible text"]

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

    title = page_title(html)
    extracted = trafilatura.extract(
        html,
        url=url,
        output_format="txt",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        deduplicate=False,
    )
    paragraphs = _lines(extracted or "")
    if paragraphs:
        return MainText(title, paragraphs, "main text")
    return MainText(title, visible_text(html), "visible text")


def page_title(html: str) -> str | None:
    tree = LexborHTMLParser(html)
    node = tree.css_first("title")
    if node is None:
        return None
    title = " ".join(node.text(deep=True).split())
    return title or None


def visible_text(html: str) -> tuple[str, ...]:
    """All text a reader sees, one paragraph (block element) per line."""
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
