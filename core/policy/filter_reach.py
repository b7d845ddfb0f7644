"""A chain applied to the pages already known (docs/design.md §10, last bullet).

Applying a chain runs it (the compiled fast path) over the project's pages: a page it
rejects becomes ``filtered`` (kept with its captures and history, never fetched again),
with the deciding filter and rule line written where "why was X never crawled" looks
(:mod:`recrawl.core.store.filtered`); a filtered page it accepts comes back,
``unfetched`` and due at once. Pages it accepts that are not filtered are left alone.

A crawl is never held up for long, whatever the store's size: :func:`plan_reach` reads
the pages and judges them outside any write transaction (the verdict depends on the URL
alone, so it cannot go stale), and :meth:`ReachPlan.commit` writes in short transactions
(a million pages take tens of seconds; a crawl's commit waits for the lock 10 s at most).
The first saves the chain and marks the apply :data:`PENDING`; the batches that follow
each change some pages; the last judges the pages a crawl added meanwhile, changes them
and clears the mark. Each update checks the page's status, so a change made meanwhile is
never undone, and writing a change twice is harmless: an apply that died half-way is
finished by applying the chain again (a crawl does that first when it finds the mark).

After an apply, a page is ``filtered`` exactly when the chain rejects its URL. Pages of
a project whose chain was set before Recrawl applied chains to known pages keep their
status until the next apply; the preview counts what it would change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from recrawl.core import store
from recrawl.core.filters import Chain
from recrawl.core.filters.compiled import CompiledChain, compile_chain
from recrawl.core.store.filtered import KnownPage
from recrawl.core.store.models import PageStatus
from recrawl.core.words import plural

#: Pages read and judged at a time; progress is reported after each block.
BLOCK = 20_000
#: Past this many hosts, an apply for some hosts judges every page.
MANY_HOSTS = 500
#: Pages changed per write transaction: short enough for a crawl's commits to go between.
WRITE_BATCH = 2_000
#: The setting that says an apply has saved its chain but not finished changing the
#: pages (the process died meanwhile): :func:`~recrawl.core.policy.choices.finish_apply`.
PENDING = "filter_chain_pending"
#: The setting that holds the last page id when an apply finished: pages after it were
#: added since (by a crawl still judging links by the chain before).
THROUGH = "filter_chain_applied_through"

#: ``progress(done, total)``: pages judged so far, of how many.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Reach:
    """What applying a chain did to the known pages."""

    #: Pages the chain was run on.
    checked: int = 0
    #: Pages it filtered (they were not).
    filtered: int = 0
    #: Filtered pages it brought back (``unfetched``, due now).
    back: int = 0
    #: Pages still filtered whose deciding filter or rule line changed (or was unknown).
    refiled: int = 0

    def describe(self) -> str:
        """``1,000 known pages filtered (no longer fetched), 12 back``: in words."""
        if not (self.filtered or self.back):
            return "no known page changed"
        parts = []
        if self.filtered:
            parts.append(f"{_pages(self.filtered)} filtered (no longer fetched)")
        if self.back:
            parts.append(f"{_pages(self.back)} back (due now)")
        return ", ".join(parts)


def _pages(count: int) -> str:
    return plural(count, "known page")


@dataclass
class ReachPlan:
    """The changes applying a chain makes to the pages judged so far."""

    fast: CompiledChain
    hosts: Sequence[str] | None = None
    #: The last page id judged: pages after it were added since.
    after: int = 0
    checked: int = 0
    to_filter: list[tuple[int, str, str, int | None]] = field(default_factory=list)
    to_refile: list[tuple[str, str, int | None]] = field(default_factory=list)
    to_return: list[tuple[int, str]] = field(default_factory=list)

    def judge(self, pages: Sequence[KnownPage]) -> None:
        check = self.fast.check
        for page in pages:
            verdict = check(page.url)
            if verdict.accepted:
                if page.filtered:
                    self.to_return.append((page.id, page.url))
                continue
            why = (verdict.filter_name or "", verdict.line)
            if not page.filtered:
                self.to_filter.append((page.id, page.url, *why))
            elif page.record != why:
                self.to_refile.append((page.url, *why))
        self.checked += len(pages)
        if pages:
            self.after = pages[-1].id

    def read(self, progress: Progress | None = None, total: int = 0) -> None:
        """Judge the pages after :attr:`after`, a block at a time."""
        while block := store.known_pages_block(self.after, BLOCK, self.hosts):
            self.judge(block)
            if progress is not None:
                progress(self.checked, max(total, self.checked))

    def commit(self, save_chain: Callable[[], None] | None, now: datetime) -> Reach:
        """Save the chain (``save_chain``) and write the changes (``now``: when the chain
        is applied), in short transactions a crawl can write between (module docstring).

        The first saves the chain with :data:`PENDING` set; the last judges the pages
        added meanwhile, writes their changes and clears it. Inside a caller's
        transaction, all of it is that one transaction.
        """
        if save_chain is not None:
            with store.transaction():
                save_chain()
                store.set_setting(PENDING, True)
        filtered = back = 0
        for start in range(0, len(self.to_filter), WRITE_BATCH):
            with store.transaction():
                filtered += store.filter_pages(self.to_filter[start : start + WRITE_BATCH], now)
        for start in range(0, len(self.to_return), WRITE_BATCH):
            with store.transaction():
                back += store.unfilter_pages(self.to_return[start : start + WRITE_BATCH], now)
        for start in range(0, len(self.to_refile), WRITE_BATCH):
            with store.transaction():
                store.record_filtered(self.to_refile[start : start + WRITE_BATCH], now)
        with store.transaction():
            done = len(self.to_filter), len(self.to_return), len(self.to_refile)
            self.read()  # pages a crawl added since they were read
            filtered += store.filter_pages(self.to_filter[done[0] :], now)
            back += store.unfilter_pages(self.to_return[done[1] :], now)
            store.record_filtered(self.to_refile[done[2] :], now)
            store.set_setting(THROUGH, store.last_page_id())
            store.set_setting(PENDING, None)
        return Reach(self.checked, filtered, back, len(self.to_refile))


def plan_reach(
    chain: Chain,
    *,
    hosts: Sequence[str] | None = None,
    progress: Progress | None = None,
    after: int = 0,
) -> ReachPlan:
    """Judge the known pages by ``chain``; nothing is written.

    ``hosts``: the chain changed only for the URLs of these hosts (a scope entry added
    or removed), so only their pages are read (all pages when they are many).
    ``after``: only pages after this id (those added since an apply finished).
    """
    if hosts is not None and len(hosts) > MANY_HOSTS:
        hosts = None  # one query over the pages beats thousands of host lookups
    plan = ReachPlan(compile_chain(chain), hosts, after)
    total = store.count_known_pages(hosts, after)
    if progress is not None:
        progress(0, total)
    plan.read(progress, total)
    return plan


@dataclass(frozen=True)
class FilteredReason:
    """Why a filtered page is not crawled: the filter and rule that reject it."""

    url: str
    filter_name: str
    #: The filter's index in the project's chain (None: no filter of that name now).
    filter: int | None
    #: The deciding rule line (None: no rule matched, as when a scope lists no entry
    #: for the host).
    line: int | None
    #: That line's text (None when there is no line).
    rule: str | None
    #: When the chain that filtered it was applied (None: filtered before Recrawl kept it).
    since: datetime | None

    def describe(self) -> str:
        """``filtered by scope (filter 2), line 3: example.org``, without the time."""
        where = f" (filter {self.filter})" if self.filter is not None else ""
        line = f"line {self.line}" if self.line is not None else "no rule matched"
        rule = f": {self.rule}" if self.rule else ""
        return f"filtered by {self.filter_name}{where}, {line}{rule}"


def filtered_reason(url: str, chain: Chain) -> FilteredReason | None:
    """Why the page ``url`` is filtered by ``chain`` (the project's); None when it is
    not a filtered page."""
    page = store.page_by_url(url)
    if page is None or page.status != PageStatus.FILTERED:
        return None
    record = store.rejected_link(url)
    verdict = chain.check(url)
    if record is None:  # filtered before the record was kept (a site removed then)
        if verdict.accepted:
            return FilteredReason(url, "(unknown)", None, None, None, None)
        name, line, since = verdict.filter_name or "", verdict.line, None
    else:
        name, line, since = record.filter, record.line, record.first_seen
    index = verdict.filter if not verdict.accepted and verdict.filter_name == name else None
    if index is None:
        index = next((i for i, f in enumerate(chain.filters) if f.name == name), None)
    rule = None
    if index is not None and line is not None:
        lines = chain.filters[index].rules_text.splitlines()
        rule = lines[line - 1].strip() if 0 < line <= len(lines) else None
    return FilteredReason(url, name, index, line, rule, since)
