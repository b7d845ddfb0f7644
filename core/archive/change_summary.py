"""Why a page changed (docs/design.md §17): a ``changed`` news item's first diff lines.

The summary is what ``recrawl diff`` would show first for that fetch — its capture
against the one before it, read under the page's change rule (what the rule removes is
no change) — as ``+ added line`` / ``- removed line``, at most :data:`SUMMARY_LINES` lines
of :data:`LINE_CHARS` characters. A crawl makes them after each round for that round's
changed items, at most :data:`PER_ROUND` (a diff reads two captures); the others are made
when first listed (``recrawl news --json``, the feed), and kept.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from recrawl.core import store
from recrawl.core.archive.page_diff import fetch_pair, page_diff
from recrawl.core.content.diff import TextDiff
from recrawl.core.content.text_rule import TextRule
from recrawl.core.store.models import NewsKind

#: Lines of a summary, and characters of each (a longer one ends with "…").
SUMMARY_LINES = 6
LINE_CHARS = 200
#: Summaries a crawl makes after a round; the rest wait until listed.
PER_ROUND = 50
#: Summaries one listing makes (a project's older items, from before summaries).
PER_LISTING = 1000

_log = logging.getLogger(__name__)


class PrefixedRule(TextRule, Protocol):
    """A change rule as a diff reads it, and the URL prefix it is kept under
    (:class:`recrawl.core.policy.change_rules.ChangeRule`)."""

    @property
    def prefix(self) -> str: ...


#: The rule that changes what a URL's text is (``change_rules.text_rule_for``), if any.
RuleFor = Callable[[str], PrefixedRule | None]


def summary_text(diff: TextDiff) -> str:
    """The first lines a diff adds and removes, in page order; "" when it has none."""
    lines: list[str] = []
    for row in diff.rows:
        if row.moved:  # a paragraph that moved was neither written nor taken away
            continue
        if row.kind in ("removed", "changed") and row.old is not None:
            lines.append("- " + _cut(row.old))
        if row.kind in ("added", "changed") and row.new is not None:
            lines.append("+ " + _cut(row.new))
        if len(lines) >= SUMMARY_LINES:
            break
    return "\n".join(lines[:SUMMARY_LINES])


def _cut(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def change_summary(
    project_dir: Path, item: store.NewsItem, rule_for: RuleFor
) -> tuple[str, str | None]:
    """``(summary, rule prefix)`` of a changed item: its fetch's capture against the one
    before it. Captures gone (a compaction dropped them, the fetch archived none): ""."""
    rule = rule_for(item.url)
    prefix = rule.prefix if rule is not None else None
    try:
        old, new = fetch_pair(project_dir, item.url, item.at, None)
        diff = page_diff(project_dir, item.url, old, new, rule)
    except Exception as exc:  # a summary never costs the crawl or the listing
        _log.debug("no summary for %s at %s: %s", item.url, item.at, exc)
        return "", prefix
    return summary_text(diff.diff), prefix


def needs_summary(item: store.NewsItem) -> bool:
    return item.kind == NewsKind.CHANGED and item.summary is None


def fill_summaries(
    project_dir: Path, items: Iterable[store.NewsItem], limit: int, rule_for: RuleFor
) -> list[store.NewsItem]:
    """``items`` with the summaries of at most ``limit`` changed ones that had none made
    (and kept in the store)."""
    out: list[store.NewsItem] = []
    made: list[tuple[int, str, str | None]] = []
    for item in items:
        if needs_summary(item) and len(made) < limit:
            summary, rule = change_summary(project_dir, item, rule_for)
            made.append((item.id, summary, rule))
            item = replace(item, summary=summary, rule=rule)
        out.append(item)
    if made:
        store.set_news_summaries(made)
    return out


def with_summaries(
    project_dir: Path, items: Iterable[store.NewsItem], rule_for: RuleFor, limit: int = PER_LISTING
) -> Iterator[store.NewsItem]:
    """``items`` as they stream, each changed one with its summary (made now for at most
    ``limit`` of them, kept at the end: the listing's cursor stays a plain read)."""
    made: list[tuple[int, str, str | None]] = []
    try:
        for item in items:
            if needs_summary(item) and len(made) < limit:
                summary, rule = change_summary(project_dir, item, rule_for)
                made.append((item.id, summary, rule))
                item = replace(item, summary=summary, rule=rule)
            yield item
    finally:
        if made:
            store.set_news_summaries(made)
