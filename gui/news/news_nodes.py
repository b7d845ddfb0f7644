"""The What's new tree's nodes (days and their sites) and what their rows say.

Plain values the model (:mod:`recrawl.gui.news.news_model`) keeps; :func:`overview` is what
the store thread answers when a listing starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from recrawl.core import store
from recrawl.core.store.models import NewsKind


def summary(counts: dict[str, int], where: str = "") -> str:
    """``12 new pages on example.org, 3 changed``: the counts by kind, in news order."""
    parts = [(kind, counts[kind]) for kind in NewsKind.ALL if counts.get(kind)]
    if not parts:
        return f"nothing{where}"
    (kind, count), rest = parts[0], parts[1:]
    pages = "page" if count == 1 else "pages"
    if kind == NewsKind.BASELINE:  # one a site: its first crawl (docs/design.md §15)
        head = f"{count:,} first crawl{'s' * (count != 1)}"
    elif kind in (NewsKind.NEW, NewsKind.CHANGED):
        head = f"{count:,} {kind} {pages}"
    else:
        head = f"{count:,} {pages} {kind}"
    return head + where + "".join(f", {n:,} {_kind(k, n)}" for k, n in rest)


def _kind(kind: str, count: int) -> str:
    return f"first crawl{'s' * (count != 1)}" if kind == NewsKind.BASELINE else kind


def day_title(day: date, today: date) -> str:
    days = (today - day).days
    if days == 0:
        return "Today"
    if days == 1:
        return "Yesterday"
    return f"{day:%A} {day.day} {day:%B %Y}"


@dataclass
class SiteNode:
    key: int
    day: DayNode
    row: int
    host: str
    counts: dict[str, int] = field(default_factory=dict)
    unseen: int = 0
    items: list[store.NewsItem] = field(default_factory=list)
    pending: bool = False
    #: No more items to read (fewer came than asked for).
    exhausted: bool = False

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def more(self) -> bool:
        """Items are left to read: the site shows a last row saying how many."""
        return not self.exhausted and len(self.items) < self.total


@dataclass
class DayNode:
    key: int
    row: int
    day: date
    counts: dict[str, int]
    unseen: int
    #: How many sites had news that day.
    site_count: int
    #: Its sites, once read (None: not yet).
    sites: list[SiteNode] | None = None
    pending: bool = False

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class Overview:
    """What the store thread answers for a new listing: days, sites, the unseen count."""

    days: list[store.NewsDay]
    hosts: list[str]
    #: Unseen items in all the news (what the panel's entry counts), listed or not.
    unseen: int
    marks: store.SeenMarks
    #: The id of the newest item when the groups were counted ("mark all as seen" marks
    #: up to it: what is listed, not what a crawl wrote since).
    newest: int | None


def overview(where: store.NewsFilter, offset_minutes: int) -> Overview:
    """Runs on the store thread; one read transaction, so the figures agree."""
    with store.transaction():
        return Overview(
            store.news_days(where, offset_minutes),
            store.news_hosts(),
            store.unseen_news_count(),
            store.seen_marks(),
            store.newest_news_id(),
        )


def local_offset_minutes() -> int:
    """The local clock's offset from UTC now, in minutes (days are the user's days)."""
    offset = datetime.now().astimezone().utcoffset()
    return int(offset.total_seconds() // 60) if offset is not None else 0
