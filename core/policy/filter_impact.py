"""What a chain does to the project's known URLs: an edit's preview, hits per rule.

Applying a chain (:mod:`.filter_reach`) changes known pages; the preview counts them.

Both run the compiled fast path, so a preview over a large project stays quick (the
GUI calls these from a job's thread).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from recrawl.core import store
from recrawl.core.filters.chain import Chain
from recrawl.core.filters.compiled import compile_chain


@dataclass(frozen=True)
class KnownUrls:
    """Every URL the project knows: its pages, then the links the chain turned away."""

    pages: list[str]
    #: Those of the pages that are filtered (docs/design.md §10).
    filtered: frozenset[str]
    #: Rejected links that are no page.
    links: list[str]

    def __iter__(self) -> Iterator[str]:
        yield from self.pages
        yield from self.links

    def __len__(self) -> int:
        return len(self.pages) + len(self.links)


def known_urls() -> KnownUrls:
    """The project's known URLs, with which pages are filtered."""
    pages: list[str] = []
    filtered: set[str] = set()
    for url, is_filtered in store.page_urls():
        pages.append(url)
        if is_filtered:
            filtered.add(url)
    seen = set(pages)
    # (not the links that are no URL: a malformed one is no input for a chain)
    links = [link.url for link in store.rejected_links(urls_only=True) if link.url not in seen]
    return KnownUrls(pages, frozenset(filtered), list(dict.fromkeys(links)))


def preview(current: Chain, edited: Chain, known: KnownUrls, examples: int = 10) -> dict[str, Any]:
    """How many URLs the edited chain would newly reject or newly accept, with examples;
    and what applying it does to the known pages (docs/design.md §10): ``newly_filtered``,
    pages not filtered that it rejects, and ``coming_back``, filtered pages it accepts.

    The two pairs differ where a page's status disagrees with the current chain (a chain
    set before Recrawl applied chains to known pages): applying fixes that too.
    """
    before, after = compile_chain(current), compile_chain(edited)
    changes: dict[str, list[str]] = {"newly_rejected": [], "newly_accepted": []}
    counts = {"newly_rejected": 0, "newly_accepted": 0}
    newly_filtered = coming_back = 0
    filtered = known.filtered
    pages = len(known.pages)
    for number, url in enumerate(known):
        now = after.check(url).accepted
        if number < pages:
            if not now and url not in filtered:
                newly_filtered += 1
            elif now and url in filtered:
                coming_back += 1
        was = before.check(url).accepted
        if was == now:
            continue
        key = "newly_rejected" if was else "newly_accepted"
        counts[key] += 1
        if len(changes[key]) < examples:
            changes[key].append(url)
    return {
        **counts,
        "examples": changes,
        "newly_filtered": newly_filtered,
        "coming_back": coming_back,
    }


def rule_hits(chain: Chain, urls: Iterable[str]) -> list[dict[str, Any]]:
    """For each rule that decided some URL: how many (a reject no rule matched has line None)."""
    fast = compile_chain(chain)
    hits: dict[tuple[int, int | None], int] = {}
    for url in urls:
        verdict = fast.check(url)
        if verdict.filter is not None:
            key = (verdict.filter, verdict.line)
            hits[key] = hits.get(key, 0) + 1
    ordered = sorted(
        hits.items(), key=lambda item: (item[0][0], item[0][1] is None, item[0][1] or 0)
    )
    return [
        {"filter": index, "name": chain.filters[index].name, "line": line, "hits": count}
        for (index, line), count in ordered
    ]
