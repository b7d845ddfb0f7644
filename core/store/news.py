"""News items (docs/design.md §10): what happened to pages, newest first; counts; what is unseen.

A crawl writes the items in the same transaction as the fetch events they come from
(:func:`~recrawl.core.store.commits.commit_batch`). Here they are read: listed newest
first with filters and paged by key (the app's lazy tree, ``recrawl news``, the feed),
counted by day, site and kind (the panel's group rows), and compared with the mark
"mark all as seen" leaves in the project's settings.

The mark is the newest item seen, by id as well as time: a fetch's item can be
committed a few seconds after a later fetch's item (commit batches; a watcher in another
process), and a mark by time alone would count it as seen unseen. "Mark all as seen"
under a kind or site filter leaves a mark of its own, for that kind and site only
(issue 25): an item is seen when a mark covering it is at or past its id. A mark that a
wider one passes is dropped, so there are at most a few per site.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from peewee import SQL, Case, Expression, ModelSelect, NodeList, fn
from recrawl.core.store.models import DB, Baseline, News, NewsKind, Page
from recrawl.core.store.settings import get_setting, set_setting
from recrawl.core.store.sql import is_server_store

#: The setting that holds "mark all as seen": {"id": newest item seen, "at": its time}.
SEEN_SETTING = "news_seen"
#: The marks left under a filter: [{"kind": K or null, "host": H or null, "id": N}].
SEEN_BY_SETTING = "news_seen_by"


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
    #: When the page says it was published (docs/design.md §11: its own date, else its
    #: sitemap's or feed's); None when unknown.
    published_at: datetime | None = None
    #: A ``baseline`` item's (docs/design.md §15; None for the other kinds): how many pages
    #: the host's first crawl archived so far, and whether it is done (the host had
    #: nothing left unfetched).
    pages: int | None = None
    complete: bool | None = None
    #: A ``changed`` item's (docs/design.md §17; None until it is made, and for the other
    #: kinds): the first lines of its diff ("+ added line", "- removed line"), and the
    #: prefix of the change rule that judged it (None: no rule).
    summary: str | None = None
    rule: str | None = None


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


@dataclass(frozen=True, slots=True)
class FilterMark:
    """The items of ``kind`` (None: any) on ``host`` (None: any) up to ``id`` are seen."""

    kind: str | None
    host: str | None
    id: int

    def covers(self, kind: str | None, host: str | None) -> bool:
        """This mark's filter holds every item of ``kind`` on ``host`` (None: any)."""
        return (self.kind is None or self.kind == kind) and (self.host is None or self.host == host)


@dataclass(frozen=True, slots=True)
class SeenMarks:
    """Every mark "mark all as seen" left: over all the news, and under filters."""

    all: SeenMark | None = None
    by: tuple[FilterMark, ...] = ()

    def seen(self, item_id: int, kind: str, host: str) -> bool:
        if self.all is not None and item_id <= self.all.id:
            return True
        return any(item_id <= m.id and m.covers(kind, host) for m in self.by)


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
        item_id, at, kind, url, host, title, first_seen, published, summary, rule = row
        item = NewsItem(
            item_id,
            _time(at),
            kind,
            url,
            host,
            title,
            _time(first_seen),
            _time(published) if published is not None else None,
            summary=summary,
            rule=rule,
        )
        if kind == NewsKind.BASELINE:  # the host's, not its seed page's (docs/design.md §15)
            pages, complete = baselines.get(host, (0, False))
            item = replace(item, title=None, published_at=None, pages=pages, complete=complete)
        yield item


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
        News.summary,
        News.rule,
    ).join(Page, on=News.page == Page.id)
    return _filtered(select, where).order_by(News.at.desc(), News.id.desc())


# -- why changed (docs/design.md §17) ---------------------------------------------------


def news_after(after_id: int, up_to: int | None = None) -> list[NewsItem]:
    """The items with ids above ``after_id`` (and at most ``up_to``), oldest first: a
    round's news, what a notification has not sent yet."""
    select = _items(NewsFilter()).order_by(News.id).where(News.id > after_id)
    if up_to is not None:
        select = select.where(News.id <= up_to)
    return list(_rows(select))


def set_news_summaries(rows: list[tuple[int, str, str | None]]) -> None:
    """Keep each changed item's ``(id, summary, rule)``."""
    with DB.atomic():
        for item_id, summary, rule in rows:
            News.update(summary=summary, rule=rule).where(News.id == item_id).execute()


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
    seen = seen_marks()
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
    seen = seen_marks()
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
    """Where "mark all as seen" was last pressed over all the news; None: never."""
    value = get_setting(SEEN_SETTING)
    if not isinstance(value, dict) or "id" not in value:
        return None
    return SeenMark(int(value["id"]), datetime.fromisoformat(str(value["at"])))


def seen_marks() -> SeenMarks:
    """Every mark: over all the news, and those left under a kind or site filter."""
    value = get_setting(SEEN_BY_SETTING)
    rows = value if isinstance(value, list) else []
    by = tuple(
        FilterMark(row.get("kind"), row.get("host"), int(row["id"]))
        for row in rows
        if isinstance(row, dict) and "id" in row
    )
    return SeenMarks(seen_mark(), by)


def newest_news_id() -> int | None:
    """The id of the newest item written (None: no news yet)."""
    newest: int | None = News.select(fn.MAX(News.id)).scalar()
    return newest


def mark_news_seen(
    up_to: int | None = None, kind: str | None = None, host: str | None = None
) -> SeenMark | None:
    """Mark every item so far (or up to the item with id ``up_to``) as seen; with
    ``kind`` or ``host``, only the items of that kind, on that site (what the app's
    filters list).

    Returns the newest item marked, None when none matches; a mark never moves back.
    """
    select = News.select(News.id, News.at).order_by(News.id.desc()).limit(1)
    if up_to is not None:
        select = select.where(News.id <= up_to)
    select = _filtered(select, NewsFilter(kind=kind, host=host))
    newest = select.tuples().first()
    if newest is None:
        return None if kind is not None or host is not None else seen_mark()
    mark = SeenMark(newest[0], newest[1])
    marks = seen_marks()
    if kind is None and host is None:
        if marks.all is not None and marks.all.id >= mark.id:
            return marks.all
        set_setting(SEEN_SETTING, {"id": mark.id, "at": mark.at.isoformat()})
        _keep_marks([m for m in marks.by if m.id > mark.id])  # those it passed go
        return mark
    covering = [m for m in marks.by if m.covers(kind, host)]
    if (marks.all is not None and marks.all.id >= mark.id) or any(
        m.id >= mark.id for m in covering
    ):
        return mark  # seen already
    new = FilterMark(kind, host, mark.id)
    kept = [m for m in marks.by if not (new.covers(m.kind, m.host) and m.id <= mark.id)]
    _keep_marks([*kept, new])
    return mark


def _keep_marks(by: list[FilterMark]) -> None:
    set_setting(SEEN_BY_SETTING, [{"kind": m.kind, "host": m.host, "id": m.id} for m in by])


def unseen_news_count() -> int:
    """How many items no "mark all as seen" covers (the panel's badge, the tray)."""
    return News.select(News.id).where(_unseen(seen_marks())).count()


def is_unseen(item: NewsItem, marks: SeenMarks) -> bool:
    return not marks.seen(item.id, item.kind, item.host)


def _unseen(marks: SeenMarks) -> Expression:
    unseen: Expression = News.id > (marks.all.id if marks.all is not None else 0)
    for mark in marks.by:
        covered: Expression = News.id <= mark.id
        if mark.kind is not None:
            covered &= News.kind == mark.kind
        if mark.host is not None:
            covered &= News.host == mark.host
        unseen &= ~covered
    return unseen
