"""Why an embed is archived or not (docs/design.md §14): for "why was X not crawled?".

An embed is decided by the chain's embed rules, not by its filters, and fetched with the
pages that embed it: a URL the filters turn away as a link (an image a page links to,
which ``no-binaries`` rejects as a page) may be archived all the same as what a page
shows. The rejected-links record keeps one row per URL (its first rejection), so these
answers read the store's row of the URL as well as the record, and judge by the chain
being edited as well as by the applied one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from recrawl.core import store
from recrawl.core.filters import Chain
from recrawl.core.store.models import PageKind, PageStatus

#: The statuses of an embed whose payload is archived.
ARCHIVED = (PageStatus.FETCHED, PageStatus.NOTMODIFIED)


@dataclass(frozen=True)
class KnownEmbed:
    """A URL the store keeps as an embed, as plain values."""

    url: str
    status: str
    last_fetched: datetime | None
    #: Its latest fetch's HTTP status and error (None: no reply, no error, or no fetch).
    http_status: int | None
    error: str | None
    #: The page (or stylesheet) it was first found in.
    embedded_by: str | None

    @property
    def archived(self) -> bool:
        return self.status in ARCHIVED


def known_embed(url: str) -> KnownEmbed | None:
    """The store's embed ``url`` (None: unknown, or a page)."""
    page = store.page_by_url(url)
    if page is None or page.kind != PageKind.EMBED:
        return None
    http_status, error = store.last_failures([page.id]).get(page.id, (None, None))
    return KnownEmbed(
        page.url, page.status, page.last_fetched, http_status, error, page.discovered_from
    )


def embed_rule_line(chain: Chain, name: str, line: int | None) -> str | None:
    """The text of rule ``line`` of ``chain``'s embed rule ``name`` (None: no such line)."""
    flt = next((f for f in chain.embed_rules.filters if f.name == name), None)
    if flt is None or line is None:
        return None
    lines = flt.rules_text.split("\n")
    return lines[line - 1].strip() if 0 < line <= len(lines) else None


def embed_verdict(chain: Chain, url: str) -> str:
    """What ``chain``'s embed rules say of ``url`` as an embed, in words:
    ``rejected by embed rule 0 (no-video), line 1: -\\.(mp4|webm)$``."""
    rules = chain.embed_rules
    if not rules.filters:
        return "accepted: the chain has no embed rules, so every embed is fetched"
    verdict = rules.check(url)
    if verdict.filter is None:
        return "accepted (no embed rule rejected it)"
    line = f"line {verdict.line}" if verdict.line is not None else "no rule matched"
    text = embed_rule_line(chain, verdict.filter_name or "", verdict.line)
    rule = f": {text}" if text else ""
    word = "accepted (short-circuit)" if verdict.accepted else "rejected"
    return f"{word} by embed rule {verdict.filter} ({verdict.filter_name}), {line}{rule}"
