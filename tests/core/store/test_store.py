"""The store: WAL SQLite from a database URL, numbered migrations, batched writes."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from peewee import IntegrityError
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.errors import ProjectLocked, StoreError
from recrawl.core.project import Project
from recrawl.core.store.migrations import SCHEMA_VERSION, current_version
from recrawl.core.store.models import DB, FetchEvent, Page, Setting

DATA = Path(__file__).resolve().parents[2] / "data"


def test_new_store_is_wal_with_foreign_keys(project, store_kind):
    assert current_version(DB.obj) == SCHEMA_VERSION
    if store_kind == "sqlite":
        assert DB.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert DB.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
    else:  # PostgreSQL keeps its foreign keys always: a fetch of no page is refused
        with pytest.raises(IntegrityError), DB.atomic():
            FetchEvent.create(page=12345, fetched_at=utcnow())


def _counts(path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return {
            table: db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
            for table in ("page", "fetch_event", "link")
        }


@pytest.mark.parametrize("version", [1])
def test_stored_database_of_each_schema_version_opens_and_migrates(tmp_path, version):
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(DATA / f"schema-{version}.sqlite", folder / "recrawl.sqlite")
    before = _counts(folder / "recrawl.sqlite")
    project = Project.open(folder)
    try:
        assert current_version(DB.obj) == SCHEMA_VERSION
        assert Page.select().count() > 0  # data written by that version survives
        assert all(p.first_seen is not None for p in Page.select())
        # every row: a migration that copies the page table must not cascade its drop
        # onto the fetch history and links (it did, from schema 1, until schema 12)
        assert before["fetch_event"] > 0 and before["link"] > 0
        assert _counts(folder / "recrawl.sqlite") == before
        # version 1's seed hosts became the chain's scope: same pages in scope as before
        from recrawl.core.policy.choices import project_chain

        scope = next(f for f in project_chain().filters if f.name == "scope")
        assert [r.text for r in scope.rules] == ["127.0.0.1"]
    finally:
        project.close()


def test_store_from_a_newer_recrawl_is_refused(tmp_path):
    project = Project.init(tmp_path / "p")
    Setting.replace(key="schema_version", value=SCHEMA_VERSION + 5).execute()
    project.close()
    with pytest.raises(StoreError, match="newer Recrawl"):
        Project.open(tmp_path / "p")


def test_database_url_opens_the_same_store(tmp_path):
    project = Project.init(tmp_path / "p")
    store.add_pages([store.NewPage("http://a.example/", "a.example", utcnow(), 10.0)], utcnow())
    project.close()
    again = Project(tmp_path / "p", f"sqlite:///{tmp_path / 'p' / 'recrawl.sqlite'}")
    again._open_store()
    try:
        assert [p.url for p in Page.select()] == ["http://a.example/"]
    finally:
        again.close()


def test_first_seen_is_never_overwritten(project):
    t0 = utcnow()
    page = store.NewPage("http://a.example/", "a.example", t0, 10.0)
    assert store.add_pages([page], t0) == 1
    later = t0.replace(year=t0.year + 1)
    assert store.add_pages([page], later) == 0
    assert Page.get().first_seen == t0


def test_project_lock_is_exclusive_and_dies_with_its_holder(tmp_path):
    first = Project.init(tmp_path / "p")
    first.acquire_lock("crawl")
    second = Project(tmp_path / "p")
    with pytest.raises(ProjectLocked, match="busy"):
        second.acquire_lock("crawl")
    first.release_lock()
    second.acquire_lock("crawl")  # released locks (and dead processes') are taken over
    second.release_lock()
    first.close()


def test_rejected_links_are_searched_in_sql_with_wildcards_literal(project):
    now = utcnow()
    store.record_rejected(
        [
            ("https://a.example/x?sid=1", "clean-up", 4),
            ("https://a.example/100%25_off", "no-binaries", 2),
            ("https://b.example/SID=9", "clean-up", 4),
        ],
        now,
    )
    total, rows = store.rejected_matching("sid=", 10)  # case-insensitive
    assert total == 2 and {r.url for r in rows} == {
        "https://a.example/x?sid=1",
        "https://b.example/SID=9",
    }
    assert store.rejected_matching("%", 10)[0] == 1  # a literal percent sign, not "anything"
    assert store.rejected_matching("_", 10)[0] == 1
    total, rows = store.rejected_matching("", 2)
    assert total == 3 and len(rows) == 2
    assert store.rejected_link("https://b.example/SID=9").filter == "clean-up"
    assert store.rejected_link("https://nowhere.example/") is None


def test_a_rounds_pages_are_capped_by_host_and_shared_among_the_pages_that_link_them(project):
    t0 = utcnow()
    hub, other = "http://a.example/hub", "http://a.example/other"
    pages = [
        store.NewPage(f"http://a.example/many/{i}", "a.example", t0, 1.0, discovered_from=hub)
        for i in range(50)
    ]
    pages += [
        store.NewPage("http://a.example/next", "a.example", t0, 1.0, discovered_from=other),
        store.NewPage("http://b.example/", "b.example", t0, 1.0),
        store.NewPage("http://b.example/later", "b.example", t0.replace(year=t0.year + 1), 1.0),
    ]
    store.add_pages(pages, t0)
    refs, waiting = store.due_page_refs(t0, limit=100, per_host_cap=5)

    # the page found on /other comes before the hub's second link, though found last
    assert [ref.url for ref in refs] == [
        "http://a.example/many/0",
        "http://a.example/next",
        "http://b.example/",
        *(f"http://a.example/many/{i}" for i in range(1, 4)),
    ]
    assert waiting == {"a.example": 51 - 5}
    rows = store.pages_by_id([ref.id for ref in refs])
    assert {page.url for page in rows.values()} == {ref.url for ref in refs}
    limited, _ = store.due_page_refs(t0, limit=2, per_host_cap=5)
    assert [ref.url for ref in limited] == [ref.url for ref in refs[:2]]


def test_paging_by_key_puts_nulls_first_ascending_and_last_descending(project):
    now = utcnow()
    store.add_pages(
        [store.NewPage(f"http://a.example/{i}", "a.example", now, 10.0) for i in range(7)], now
    )
    fetched = {f"http://a.example/{i}": now.replace(microsecond=0) for i in (1, 4, 5)}
    for url, when in fetched.items():
        Page.update(last_fetched=when).where(Page.url == url).execute()
    column = store.LISTING_COLUMNS.index("last_fetched")
    for descending in (False, True):
        query = store.PageQuery(order_by="last_fetched", descending=descending)
        paged, after = [], None
        while rows := store.listing_rows(query, after, 2):
            paged += rows
            after = (rows[-1][column], rows[-1][-1])
        urls = [row[0] for row in paged]
        assert sorted(urls) == sorted(f"http://a.example/{i}" for i in range(7))
        nulls = [row[column] is None for row in paged]
        assert nulls == ([True] * 4 + [False] * 3 if not descending else [False] * 3 + [True] * 4)
