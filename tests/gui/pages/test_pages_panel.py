"""The Pages panel on real crawled projects: lazy listing, SQL sorting, filters, detail."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QDateTime, QPoint, Qt
from PySide6.QtGui import QDesktopServices
from recrawl.core import store
from recrawl.core.clock import to_iso, utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices
from recrawl.core.policy import refetch as refetching
from recrawl.core.project import Project
from recrawl.core.store.models import DB, FetchEvent, Page
from recrawl.gui.common.plots import CHANGED
from recrawl.gui.pages.pages_model import (
    BLOCK,
    HEADERS,
    HISTORY_COLUMNS,
    HISTORY_FIELDS,
    RAW_ROLE,
    PagesModel,
)
from recrawl.gui.pages.pages_panel import PagesPanel

from tests.gui.helpers import open_window
from tests.support.crawling import DAY, T0, clock_at, crawl

TEXT = (
    "Archivists watch sites for months and want to know when each page changed, "
    "which pages changed together, and how often a page should be visited again. "
)


def article(extra: str) -> str:
    return f"<html><body><p>{TEXT * 10}</p><p>{extra}</p></body></html>"


@pytest.fixture
def crawled(project, server):
    """A tiny site crawled over three rounds at shifted clocks; /news changes each round."""
    choices.set_schedule(None, ["min@127.0.0.1=1h", "max@127.0.0.1=20d"])
    links = '<a href="/news">n</a> <a href="/static">s</a> <a href="/missing">m</a>'
    server.html("/", links)
    server.html("/news", article("first story"))
    server.html("/static", article("never changes"))
    inject([server.url("/")], utcnow())
    crawl(project, clock=clock_at())
    # round two: a new story, and a page first seen now
    server.html("/", links + ' <a href="/later">l</a>')
    server.html("/news", article("elections and budgets, a different story " * 4))
    server.html("/later", article("arrived later"))
    crawl(project, clock=clock_at(13 * DAY))
    server.html("/news", article("the weather, yet another story entirely " * 4))
    crawl(project, clock=clock_at(40 * DAY))
    return project


make_window = open_window


def open_pages(qtbot, window) -> PagesPanel:
    window.show_panel("pages")
    panel = window.panels["pages"]
    assert isinstance(panel, PagesPanel)
    qtbot.waitUntil(lambda: panel.model.total is not None)
    return panel


def urls(model: PagesModel) -> list[str]:
    return [model.url_at(row) for row in range(model.rowCount())]


def sql_urls(*order) -> list[str]:
    return [url for (url,) in Page.select(Page.url).order_by(*order).tuples()]


def click_header(qtbot, panel: PagesPanel, column: str) -> None:
    header = panel.table.horizontalHeader()
    section = PagesModel.columns.index(column)
    assert panel.model.headerData(section, Qt.Orientation.Horizontal) == HEADERS[column]
    x = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
    qtbot.mouseClick(
        header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2)
    )


def select(qtbot, panel: PagesPanel, url: str) -> None:
    row = panel.model.row_of(url)
    assert row is not None, url
    rect = panel.table.visualRect(panel.model.index(row, 0))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: panel.detail.detail is not None and panel.detail.detail.url == url)


def test_table_lists_every_page_and_header_clicks_sort_in_sql(
    qtbot, qtmodeltester, crawled, prefs, server
):
    window = make_window(qtbot, crawled, prefs)
    panel = open_pages(qtbot, window)
    expected = sql_urls(Page.first_seen, Page.id)
    assert len(expected) == 5
    qtbot.waitUntil(lambda: urls(panel.model) == expected)
    qtbot.waitUntil(lambda: panel.count_label.text() == "5 pages")
    assert panel.stack.currentWidget() is not panel.hint
    # times show in local time
    row = panel.model.row_of(server.url("/news"))
    column = PagesModel.columns.index("last_fetched")
    raw = panel.model.index(row, column).data(RAW_ROLE)
    local = raw.replace(tzinfo=UTC).astimezone()
    assert panel.model.index(row, column).data() == local.strftime("%Y-%m-%d %H:%M")

    click_header(qtbot, panel, "fetch_interval")
    qtbot.waitUntil(lambda: urls(panel.model) == sql_urls(Page.fetch_interval, Page.id))
    click_header(qtbot, panel, "fetch_interval")  # again: descending
    by_interval_desc = sql_urls(Page.fetch_interval.desc(), Page.id.desc())
    qtbot.waitUntil(lambda: urls(panel.model) == by_interval_desc)
    assert by_interval_desc != expected
    click_header(qtbot, panel, "url")
    qtbot.waitUntil(lambda: urls(panel.model) == sql_urls(Page.url, Page.id))
    qtmodeltester.check(panel.model)  # Qt's own checks of the model's contract
    window.close()


def test_search_status_and_first_seen_filters_narrow_the_rows(qtbot, crawled, prefs, server):
    window = make_window(qtbot, crawled, prefs)
    panel = open_pages(qtbot, window)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 5)

    qtbot.keyClicks(panel.search, "/STAT")  # LIKE is case-insensitive
    qtbot.waitUntil(lambda: urls(panel.model) == [server.url("/static")])
    # the count is its own query: it may land after the rows
    qtbot.waitUntil(lambda: panel.count_label.text() == "1 of 5 pages match")
    panel.search.clear()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 5)

    panel.status.setCurrentIndex(panel.status.findData("gone"))
    qtbot.waitUntil(lambda: urls(panel.model) == [server.url("/missing")])
    panel.status.setCurrentIndex(0)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 5)

    # first seen since a day after the first round: only the page linked in round two
    since = T0 + DAY
    panel.since.setDateTime(
        QDateTime.fromSecsSinceEpoch(int(since.replace(tzinfo=UTC).timestamp()))
    )
    assert panel.since_utc() is None  # not applied until checked
    panel.since_check.click()
    assert panel.since_utc() == since
    qtbot.waitUntil(lambda: urls(panel.model) == [server.url("/later")])
    window.close()


def test_a_selected_page_shows_its_trajectory_history_and_bounds(
    qtbot, qtmodeltester, crawled, prefs, server
):
    window = make_window(qtbot, crawled, prefs)
    panel = open_pages(qtbot, window)
    news = server.url("/news")
    qtbot.waitUntil(lambda: panel.model.row_of(news) is not None)
    select(qtbot, panel, news)
    detail = panel.detail
    events = list(
        FetchEvent.select().join(Page).where(Page.url == news).order_by(FetchEvent.fetched_at)
    )
    assert len(events) == 3
    changed = [e for e in events if e.change == "changed"]
    assert len(changed) == 2
    # one point per fetch; changed ones drawn in the CHANGED colour
    assert len(detail.changed_points.data) + len(detail.unchanged_points.data) == len(events)
    assert len(detail.changed_points.data) == len(changed)
    assert all(spot.brush().color().name() == CHANGED for spot in detail.changed_points.points())
    xs = sorted(detail.path.getData()[0])
    assert xs == [e.fetched_at.replace(tzinfo=UTC).timestamp() for e in events]
    # the host's bounds, in the plot's unit (days: the intervals reach two weeks)
    assert detail.plot.getPlotItem().getAxis("left").labelUnits == "days"
    assert sorted(line.value() for line in detail.bound_lines) == pytest.approx([1 / 24, 20.0])
    assert "max 20.0 d" in detail.bounds_label.text()

    # the history table says what `recrawl history --json` says
    out = subprocess.run(
        [sys.executable, "-m", "recrawl", "history", str(crawled.path), news, "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    cli = json.loads(out.stdout)
    model = detail.history
    # every field the command gives, error and embeds too: the columns, then what the
    # embeds column and the missing list read
    assert set(cli[0]) <= set(HISTORY_FIELDS)

    def raw(row: int, key: str):
        if key in HISTORY_COLUMNS:
            return model.index(row, HISTORY_COLUMNS.index(key)).data(RAW_ROLE)
        value = model.row(row)[HISTORY_FIELDS.index(key)]
        if key == "embeds_missing":  # (url, reason) pairs, as the command's objects
            return [{"url": u, "reason": r} for u, r in value] if value is not None else None
        return value

    shown = [
        {key: (to_iso(raw(r, key)) if key == "fetched_at" else raw(r, key)) for key in cli[0]}
        for r in range(model.rowCount())
    ]
    assert shown == cli
    qtmodeltester.check(model)  # Qt's own checks of the model's contract
    window.close()


def test_actions_refetch_fix_interval_show_content_open(qtbot, crawled, prefs, server, monkeypatch):
    window = make_window(qtbot, crawled, prefs)
    panel = open_pages(qtbot, window)
    static = server.url("/static")
    qtbot.waitUntil(lambda: panel.model.row_of(static) is not None)
    select(qtbot, panel, static)
    assert Page.get(Page.url == static).next_fetch > utcnow()  # crawled "in 2027"

    calls = []
    real = refetching.refetch
    monkeypatch.setattr(  # the button calls what `recrawl refetch DIR URL` calls
        refetching, "refetch", lambda now, **target: calls.append(target) or real(now, **target)
    )
    qtbot.mouseClick(panel.detail.refetch_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: Page.get(Page.url == static).next_fetch <= utcnow())
    assert calls == [{"urls": [static], "hosts": (), "everything": False}]

    qtbot.mouseClick(panel.detail.fix_button, Qt.MouseButton.LeftButton)
    dialog = panel.detail.fix_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.edit.setText("soon")
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert dialog.isVisible() and "not a duration" in dialog.error.text()
    dialog.edit.clear()
    qtbot.keyClicks(dialog.edit, "3d")
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    qtbot.waitUntil(
        lambda: Page.get(Page.url == static).metadata.get("fixed_interval") == 3 * 86400
    )
    page = Page.get(Page.url == static)
    assert page.fetch_interval == 3 * 86400
    assert page.next_fetch == page.last_fetched + timedelta(days=3)
    qtbot.waitUntil(
        lambda: panel.detail.detail is not None and panel.detail.detail.fixed_interval == 3 * 86400
    )
    assert "fixed at 3.0 d" in panel.detail.summary.text()

    qtbot.mouseClick(panel.detail.content_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.detail.content_dialog is not None)
    assert "never changes" in panel.detail.content_dialog.text.toPlainText()
    panel.detail.content_dialog.close()

    # the offscreen platform has no browser: catch the request at Qt's door
    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toString()) or True)
    )
    qtbot.mouseClick(panel.detail.open_button, Qt.MouseButton.LeftButton)
    assert opened == [static]
    window.close()


def test_csv_export_writes_the_filtered_sorted_rows(qtbot, crawled, prefs, server, tmp_path):
    window = make_window(qtbot, crawled, prefs)
    panel = open_pages(qtbot, window)
    panel.status.setCurrentIndex(panel.status.findData("fetched"))
    fetched = [
        u
        for (u,) in Page.select(Page.url)
        .where(Page.status == "fetched")
        .order_by(Page.url.desc(), Page.id.desc())
        .tuples()
    ]
    click_header(qtbot, panel, "url")
    click_header(qtbot, panel, "url")
    qtbot.waitUntil(lambda: urls(panel.model) == fetched)

    target = tmp_path / "pages.csv"
    qtbot.mouseClick(panel.export_button, Qt.MouseButton.LeftButton)
    dialog = panel.export_dialog
    dialog.selectFile(str(target))
    dialog.accept()
    qtbot.waitUntil(lambda: target.exists() and panel.export_button.isEnabled())
    with open(target, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["url"] for r in rows] == fetched
    assert set(rows[0]) == set(PagesModel.columns)
    assert all(r["status"] == "fetched" for r in rows)
    assert rows[0]["first_seen"].endswith("Z")  # ISO UTC, like `recrawl urls --csv`
    window.close()


def test_an_empty_project_shows_what_to_do_first(qtbot, project, prefs):
    window = make_window(qtbot, project, prefs)
    panel = open_pages(qtbot, window)
    qtbot.waitUntil(lambda: panel.stack.currentWidget() is panel.hint)
    assert "Crawl" in panel.hint.text() and "No pages yet" in panel.hint.text()
    window.close()


def big_store(folder: Path, pages: int) -> Project:
    """``pages`` pages written with executemany, as bench/compact_bench.py's listing_store."""
    project = Project.init(folder)
    rows = [
        (f"http://site{i % 1000}.example/{i}", f"site{i % 1000}.example", "fetched",
         T0 + timedelta(seconds=i), T0, 86400.0 + i % 977, 0, 1.0, 0.0, 0, "{}", "page")
        for i in range(pages)
    ]  # fmt: skip
    columns = (
        "url, host, status, first_seen, next_fetch, fetch_interval, retries, score, cash, "
        "depth, metadata, kind"
    )
    with DB.atomic():
        DB.obj.cursor().executemany(
            f"INSERT INTO page ({columns}) VALUES ({', '.join('?' * 12)})", rows
        )
    return project


def test_a_big_store_opens_with_its_first_rows_and_the_gui_thread_never_queries(
    qtbot, prefs, tmp_path, monkeypatch
):
    project = big_store(tmp_path / "big", 100_000)
    window = make_window(qtbot, project, prefs)
    on_gui_thread: list[str] = []
    execute = DB.obj.execute_sql

    def watched(sql, params=None, *args, **kwargs):
        # get_ident, not current_thread(): that would leave a dummy Thread for a QThread
        if threading.get_ident() == threading.main_thread().ident:
            on_gui_thread.append(sql)
        return execute(sql, params, *args, **kwargs)

    monkeypatch.setattr(DB.obj, "execute_sql", watched)
    window.show_panel("pages")
    panel = window.panels["pages"]
    qtbot.waitUntil(lambda: panel.model.rowCount() > 0, timeout=30_000)
    assert panel.model.rowCount() == BLOCK  # one block, not the whole store
    qtbot.waitUntil(lambda: panel.count_label.text() == "100,000 pages")
    # scrolling to the end asks for the next block
    panel.table.scrollToBottom()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2 * BLOCK)
    first_blocks = urls(panel.model)
    # sorting by a column without an index is still SQL's work, off the GUI thread
    click_header(qtbot, panel, "fetch_interval")
    qtbot.waitUntil(lambda: panel.model.index(0, 5).data(RAW_ROLE) == 86400.0)
    assert on_gui_thread == []
    monkeypatch.undo()
    assert first_blocks == sql_urls(Page.first_seen, Page.id)[: 2 * BLOCK]
    window.close()
    project.close()


def test_paging_by_key_gives_the_order_sql_gives_nulls_and_ties_included(crawled):
    from recrawl.core import store

    for column in PagesModel.columns:
        for descending in (False, True):
            query = store.PageQuery(order_by=column, descending=descending)
            field = getattr(Page, column)
            # NULL first ascending (SQLite's own order; PostgreSQL's when told)
            first = field.desc(nulls="LAST") if descending else field.asc(nulls="FIRST")
            order = (first, Page.id.desc()) if descending else (first, Page.id)
            expected = sql_urls(*order)
            paged: list[str] = []
            after = None
            while rows := store.listing_rows(query, after, 2):
                paged += [row[0] for row in rows]
                after = (rows[-1][PagesModel.columns.index(column)], rows[-1][-1])
            assert paged == expected, (column, descending)


def test_a_crawl_round_does_not_pull_the_table_from_under_a_reader(qtbot, crawled, prefs, server):
    window = make_window(qtbot, crawled, prefs)
    panel = open_pages(qtbot, window)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 5)
    select(qtbot, panel, server.url("/news"))
    reloads = []
    panel.model.modelReset.connect(lambda: reloads.append(1))
    window.context.changes.sig_pages.emit()  # what the Crawl panel says after a round
    assert panel.refresh_button.text() == "Refresh (new data)" and not reloads
    qtbot.mouseClick(panel.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(reloads) and panel.model.rowCount() == 5)
    assert panel.refresh_button.text() == "Refresh"
    window.close()


def test_the_found_via_filter_and_where_and_when_columns(qtbot, crawled, prefs, server):
    feed = "http://127.0.0.1:9/feed.xml"  # as a feed adds its entries (docs/design.md §11)
    day_only, timed = datetime(2026, 12, 30), datetime(2026, 12, 30, 18, 45)
    entries = [
        store.NewPage(
            url=server.url(path),
            host="127.0.0.1",
            next_fetch=T0 + 50 * DAY,
            fetch_interval=86400.0,
            discovered_via=store.DiscoveredVia.FEED,
            discovered_from=feed,
            published_at=published,
        )
        for path, published in (("/entry-1", day_only), ("/entry-2", timed))
    ]
    store.add_pages(entries, T0 + 45 * DAY)
    window = make_window(qtbot, crawled, prefs)
    panel = open_pages(qtbot, window)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 7)

    def choose(via: str | None) -> None:
        panel.via.setCurrentIndex(panel.via.findData(via))

    choose(store.DiscoveredVia.FEED)
    qtbot.waitUntil(lambda: urls(panel.model) == [server.url("/entry-1"), server.url("/entry-2")])
    qtbot.waitUntil(lambda: panel.count_label.text() == "2 of 7 pages match")
    model, column = panel.model, PagesModel.columns.index

    def cell(row: int, name: str, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        return model.index(row, column(name)).data(role)

    assert [cell(0, "discovered_via"), cell(0, "discovered_from")] == ["feed", feed]
    # a date alone reads as that date in every time zone; a time in local time
    assert cell(0, "published_at") == "2026-12-30"
    assert "no time was given" in cell(0, "published_at", Qt.ItemDataRole.ToolTipRole)
    local = timed.replace(tzinfo=UTC).astimezone()
    assert cell(1, "published_at") == local.strftime("%Y-%m-%d %H:%M")
    assert cell(1, "published_at", RAW_ROLE) == timed

    choose(store.DiscoveredVia.SEED)
    qtbot.waitUntil(lambda: urls(panel.model) == [server.url("/")])
    assert cell(0, "discovered_from") == "" and cell(0, "published_at") == ""
    choose(store.DiscoveredVia.LINK)
    qtbot.waitUntil(lambda: len(urls(panel.model)) == 4)
    assert {cell(row, "discovered_from") for row in range(4)} == {server.url("/")}
    choose(store.DiscoveredVia.SITEMAP)
    qtbot.waitUntil(lambda: panel.count_label.text() == "0 of 7 pages match")
    assert panel.model.rowCount() == 0
    choose(None)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 7)
    window.close()
