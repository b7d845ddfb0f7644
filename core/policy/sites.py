"""Sites: the hosts a project watches, and taking one out of the crawl or in again.

What is in scope is the chain's "scope" domain filter (``inject`` widens it to the
seeds' hosts): a host is in scope when one of its entries is the host or a domain above
it. Taking a site out of the crawl removes that entry from the filter and applies the
chain, as any chain edit is applied (:func:`~recrawl.core.policy.choices.apply_chain`):
links to it are turned away from then on, and its pages and captures are kept, marked
``filtered`` and never fetched again. Adding one of its seeds again brings the host back
into scope, and with it its filtered pages (due now) that the chain accepts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from recrawl.core import store
from recrawl.core.config import CaptureSettings
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import Chain
from recrawl.core.filters.chain import Filter
from recrawl.core.filters.scope import SCOPE_FILTER
from recrawl.core.policy import capture_modes, crawl_settings
from recrawl.core.policy.choices import apply_chain, chain_text, project_chain

#: A site's scope when the chain limits no hosts (no scope filter, or an empty one).
ANY_HOST = "*"


@dataclass(frozen=True)
class Site:
    """One host as the Sites list shows it."""

    summary: store.HostSummary
    #: The scope entry that covers the host, :data:`ANY_HOST` when the chain limits
    #: no hosts, None when the host is out of scope.
    scope: str | None
    #: How its pages are captured: ``http`` or ``browser``.
    capture: str = "http"
    #: The ``capture.mode@HOST`` entry that gives it that mode (the host, or a domain
    #: above it); None: the project-wide ``capture.mode``.
    capture_entry: str | None = None

    @property
    def host(self) -> str:
        return self.summary.host

    @property
    def in_scope(self) -> bool:
        return self.scope is not None


def scope_entries(chain: Chain) -> list[str] | None:
    """The enabled scope filter's entries; None when no scope filter limits the hosts."""
    scope = _scope_filter(chain)
    if scope is None or not scope.enabled or not scope.rules:
        return None
    return [rule.text for rule in scope.rules]


def covering_entry(entries: list[str] | None, host: str) -> str | None:
    """The longest entry that is ``host`` or a domain above it (as the domain filter
    decides); :data:`ANY_HOST` when ``entries`` is None."""
    if entries is None:
        return ANY_HOST
    host = host.lower()
    matches = [e for e in entries if host == e or host.endswith("." + e)]
    return max(matches, key=len) if matches else None


@dataclass(frozen=True)
class SitesBlock:
    """One block of the Sites list."""

    sites: list[Site]
    #: The last host of the block read from the pages: where the next block starts.
    after: str | None
    #: No more blocks: this one ended the list.
    complete: bool


def sites_block(now: datetime, after: str | None, limit: int) -> SitesBlock:
    """The next ``limit`` hosts by name after ``after``, each with its scope.

    The last block ends with the scope entries that have no pages yet (a seed the chain
    turned away, a host typed into the filter).
    """
    entries = scope_entries(project_chain())
    capture = capture_settings()
    summaries = store.host_summaries(now, after, limit)
    sites = [
        _site(summary, covering_entry(entries, summary.host), capture) for summary in summaries
    ]
    last = summaries[-1].host if summaries else after
    complete = len(summaries) < limit
    if complete and entries:
        for entry in sorted(set(entries) - store.hosts_with_pages(entries)):
            summary = store.HostSummary(entry, 0, 0, 0, 0, None, None, None)
            sites.append(_site(summary, entry, capture))
    return SitesBlock(sites, last, complete)


def _site(summary: store.HostSummary, scope: str | None, capture: CaptureSettings) -> Site:
    host = summary.host
    return Site(summary, scope, capture.mode_for(host), capture.entry_for(host))


def capture_settings() -> CaptureSettings:
    """The capture settings the project keeps with the sites' own modes (a kept value
    this version refuses: its default)."""
    return capture_modes.kept_modes(crawl_settings.stored())


@dataclass(frozen=True)
class Removal:
    """What taking ``host`` out of the crawl does (planned, or done)."""

    host: str
    #: The scope entry that leaves the chain (None: the host was not in scope by one).
    entry: str | None
    #: Hosts whose pages stop being fetched (``host`` and the entry's other hosts that
    #: no other entry covers).
    hosts: tuple[str, ...]
    #: Their pages, kept as ``filtered``.
    pages: int


def plan_removal(host: str) -> Removal:
    """What :func:`remove_site` would do; changes nothing.

    InvalidArgument when the host's entry is the scope's last (an empty scope filter
    accepts every host, which is a chain edit to make on purpose, not by a click), and
    when no scope entry limits the hosts: there is no entry to take out, so turning the
    host away is an edit of the chain in Filters.
    """
    chain = project_chain()
    entries = scope_entries(chain)
    if entries is None:
        raise InvalidArgument(
            "no scope filter limits the hosts, so every host is in the crawl; to turn "
            f"{host} away, add a rule for it in Filters (a domain-deny filter, say)"
        )
    entry = covering_entry(entries, host)
    if entry is None:  # out of scope already: the chain rejects it, applying it is all
        hosts: tuple[str, ...] = (host,)
        return Removal(host, None, hosts, store.host_page_count(hosts))
    remaining = [e for e in entries if e != entry]
    if not remaining:
        raise InvalidArgument(
            f"{entry} is the only site in scope; with no entry the scope filter lets "
            "every host in. Add another site first, or edit the scope filter in Filters."
        )
    under = store.hosts_under(entry)
    hosts = tuple(sorted({h for h in [host, *under] if covering_entry(remaining, h) is None}))
    return Removal(host, entry, hosts, store.host_page_count(hosts))


def remove_site(host: str, now: datetime | None = None) -> Removal:
    """Take ``host`` out of the crawl: its scope entry leaves the chain and the chain is
    applied, so its pages stay (``filtered``, never fetched again). One transaction."""
    with store.transaction():
        removal = plan_removal(host)
        if removal.entry is None:  # out of scope already: the chain as it is
            apply_chain(chain_text(), now, hosts=[host])
            return removal
        chain = project_chain()
        scope = _scope_filter(chain)
        assert scope is not None  # plan_removal found the entry in it
        gone = {rule.line for rule in scope.rules if rule.text == removal.entry}
        lines = scope.rules_text.splitlines(keepends=True)
        scope.rules_text = "".join(
            text for number, text in enumerate(lines, 1) if number not in gone
        )
        # saved only if it loads; the entry decided only for its hosts' URLs
        hosts = [host, *store.hosts_under(removal.entry)]
        apply_chain(chain.to_toml(), now, hosts=hosts)
    return removal


def _scope_filter(chain: Chain) -> Filter | None:
    return next((f for f in chain.filters if f.name == SCOPE_FILTER and f.kind == "domain"), None)
