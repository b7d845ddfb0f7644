"""News queries (core/store/news.py): newest first with filters, paging, counts, unseen."""

from __future__ import annotations

import shutil
from datetime import date, datetime, timedelta
from pathlib import Path

from recrawl.core import store
from recrawl.core.engine import inject
from recrawl.core.project import Project
from recrawl.core.store.migrations import SCHEMA_VERSION, current_version
from recrawl.core.store.models import DB, Baseline, News, Page

from tests.support import httpserver
from tests.support.crawling import T0, clock_at, crawl

DATA = Path(__file__).resolve().parents[2] / "data"
HOUR = timedelta(hours=1)


def add_news(items: list[tuple[str, datetime, str]]) -> None:
    """(url, at, kind) items; their pages are added first (as a crawl's commit writes them)."""
    urls = sorted({url for url, _, _ in items})
    store.add_pages([store.NewPage(url, url.split("/")[2], T0, 86400.0) for url in urls], T0 - HOUR)
    ids = store.page_ids(urls)
    batch = store.CommitBatch(segment="none")
    batch.news = [(ids[url], url.split("/")[2], at, kind) for url, at, kind in items]
    store.commit_batch(batch, T0)


def sample() -> None:
    add_news(
        [
            ("http://a.example/1", T0 + 1 * HOUR, "new"),
            ("http://a.example/2", T0 + 2 * HOUR, "new"),
            ("http://b.example/1", T0 + 3 * HOUR, "new"),
            ("http://a.example/1", T0 + 25 * HOUR, "changed"),
            ("http://b.example/1", T0 + 26 * HOUR, "gone"),
            ("http://b.example/1", T0 + 50 * HOUR, "back"),
        ]
    )


def test_items_come_newest_first_with_filters(project):
    sample()
    items = store.news_items()
    assert [(i.kind, i.url) for i in items] == [
        ("back", "http://b.example/1"),
        ("gone", "http://b.example/1"),
        ("changed", "http://a.example/1"),
        ("new", "http://b.example/1"),
        ("new", "http://a.example/2"),
        ("new", "http://a.example/1"),
    ]
    assert items[0].first_seen == T0 - HOUR and items[0].host == "b.example"
    assert items[0].published_at is None
    assert [i.kind for i in store.news_items(store.NewsFilter(kind="new"))] == ["new"] * 3
    assert len(store.news_items(store.NewsFilter(host="a.example"))) == 3
    since = store.NewsFilter(since=T0 + 25 * HOUR)
    assert [i.kind for i in store.news_items(since)] == ["back", "gone", "changed"]
    day = store.NewsFilter(since=T0 + 24 * HOUR, until=T0 + 48 * HOUR)
    assert [i.kind for i in store.news_items(day)] == ["gone", "changed"]
    assert store.count_news(store.NewsFilter(kind="new", host="a.example")) == 2
    assert list(store.iter_news(since)) == store.news_items(since)
    assert store.news_hosts() == ["a.example", "b.example"]


def test_items_carry_the_page_s_publication_date(project):
    add_news([("http://a.example/1", T0 + HOUR, "new"), ("http://a.example/2", T0, "new")])
    published = T0 - 30 * HOUR
    Page.update(published_at=published).where(Page.url == "http://a.example/1").execute()
    first, second = store.news_items()
    assert (first.url, first.published_at) == ("http://a.example/1", published)
    assert (second.url, second.published_at) == ("http://a.example/2", None)


def test_paging_by_key_sees_every_item_once_even_at_equal_times(project):
    add_news([(f"http://a.example/{n}", T0 + (n // 3) * HOUR, "new") for n in range(10)])
    seen, after = [], None
    while block := store.news_items(after=after, limit=4):
        seen += block
        after = (block[-1].at, block[-1].id)
    assert len(seen) == 10 and len({i.id for i in seen}) == 10
    assert [i.at for i in seen] == sorted((i.at for i in seen), reverse=True)


def test_counts_by_day_site_and_kind_on_the_users_clock(project):
    sample()
    groups = store.news_groups()
    assert [(g.day, g.host, g.kind, g.count) for g in groups] == [
        (date(2027, 1, 3), "b.example", "back", 1),
        (date(2027, 1, 2), "a.example", "changed", 1),
        (date(2027, 1, 2), "b.example", "gone", 1),
        (date(2027, 1, 1), "a.example", "new", 2),
        (date(2027, 1, 1), "b.example", "new", 1),
    ]
    # two hours behind UTC, the first hour of 2 January is still the 1st
    west = store.news_groups(offset_minutes=-120)
    assert (date(2027, 1, 1), "a.example", "changed", 1) in [
        (g.day, g.host, g.kind, g.count) for g in west
    ]
    start, end = store.day_bounds(date(2027, 1, 1), -120)
    assert (start, end) == (T0 + 2 * HOUR, T0 + 26 * HOUR)
    days = store.news_days()
    assert [(d.day, d.counts, d.unseen, d.sites) for d in days] == [
        (date(2027, 1, 3), {"back": 1}, 1, 1),
        (date(2027, 1, 2), {"changed": 1, "gone": 1}, 2, 2),
        (date(2027, 1, 1), {"new": 3}, 3, 2),
    ]
    west_new = store.news_days(store.NewsFilter(kind="new"), -120)
    assert [(d.day, d.counts) for d in west_new] == [
        (date(2027, 1, 1), {"new": 2}),
        (date(2026, 12, 31), {"new": 1}),  # 01:00 UTC is 23:00 the day before
    ]
    only_b = store.news_groups(store.NewsFilter(host="b.example", kind="new"))
    assert [(g.host, g.kind, g.count) for g in only_b] == [("b.example", "new", 1)]


def test_mark_all_as_seen_and_the_unseen_count(project):
    assert store.unseen_news_count() == 0 and store.mark_news_seen() is None
    sample()
    assert store.unseen_news_count() == 6
    assert all(g.unseen == g.count for g in store.news_groups())
    mark = store.mark_news_seen()
    assert mark is not None and mark.at == T0 + 50 * HOUR
    assert store.seen_mark() == mark
    assert store.unseen_news_count() == 0
    assert all(g.unseen == 0 for g in store.news_groups())
    # an item written after the mark is unseen, even one dated before it (a fetch whose
    # commit came late)
    add_news([("http://c.example/", T0 + 5 * HOUR, "new")])
    assert store.unseen_news_count() == 1
    (late,) = [g for g in store.news_groups() if g.host == "c.example"]
    assert late.unseen == 1
    unseen = {i.url for i in store.news_items() if store.is_unseen(i, store.seen_marks())}
    assert unseen == {"http://c.example/"}
    # a mark up to a given item (what the app listed); it never moves back
    newest = store.newest_news_id()
    add_news([("http://d.example/", T0 + 6 * HOUR, "new")])
    assert store.mark_news_seen(newest).id == newest
    assert store.unseen_news_count() == 1  # d.example's, written after the listing
    assert store.mark_news_seen(mark.id) == store.seen_mark()  # not back to the old mark
    assert store.seen_mark().id == newest


def test_a_store_from_version_1_gets_news_empty_and_records_it_from_then_on(tmp_path, server):
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(DATA / "schema-1.sqlite", folder / "recrawl.sqlite")
    project = Project.open(folder)
    try:
        assert current_version(DB.obj) == SCHEMA_VERSION
        assert "news" in DB.get_tables()
        assert "title" in {c.name for c in DB.get_columns("page")}
        fetched = {p.url for p in Page.select().where(Page.status == "fetched")}
        assert fetched and News.select().count() == 0  # nothing back-filled
        assert store.unseen_news_count() == 0 and store.news_groups() == []
        # the old pages were fetched by version 1: a crawl now makes them no "new" news
        server.html("/", "<title>Fresh</title><p>fresh</p>")
        inject([server.url("/")], T0)
        crawl(project, clock=clock_at(timedelta(days=60)))
        new = {(i.url, i.title) for i in store.news_items(store.NewsFilter(kind="new"))}
        assert (server.url("/"), "Fresh") in new
        assert not {url for url, _ in new} & fetched
        # its host had pages: its first crawl was done before the upgrade (docs/design.md §15),
        # and no item says so; a host crawled from now on gets its own baseline
        (old,) = Baseline.select()
        assert (old.host, old.last_page, old.page_id) == ("127.0.0.1", 0, None)
        assert store.news_items(store.NewsFilter(kind="baseline")) == []
        other = httpserver.TestServer(address="127.0.0.2").start()
        try:
            other.html("/", "<title>Other</title><p>other</p>")
            inject([other.url("/")], T0 + timedelta(days=61))
            crawl(project, clock=clock_at(timedelta(days=61)))
        finally:
            other.stop()
        (first,) = store.news_items(store.NewsFilter(kind="baseline"))
        assert (first.host, first.url, first.pages, first.complete) == (
            "127.0.0.2",
            other.url("/"),
            1,
            True,
        )
    finally:
        project.close()


def test_migration_15_gives_a_store_without_them_the_summaries(project):
    from recrawl.core.store.migrations import migrate

    sample()
    for column in ("summary", "rule"):  # the store as schema 14 left it
        DB.execute_sql(f'ALTER TABLE "news" DROP COLUMN "{column}"')
    store.set_setting("schema_version", 14)
    assert migrate(DB.obj) == 14 and current_version(DB.obj) == SCHEMA_VERSION
    assert {"summary", "rule"} <= {c.name for c in DB.get_columns("news")}
    items = store.news_items()
    assert len(items) == 6 and {(i.summary, i.rule) for i in items} == {(None, None)}
    (changed,) = [i for i in items if i.kind == "changed"]
    store.set_news_summaries([(changed.id, "+ a line added\n- a line removed", "a.example/")])
    (item,) = store.news_items(store.NewsFilter(kind="changed"))
    assert (item.summary, item.rule) == ("+ a line added\n- a line removed", "a.example/")
    # the items after one, oldest first (what a notification has not sent yet)
    later = sorted(i.id for i in items if i.id > changed.id)
    assert [i.id for i in store.news_after(changed.id)] == later
    assert [i.id for i in store.news_after(changed.id, changed.id + 1)] == later[:1]
