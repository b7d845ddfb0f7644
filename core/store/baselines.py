"""Each host's first crawl, its baseline (docs/design.md §15): one news item, not a flood of "new".

A host's first crawl archives every page it finds, and none of them is news yet. So
until the host first has nothing left unfetched, a page's first successful fetch goes
into the host's baseline (:class:`~recrawl.core.store.models.Baseline`) instead of
making a ``new`` item: the first one starts it and writes its one item (kind
``baseline``, naming the host's seed), each later one counts in its ``pages`` and
moves the item's time on. The end of a round that leaves the host nothing unfetched
completes it: the item is written again (a new id, the completion's time), so that it
is unseen and newest once more, once, when the first crawl is done. From then on a
page found after that is ``new``.

The engine reads the baselines of a round's hosts when the round starts
(:func:`baseline_states`) to tell a fetch's news; :func:`record_baseline_pages` runs
in the batch's transaction (:func:`~recrawl.core.store.commits.commit_batch`);
:func:`complete_baselines` when a round ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from recrawl.core.store.models import (
    Baseline,
    DiscoveredVia,
    News,
    NewsKind,
    Page,
    PageKind,
    PageStatus,
)
from recrawl.core.store.sql import chunks, writing


@dataclass(frozen=True, slots=True)
class BaselineState:
    """A host's baseline as a round starts: complete or not, and up to which page id."""

    host: str
    #: The newest page id when it completed (None: under way): a page above it is new.
    last_page: int | None

    @property
    def complete(self) -> bool:
        return self.last_page is not None

    def is_new(self, page_id: int) -> bool:
        """Whether a page's first successful fetch is ``new`` news (else: no news)."""
        return self.last_page is not None and page_id > self.last_page


@dataclass(frozen=True, slots=True)
class CompletedBaseline:
    """A baseline completed at the end of a round: the host, its seed, its pages."""

    host: str
    url: str | None
    pages: int


def baseline_states(hosts: Iterable[str]) -> dict[str, BaselineState]:
    """The baselines of ``hosts`` (a host without one has had no page archived yet)."""
    found: dict[str, BaselineState] = {}
    for chunk in chunks(sorted(set(hosts))):
        rows = Baseline.select(Baseline.host, Baseline.last_page).where(Baseline.host.in_(chunk))
        for host, last_page in rows.tuples().iterator():
            found[host] = BaselineState(host, None if last_page is None else int(last_page))
    return found


def record_baseline_pages(pages: Sequence[tuple[int, str, datetime]]) -> None:
    """Pages archived by their host's first crawl, (page id, host, at), into its baseline.

    Runs inside the batch's transaction. A host's first one starts its baseline and
    writes its news item; a baseline completed meanwhile (by another process's round)
    takes no more pages.
    """
    by_host: dict[str, list[tuple[int, datetime]]] = {}
    for page_id, host, at in pages:
        by_host.setdefault(host, []).append((page_id, at))
    for host, archived in by_host.items():
        latest = max(at for _, at in archived)
        row = Baseline.get_or_none(Baseline.host == host)
        if row is None:
            seed = _seed(host) or archived[0][0]
            Baseline.insert(
                host=host, page=seed, pages=len(archived), started_at=min(a for _, a in archived)
            ).execute()
            News.insert(page=seed, host=host, at=latest, kind=NewsKind.BASELINE).execute()
        elif row.last_page is None:
            Baseline.update(pages=Baseline.pages + len(archived)).where(
                Baseline.id == row.id
            ).execute()
            News.update(at=latest).where(
                (News.kind == NewsKind.BASELINE) & (News.host == host) & (News.at < latest)
            ).execute()


def _seed(host: str) -> int | None:
    """The host's first seed (the page a baseline names), if it has one."""
    seed: int | None = (
        Page.select(Page.id)
        .where(
            (Page.host == host)
            & (Page.kind == PageKind.PAGE)
            & (Page.discovered_via == DiscoveredVia.SEED)
        )
        .order_by(Page.id)
        .limit(1)
        .scalar()
    )
    return seed


def complete_baselines(now: datetime) -> list[CompletedBaseline]:
    """Complete the baselines of the hosts that have nothing left unfetched.

    Each completed one's item is written again, at ``now`` with a new id: newest, and
    unseen even where "mark all as seen" was pressed while it was under way.
    """
    with writing():
        under_way: list[tuple[int, str, int | None, int]] = list(
            Baseline.select(Baseline.id, Baseline.host, Baseline.page, Baseline.pages)
            .where(Baseline.last_page.is_null())
            .tuples()
            .iterator()
        )
        if not under_way:
            return []
        waiting: set[str] = set()
        for chunk in chunks([host for _, host, _, _ in under_way]):
            unfetched = (
                Page.select(Page.host)
                .where(
                    Page.host.in_(chunk)
                    & (Page.kind == PageKind.PAGE)
                    & (Page.status == PageStatus.UNFETCHED)
                )
                .distinct()
                .tuples()
            )
            waiting.update(host for (host,) in unfetched.iterator())
        done_rows = [row for row in under_way if row[1] not in waiting]
        if not done_rows:
            return []
        last = Page.select(Page.id).order_by(Page.id.desc()).limit(1).scalar() or 0
        named = [page for _, _, page, _ in done_rows if page is not None]
        seeds: dict[int, str] = dict(
            Page.select(Page.id, Page.url).where(Page.id.in_(named)).tuples().iterator()
        )
        done = []
        for row_id, host, page, pages in done_rows:
            Baseline.update(completed_at=now, last_page=last).where(Baseline.id == row_id).execute()
            old = (News.kind == NewsKind.BASELINE) & (News.host == host)
            if page is not None:
                # written before the old one goes: SQLite gives the newest row's id again
                # once it is deleted, and the new id must be above any "seen" mark
                added = News.insert(page=page, host=host, at=now, kind=NewsKind.BASELINE).execute()
                old &= News.id != added
            News.delete().where(old).execute()
            done.append(CompletedBaseline(host, seeds.get(page) if page else None, pages))
        return done
