"""Seeds: URLs the user adds to a project (``recrawl inject``, the GUI's seed box)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from recrawl.core import store
from recrawl.core.config import CrawlSettings
from recrawl.core.filters import Verdict
from recrawl.core.net.urls import SeedUrl, host_of, seed_url
from recrawl.core.policy.choices import (
    add_scope_hosts,
    project_chain,
    project_schedule,
    project_scoring,
)


@dataclass(frozen=True)
class InjectResult:
    added: int
    urls: list[str]  # canonical, in the order given
    rejected: list[tuple[str, Verdict]]  # seeds the chain turned away, and why
    #: Seeds the project knew already: left as they are (refetch makes them due now).
    known: list[str] = field(default_factory=list)
    #: those typed without a scheme, taken as https:// (their :meth:`SeedUrl.note` says so)
    assumed: list[SeedUrl] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One line per URL typed without a scheme: what it was taken as."""
        return [note for seed in self.assumed if (note := seed.note()) is not None]


def _seed_urls(urls: Sequence[str]) -> tuple[list[str], list[SeedUrl]]:
    """The canonical URLs (once each, in order) and those whose scheme was assumed;
    InvalidUrl for the first that is no URL, before anything is written."""
    seeds = [seed_url(u) for u in urls]
    assumed = list({s.given: s for s in seeds if s.assumed_scheme}.values())
    return list(dict.fromkeys(s.url for s in seeds)), assumed


def inject(urls: Sequence[str], now: datetime) -> InjectResult:
    """Add seed URLs: canonicalized, their hosts added to the scope, run through the chain.

    A URL typed without a scheme is taken as https:// (``assumed`` says which). Raises
    InvalidUrl before writing anything; seeds the chain rejects are recorded in the
    rejected-links table (with filter and line), not added.
    """
    canon, assumed = _seed_urls(urls)
    schedule = project_schedule()
    seed = project_scoring().seed_fields()
    with store.transaction():
        add_scope_hosts([host_of(u) for u in canon], now)
        chain = project_chain()
        verdicts = [(u, chain.check(u)) for u in canon]
        accepted = [u for u, v in verdicts if v.accepted]
        rejected = [(u, v) for u, v in verdicts if not v.accepted]
        pages = [
            store.NewPage(
                url=u,
                host=host_of(u),
                next_fetch=now,
                fetch_interval=schedule.initial_interval(),
                discovered_via=store.DiscoveredVia.SEED,
                **seed,
            )
            for u in accepted
        ]
        known = store.page_ids(accepted)
        added = store.add_pages(pages, now)
        # a seed the project knows as an embed is a page from now on (docs/design.md §14)
        store.promote_linked(list(store.page_ids(accepted).values()), now)
        # a known page keeps its schedule: adding a seed is not asking for a fetch
        # (`recrawl refetch` and the app's Refetch are)
        store.record_rejected([(u, v.filter_name or "", v.line) for u, v in rejected], now)
    return InjectResult(added, canon, rejected, [u for u in accepted if u in known], assumed)


def inject_sources(urls: Sequence[str], kind: str, now: datetime) -> InjectResult:
    """Add sitemaps or feeds (``kind``) to read from the next crawl on, their hosts in
    scope as a seed's are (what they list goes through the chain). One known already is
    due now: the user asked for it. Without a scheme, https:// (as for seeds). Raises
    InvalidUrl before writing anything."""
    canon, assumed = _seed_urls(urls)
    interval = CrawlSettings().sources.initial_interval
    with store.transaction():
        add_scope_hosts([host_of(u) for u in canon], now)
        sources = [
            store.NewSource(u, kind, host_of(u), "inject", None, now, interval) for u in canon
        ]
        added = store.add_sources(sources, now)
        store.make_sources_due(canon, now)
    return InjectResult(added, canon, [], assumed=assumed)
