"""Refetch: pages made due now, whatever their schedule says (``recrawl refetch``, the
app's "Refetch now" and "Refetch this site now").

A page waits its interval after each fetch (10 days at first with ``aronsson``), so
after editing a site, crawling again fetches nothing: refetching is how a user says
"now". Filtered pages stay as they are (the chain rejects them), and a host out of the
crawl's scope is refused rather than made due: its links would be turned away.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from recrawl.core import store
from recrawl.core.errors import InvalidArgument, NotFound
from recrawl.core.net.urls import seed_url
from recrawl.core.policy.choices import project_chain
from recrawl.core.policy.sites import covering_entry, scope_entries


@dataclass(frozen=True)
class Refetched:
    """What a refetch did."""

    #: Pages whose next fetch was later, due now.
    made_due: int
    #: Pages that were due already (the next crawl round fetches them anyway).
    already_due: int
    #: Pages kept but not crawled: the chain rejects them.
    filtered: int
    #: URLs asked for that the project does not know, as given.
    unknown: tuple[str, ...] = ()

    @property
    def due(self) -> int:
        """The pages the next crawl round fetches of those asked for."""
        return self.made_due + self.already_due


def refetch(
    now: datetime,
    *,
    urls: Sequence[str] = (),
    hosts: Sequence[str] = (),
    everything: bool = False,
) -> Refetched:
    """Make ``urls``, the pages of ``hosts``, or ``everything`` due now; one transaction.

    URLs are taken as pages or embeds the project knows (canonicalised as a crawl does, one typed without a scheme as inject takes it;
    InvalidUrl for one that is no URL); hosts and ``everything`` mean pages (embeds are
    fetched with the pages that embed them). InvalidArgument for a host out of scope,
    NotFound for one the project has no page of.
    """
    if sum((bool(urls), bool(hosts), everything)) != 1:
        raise InvalidArgument("refetch URLs, the pages of hosts, or every page: one of them")
    with store.transaction():
        if everything:
            counts = store.make_hosts_due(None, now)
            return Refetched(counts.made_due, counts.already_due, counts.filtered)
        if hosts:
            _check_hosts(hosts)
            counts = store.make_hosts_due([h.lower() for h in hosts], now)
            return Refetched(counts.made_due, counts.already_due, counts.filtered)
        given = {url: seed_url(url).url for url in urls}  # as inject takes them
        counts = store.make_due(list(given.values()), now)
    unknown = tuple(url for url, canon in given.items() if canon not in counts.known)
    return Refetched(counts.made_due, counts.already_due, counts.filtered, unknown)


def _check_hosts(hosts: Sequence[str]) -> None:
    entries = scope_entries(project_chain())
    for host in hosts:
        if covering_entry(entries, host) is None:
            raise InvalidArgument(
                f"{host} is not in the crawl's scope: add one of its URLs as a seed to watch it"
            )
    missing = sorted(
        set(h.lower() for h in hosts) - store.hosts_with_pages([h.lower() for h in hosts])
    )
    if missing:
        raise NotFound(f"the project has no pages of {', '.join(missing)}")
