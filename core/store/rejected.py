"""Rejected links: URLs the filter chain turned away, and by which rule (docs/design.md §2).

They answer "why was X never crawled".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from peewee import EXCLUDED
from recrawl.core.store.models import RejectedLink
from recrawl.core.store.sql import chunks, url_contains


def record_rejected(rejected: Sequence[tuple[str, str, int | None]], now: datetime) -> None:
    """Remember URLs the chain turned away: (url, filter name, rule line); counts repeats."""
    # one row per URL (its first rule, its repeats counted): PostgreSQL refuses a
    # statement that would update one row twice
    merged: dict[str, dict[str, object]] = {}
    for url, name, line in rejected:
        row = merged.setdefault(
            url, {"url": url, "filter": name, "line": line, "first_seen": now, "count": 0}
        )
        row["count"] = int(str(row["count"])) + 1
    for chunk in chunks(list(merged.values()), 200):
        RejectedLink.insert_many(chunk).on_conflict(
            conflict_target=[RejectedLink.url],
            update={RejectedLink.count: RejectedLink.count + EXCLUDED.count},
        ).execute()


#: How the filter name of an embed the chain's embed rules turned away begins (docs/design.md
#: §14): ``embed: <rule name>``, as :mod:`recrawl.core.engine.embeds` records it.
EMBED_RULE = "embed: "


def embed_rule_name(filter_name: str) -> str | None:
    """The embed rule a record's filter name names (None: a filter of the chain's)."""
    return filter_name[len(EMBED_RULE) :] if filter_name.startswith(EMBED_RULE) else None


#: How the filter names of rejected links that are no URL at all begin (a malformed href
#: or redirect Location, kept with its reason: :mod:`recrawl.core.engine.links`).
NOT_URLS = ("invalid link: ", "invalid redirect: ")


def rejected_links(*, urls_only: bool = False) -> list[RejectedLink]:
    """The rejected links, oldest first; ``urls_only``: not those that are no URL."""
    query = RejectedLink.select()
    if urls_only:
        for prefix in NOT_URLS:
            query = query.where(~RejectedLink.filter.startswith(prefix))
    return list(query.order_by(RejectedLink.first_seen))


def rejected_matching(text: str, limit: int) -> tuple[int, list[RejectedLink]]:
    """How many rejected links contain ``text`` (case-insensitive), and the newest ``limit``."""
    query = RejectedLink.select()
    if text:
        query = query.where(url_contains(RejectedLink.url, text))
    total = query.count()
    rows = list(query.order_by(RejectedLink.first_seen.desc(), RejectedLink.id.desc()).limit(limit))
    return total, rows


def rejected_filters(prefix: str) -> list[str]:
    """The distinct filter names of rejected links that begin with ``prefix`` (the trap
    limits name theirs ``possible trap …``: a pattern held back stays held back)."""
    query = (
        RejectedLink.select(RejectedLink.filter)
        .where(RejectedLink.filter.startswith(prefix))
        .distinct()
    )
    return [row.filter for row in query]


def rejected_link(url: str) -> RejectedLink | None:
    return RejectedLink.get_or_none(RejectedLink.url == url)
