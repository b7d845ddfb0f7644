"""The message a round's news makes (docs/design.md §17): a title that counts it by kind
and site, a body that lists its pages.

    12 new pages, 3 changed on example.org and 2 other sites

    Changed: Budget 2027 — https://example.org/budget
      - The council will vote in March.
      + The council voted on 4 March: 31 for, 12 against.
    New: Elections — https://example.org/elections
    …
    and 13 more (recrawl news DIR lists them all)

Bounded: ``max_items`` pages listed, each changed one with its summary's lines (at most
six of 200 characters, :mod:`recrawl.core.archive.change_summary`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from recrawl.core import store
from recrawl.core.store.models import NewsKind
from recrawl.core.words import plural

#: The kinds a message tells, in the order its title counts them.
KINDS = (NewsKind.NEW, NewsKind.CHANGED, NewsKind.GONE, NewsKind.BACK)
_LABELS = {NewsKind.NEW: "New", NewsKind.CHANGED: "Changed", NewsKind.GONE: "Gone"}
_ADJECTIVES = {NewsKind.BACK: "back"}


@dataclass(frozen=True)
class Message:
    title: str
    body: str


def round_message(
    items: Sequence[store.NewsItem], max_items: int, project_dir: Path | None = None
) -> Message:
    """The message of ``items`` (none a baseline), oldest first as a round made them."""
    return Message(message_title(items), message_body(items, max_items, project_dir))


def message_title(items: Sequence[store.NewsItem]) -> str:
    """``12 new pages, 3 changed on example.org and 2 other sites``."""
    kinds = Counter(item.kind for item in items)
    counts = [(kinds[kind], kind) for kind in KINDS if kinds[kind]]
    parts = []
    for index, (count, kind) in enumerate(counts):
        word = _ADJECTIVES.get(kind, kind)
        if index == 0:  # the first names what is counted
            noun = "page" if count == 1 else "pages"
            parts.append(
                f"{count:,} {noun} {word}" if kind == NewsKind.BACK else f"{count:,} {word} {noun}"
            )
        else:
            parts.append(f"{count:,} {word}")
    hosts = Counter(item.host for item in items)
    # the site with most news first; ties by name, so a title reads the same each time
    ranked = sorted(hosts, key=lambda host: (-hosts[host], host))
    where = ""
    if ranked:
        others = len(ranked) - 1
        where = f" on {ranked[0]}" + (f" and {plural(others, 'other site')}" if others else "")
    return ", ".join(parts) + where


def message_body(
    items: Sequence[store.NewsItem], max_items: int, project_dir: Path | None = None
) -> str:
    lines: list[str] = []
    for item in items[:max_items]:
        label = _LABELS.get(item.kind, item.kind.capitalize())
        named = f"{item.title} — {item.url}" if item.title else item.url
        lines.append(f"{label}: {named}")
        if item.kind == NewsKind.CHANGED and item.summary:
            lines.extend("  " + line for line in item.summary.splitlines())
    more = len(items) - max_items
    if more > 0:
        where = f"recrawl news {project_dir}" if project_dir is not None else "recrawl news"
        lines.append(f"and {more:,} more ({where} lists them all)")
    return "\n".join(lines)
