"""What a chain does to the project's known URLs: an edit's preview, hits per rule.

Both run the compiled fast path, so a preview over a large project stays quick (the
GUI calls these from a worker thread).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from recrawl.core import store
from recrawl.core.filters.chain import Chain
from recrawl.core.filters.compiled import compile_chain


def known_urls() -> list[str]:
    """Every URL the project knows: its pages, then the links the chain turned away."""
    urls = [row["url"] for row in store.list_pages()]
    # (not the links that are no URL: a malformed one is no input for a chain)
    urls += [link.url for link in store.rejected_links(urls_only=True)]
    return list(dict.fromkeys(urls))


def preview(
    current: Chain, edited: Chain, urls: Iterable[str], examples: int = 10
) -> dict[str, Any]:
    """How many URLs the edited chain would newly reject or newly accept, with examples."""
    before, after = compile_chain(current), compile_chain(edited)
    changes: dict[str, list[str]] = {"newly_rejected": [], "newly_accepted": []}
    counts = {"newly_rejected": 0, "newly_accepted": 0}
    for url in urls:
        was, now = before.check(url).accepted, after.check(url).accepted
        if was == now:
            continue
        key = "newly_rejected" if was else "newly_accepted"
        counts[key] += 1
        if len(changes[key]) < examples:
            changes[key].append(url)
    return {**counts, "examples": changes}


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
