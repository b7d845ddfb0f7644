"""News items (DESIGN.md §10): what happened to pages, newest first; counts; what is unseen.

A crawl writes the items in the same transaction as the fetch events they come from
(:func:`~recrawl.core.store.commits.commit_batch`). Here they are read: listed newest
first with filters and paged by key (the app's lazy tree, ``recrawl news``, the feed),
counted by day, site and kind (the panel's group rows), and compared with the mark
"mark all as seen" leaves in the project's settings.

The mark is the newest item seen, by id as well as time: a fetch's item can be
committed a few seconds after a later fetch's item (commit batches; a watcher in another
process), and a mark by time alone would count it as seen unseen.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from peewee import SQL, Case, Expression, ModelSelect, NodeList, fn
from recrawl.core.store.models import DB, Baseline, News, NewsKind, Page
from recrawl.core.store.settings import get_setting, set_setting
from recrawl.core.store.sql import is_server_store

#: The setting that holds "mark all as seen": {"id": newest item seen, "at": its time}.
SEEN_SETTING = "news_seen"


@dataclass(frozen=True, slots=True)
class NewsItem:
    """One item as ``recrawl news`` prints it, plus its id (stable, for feeds and paging)."""

    id: int
    at: datetime
    kind: str
    url: str
    host: str
    #: The page's latest <title> (None: not HTML, or it has none).
    title: str | None
    first_seen: datetime
    #: When the page says it was published (DESIGN.md §11: its own date, else its
    #: sitemap's or feed's); None when unknown.
    published_at: datetime | None = None
    #: A ``baseline`` item's (DESIGN.md §15; None for the other kinds): how many pages
    #: the host's first crawl archived so far, and whether it is done (the host had
    #: nothing left unfetched).
    pages: int | None = None
    complete: bool | None = None


@dataclass(frozen=True, slots=True)
class NewsFilter:
    """Which items: at or after ``since``, before ``until``, of ``kind``, on ``host``."""

    since: datetime | None = None
    until: datetime | None = None
    kind: str | None = None
    host: str | None = None


@dataclass(frozen=True, slots=True)
class NewsGroup:
    """How many items of one kind one site had on one day, and how many are unseen."""

    day: date
    host: str
    kind: str
    count: int
    unseen: int


@dataclass(frozen=True, slots=True)
class NewsDay:
    """One day's item counts by kind, how many are unseen, on how many sites."""

    day: date
    counts: dict[str, int]
    unseen: int
    sites: int


@dataclass(frozen=True, slots=True)
class SeenMark:
    """Everything up to this item is seen (``id``), as of its time (``at``)."""

    id: int
    at: datetime


# -- listing ----------------------------------------------------------------------------


def news_items(
    where: NewsFilter = NewsFilter(),  # frozen: one shared default is safe
    after: tuple[datetime, int] | None = None,
    limit: int | None = None,
) -> list[NewsItem]:
    """Items newest first; ``after`` is the (at, id) of the last one already shown.

    Paging by key, not OFFSET, keeps the hundredth block as quick as the first.
    """
    select = _items(where)
    if after is not None:
        at, item_id = after
        select = select.where((News.at < at) | ((News.at == at) & (News.id < item_id)))
    if limit is not None:
        select = select.limit(limit)
    return list(_rows(select))


def iter_news(where: NewsFilter = NewsFilter()) -> Iterator[NewsItem]:
    """Every matching item newest first, streamed (the command line, the feed)."""
    return _rows(_items(where))


def _rows(select: ModelSelect[News]) -> Iterator[NewsItem]:
    # the statement run as it is, its times parsed here: peewee's conversion of each
    # value costs more than the query on 100,000 items
    sql, params = select.sql()
    # a baseline's figures are its host's (a row a host, read first): no join per item
    baselines = _baselines()
    for row in DB.execute_sql(sql, params):
        item_id, at, kind, url, host, title, first_seen, published = row
        if kind == NewsKind.BASELINE:  # the host's, not its seed page's (DESIGN.md §15)
            pages, complete = baselines.get(host, (0, False))
            yield NewsItem(
                item_id,
                _time(at),
                kind,
                url,
                host,
                None,
                _time(first_seen),
                None,
                pages,
                complete,
            )
            continue
        yield NewsItem(
            item_id,
            _time(at),
            kind,
            url,
            host,
            title,
            _time(first_seen),
            _time(published) if published is not None else None,
        )


def _baselines() -> dict[str, tuple[int, bool]]:
    """(pages, complete) of every host's baseline."""
    rows = Baseline.select(Baseline.host, Baseline.pages, Baseline.last_page).tuples()
    return {host: (int(pages), last is not None) for host, pages, last in rows.iterator()}


def _time(value: str | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def count_news(where: NewsFilter = NewsFilter()) -> int:
    return _filtered(News.select(News.id), where).count()


def news_hosts() -> list[str]:
    """The sites that have news, by name (the panel's site filter)."""
    return [
        host
        for (host,) in News.select(News.host).distinct().order_by(News.host).tuples().iterator()
    ]


def _items(where: NewsFilter) -> ModelSelect[News]:
    select = News.select(
        News.id,
        News.at,
        News.kind,
        Page.url,
        News.host,
        Page.title,
        Page.first_seen,
        Page.published_at,
    ).join(Page, on=News.page == Page.id)
    return _filtered(select, where).order_by(News.at.desc(), News.id.desc())


def _filtered(select: ModelSelect[News], where: NewsFilter) -> ModelSelect[News]:
    if where.since is not None:
        select = select.where(News.at >= where.since)
    if where.until is not None:
        select = select.where(News.at < where.until)
    if where.kind is not None:
        select = select.where(News.kind == where.kind)
    if where.host is not None:
        select = select.where(News.host == where.host)
    return select


# -- counts by day, site and kind -------------------------------------------------------


def news_groups(
    where: NewsFilter = NewsFilter(),
    offset_minutes: int = 0,
) -> list[NewsGroup]:
    """Item counts by day, site and kind, newest day first, sites by name.

    Days are those of a clock ``offset_minutes`` ahead of UTC (the app passes the
    local offset, so a day is the user's day); :func:`day_bounds` gives a day's
    UTC range in the same terms, for the items of a group.
    """
    seen = seen_mark()
    day = _day(offset_minutes)
    unseen = fn.SUM(Case(None, [(_unseen(seen), 1)], 0))
    select = News.select(day.alias("day"), News.host, News.kind, fn.COUNT(News.id), unseen)
    rows = (
        _filtered(select, where)
        .group_by(SQL("day"), News.host, News.kind)
        .order_by(SQL("day").desc(), News.host, News.kind)
        .tuples()
    )
    return [
        NewsGroup(date.fromisoformat(d), host, kind, count, int(new or 0))
        for d, host, kind, count, new in rows.iterator()
    ]


def news_days(where: NewsFilter = NewsFilter(), offset_minutes: int = 0) -> list[NewsDay]:
    """Item counts by day (and kind), newest day first: the days of :func:`news_groups`
    without their sites, in two quick scans however many sites a day has."""
    seen = seen_mark()
    day = _day(offset_minutes)
    unseen = fn.SUM(Case(None, [(_unseen(seen), 1)], 0))
    by_kind = _filtered(News.select(day.alias("day"), News.kind, fn.COUNT(News.id), unseen), where)
    days: dict[str, tuple[dict[str, int], list[int]]] = {}
    for d, kind, count, new in by_kind.group_by(SQL("day"), News.kind).tuples().iterator():
        counts, unseen_count = days.setdefault(d, ({}, [0]))
        counts[kind] = count
        unseen_count[0] += int(new or 0)
    sites = _filtered(News.select(day.alias("day"), fn.COUNT(News.host.distinct())), where)
    site_counts = dict(sites.group_by(SQL("day")).tuples().iterator())
    return [
        NewsDay(date.fromisoformat(d), counts, unseen_count[0], int(site_counts.get(d, 0)))
        for d, (counts, unseen_count) in sorted(days.items(), reverse=True)
    ]


def _day(offset_minutes: int) -> Any:
    # the day as text (YYYY-MM-DD), not read back as a datetime
    if is_server_store():
        shifted = NodeList((News.at, SQL(f"+ INTERVAL '{int(offset_minutes)} minutes'")))
        return fn.to_char(shifted, "YYYY-MM-DD").coerce(False)
    return fn.date(News.at, f"{offset_minutes:+d} minutes").coerce(False)


def day_bounds(day: date, offset_minutes: int = 0) -> tuple[datetime, datetime]:
    """The UTC instants [start, end) of ``day`` on a clock ``offset_minutes`` ahead of UTC."""
    start = datetime(day.year, day.month, day.day) - timedelta(minutes=offset_minutes)
    return start, start + timedelta(days=1)


# -- seen and unseen --------------------------------------------------------------------


def seen_mark() -> SeenMark | None:
    """Where "mark all as seen" was last pressed; None: never (everything is unseen)."""
    value = get_setting(SEEN_SETTING)
    if not isinstance(value, dict) or "id" not in value:
        return None
    return SeenMark(int(value["id"]), datetime.fromisoformat(str(value["at"])))


def newest_news_id() -> int | None:
    """The id of the newest item written (None: no news yet)."""
    newest: int | None = News.select(fn.MAX(News.id)).scalar()
    return newest


def mark_news_seen(up_to: int | None = None) -> SeenMark | None:
    """Mark every item so far (or up to the item with id ``up_to``) as seen.

    Returns the mark, None when there is no news yet; a mark never moves back.
    """
    select = News.select(News.id, News.at).order_by(News.id.desc()).limit(1)
    if up_to is not None:
        select = select.where(News.id <= up_to)
    newest = select.tuples().first()
    old = seen_mark()
    if newest is None or (old is not None and old.id >= newest[0]):
        return old
    mark = SeenMark(newest[0], newest[1])
    set_setting(SEEN_SETTING, {"id": mark.id, "at": mark.at.isoformat()})
    return mark


def unseen_news_count() -> int:
    """How many items arrived since "mark all as seen" (the panel's badge, the tray)."""
    return News.select(News.id).where(_unseen(seen_mark())).count()


def is_unseen(item: NewsItem, mark: SeenMark | None) -> bool:
    return mark is None or item.id > mark.id


def _unseen(mark: SeenMark | None) -> Expression:
    return News.id > (mark.id if mark is not None else 0)
