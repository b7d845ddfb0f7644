"""What a change rule does to a page's text (docs/design.md §17), as the content layer sees it.

A change rule (:mod:`recrawl.core.policy.change_rules`) narrows what counts as a page's
text before a signature or a diff reads it: elements dropped by CSS selector
(``remove``), or only some elements kept (``only``), then text patterns taken out of each
line (``ignore``). The signature and the diff both apply it through this protocol, so
what a rule removes is neither a change nor shown as one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from selectolax.lexbor import LexborHTMLParser


class TextRule(Protocol):
    """A change rule as the readers of a page's text apply it."""

    def markup(self, html: str) -> str:
        """The page's markup with the rule's selectors applied."""
        ...

    def lines(self, lines: Sequence[str]) -> list[str]:
        """The text's lines with the rule's patterns taken out (empty lines dropped)."""
        ...


def without_selected(html: str, selectors: Sequence[str]) -> str:
    """``html`` without the elements any of ``selectors`` selects."""
    if not selectors:
        return html
    tree = LexborHTMLParser(html)
    found = [node for selector in selectors for node in tree.css(selector)]
    if not found:
        return html
    for node in found:
        node.decompose()
    return tree.html or ""


def only_selected(html: str, selectors: Sequence[str]) -> str | None:
    """A page of just the elements ``selectors`` select (by selector, then in the page's
    order), each once: an element inside another selected one is kept with it, not again.
    None when they select nothing."""
    tree = LexborHTMLParser(html)
    chosen = [node for selector in selectors for node in tree.css(selector)]
    if not chosen:
        return None
    # inside any chosen element, not only an earlier one: `.price, .body` keeps the
    # price inside the body once, with the body
    everything = {node.mem_id for node in chosen}
    kept: list[str] = []
    seen: set[int] = set()
    for node in chosen:
        if node.mem_id in seen or _inside(node, everything):
            continue
        seen.add(node.mem_id)
        kept.append(node.html or "")
    return "<html><body>" + "".join(f"<div>{part}</div>" for part in kept) + "</body></html>"


def _inside(node: object, seen: set[int]) -> bool:
    parent = getattr(node, "parent", None)
    while parent is not None:
        if parent.mem_id in seen:
            return True
        parent = parent.parent
    return False
