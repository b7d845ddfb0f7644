"""The What's new panel: news by day and site with counts, filters, seen, lazy items."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from PySide6.QtCore import QModelIndex, Qt
from recrawl.core import store
from recrawl.core.engine import inject
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, save_rules
from recrawl.gui.news.news_model import BLOCK, PUBLISHED_COLUMN, URL_COLUMN, URL_ROLE
from recrawl.gui.news.news_panel import NewsPanel
from recrawl.gui.pages.pages_panel import PagesPanel

from tests.gui.helpers import open_window
from tests.support.crawling import T0, clock_at, crawl
from tests.support.ticker_article import TICKERS, crawl_ticker_history

NOON = T0 + timedelta(hours=12)  # the same day on any clock within 11 h of UTC
DAY1, DAY2 = date(2027, 1, 1), date(2027, 1, 2)


def add_news(items: list[tuple[str, datetime, str]]) -> None:
    """(url, at, kind) items, written as a crawl's commit writes them."""
    urls = sorted({url for url, _, _ in items})
    store.add_pages([store.NewPage(u, u.split("/")[2], T0, 86400.0) for u in urls], T0)
    ids = store.page_ids(urls)
    batch = store.CommitBatch(segment="none")
    batch.news = [(ids[u], u.split("/")[2], at, kind) for u, at, kind in items]
    store.commit_batch(batch, T0)


def sample() -> None:
    """Day 1: a.example 12 new, 3 of them changed later that day; b.example 2 new.
    Day 2: one of a.example's gone."""
    items = [(f"http://a.example/{n}", NOON + timedelta(minutes=n), "new") for n in range(12)]
    items += [(f"http://a.example/{n}", NOON + timedelta(hours=2, minutes=n), "changed") for n in range(3)]  # fmt: skip
    items += [(f"http://b.example/{n}", NOON + timedelta(minutes=30 + n), "new") for n in range(2)]
    items += [("http://a.example/5", NOON + timedelta(days=1), "gone")]
    add_news(items)


def news_panel(qtbot, window) -> NewsPanel:
    window.show_panel("news")
    panel = window.panels["news"]
    assert isinstance(panel, NewsPanel)
    qtbot.waitUntil(lambda: bool(panel.model.days) or panel.stack.currentWidget() is panel.hint)
    return panel


def wait_items(qtbot, panel: NewsPanel, day: date, host: str, count: int) -> QModelIndex:
    """The site row of (day, host), once ``count`` items are read under it."""
    qtbot.waitUntil(lambda: panel.site_node(day, host) is not None)
    node = panel.site_node(day, host)
    qtbot.waitUntil(lambda: len(node.items) == count and not node.pending)
    return panel.model.site_index(node)


def texts(panel: NewsPanel, parent: QModelIndex | None = None) -> list[str]:
    model = panel.model
    parent = parent or QModelIndex()
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def test_news_grouped_by_day_and_site_with_counts(qtbot, qtmodeltester, project, prefs):
    sample()
    window = open_window(qtbot, project, prefs)
    qtbot.waitUntil(lambda: window.nav.item(0).text() == "What's new (18)")
    panel = news_panel(qtbot, window)
    model = panel.model
    days = texts(panel)
    assert days == [
        "Saturday 2 January 2027 — 1 page gone on 1 site (1 unseen)",
        "Friday 1 January 2027 — 14 new pages, 3 changed on 2 sites (17 unseen)",
    ]
    assert panel.count_label.text() == "18 items, 18 unseen"
    # the newest day is open with its sites, their items read; the older day closed,
    # its sites not even read
    day1 = model.day_index(panel.day_node(DAY1))
    assert panel.tree.isExpanded(model.day_index(panel.day_node(DAY2)))
    gone_site = wait_items(qtbot, panel, DAY2, "a.example", 1)
    assert not panel.tree.isExpanded(day1) and panel.day_node(DAY1).sites is None
    panel.tree.expand(day1)
    qtbot.waitUntil(lambda: model.rowCount(day1) == 2)
    assert texts(panel, day1) == [
        "12 new pages on a.example, 3 changed (15 unseen)",
        "2 new pages on b.example (2 unseen)",
    ]
    gone = model.index(0, 0, gone_site)
    assert model.index(0, 1, gone_site).data() == "gone"
    # group rows span the columns; item rows show them all
    assert panel.tree.isFirstColumnSpanned(gone_site.row(), gone_site.parent())
    assert not panel.tree.isFirstColumnSpanned(0, gone_site)
    assert gone.data(URL_ROLE) == "http://a.example/5"
    assert gone.data(Qt.ItemDataRole.FontRole).bold()  # unseen
    # opening day 1's a.example reads its items, newest first
    a_site = wait_items(qtbot, panel, DAY1, "a.example", 15)  # a day's few sites open
    assert model.rowCount(a_site) == 15
    kinds = [model.index(r, 1, a_site).data() for r in range(15)]
    assert kinds == ["changed"] * 3 + ["new"] * 12
    assert model.index(0, URL_COLUMN, a_site).data(URL_ROLE) == "http://a.example/2"
    qtmodeltester.check(model)  # parents, indexes and row counts agree at every level
    window.close()


def test_filters_by_kind_and_site(qtbot, project, prefs):
    sample()
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    assert [panel.site.itemText(i) for i in range(panel.site.count())] == [
        "All sites",
        "a.example",
        "b.example",
    ]
    with qtbot.waitSignal(panel.model.sig_loaded):
        panel.kind.setCurrentIndex(panel.kind.findData("changed"))
    assert texts(panel) == ["Friday 1 January 2027 — 3 changed pages on 1 site (3 unseen)"]
    with qtbot.waitSignal(panel.model.sig_loaded):
        panel.kind.setCurrentIndex(0)
    with qtbot.waitSignal(panel.model.sig_loaded):
        panel.site.setCurrentIndex(panel.site.findData("b.example"))
        panel.site.activated.emit(panel.site.currentIndex())
    assert texts(panel) == ["Friday 1 January 2027 — 2 new pages on 1 site (2 unseen)"]
    assert panel.site.currentData() == "b.example"  # kept when the list is filled again
    # the filter reaches the items: only b.example's, only news of that kind
    site = wait_items(qtbot, panel, DAY1, "b.example", 2)
    assert {panel.model.index(r, URL_COLUMN, site).data(URL_ROLE) for r in range(2)} == {
        "http://b.example/0",
        "http://b.example/1",
    }
    window.close()


def test_mark_all_as_seen_unbolds_and_later_news_is_unseen(qtbot, project, prefs):
    sample()
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    model = panel.model
    gone_site = wait_items(qtbot, panel, DAY2, "a.example", 1)
    assert panel.seen_button.isEnabled()
    qtbot.mouseClick(panel.seen_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.nav.item(0).text() == "What's new")
    assert not model.index(0, 0, gone_site).data(Qt.ItemDataRole.FontRole)
    assert "unseen" not in "".join(texts(panel))
    assert not panel.seen_button.isEnabled() and panel.count_label.text() == "18 items"
    assert store.unseen_news_count() == 0

    # a later round's news: counted at once, bold once listed
    add_news([("http://c.example/", NOON + timedelta(days=1, hours=1), "new")])
    with qtbot.waitSignal(model.sig_loaded):
        window.context.changes.sig_pages.emit()
    qtbot.waitUntil(lambda: window.nav.item(0).text() == "What's new (1)")
    site = wait_items(qtbot, panel, DAY2, "c.example", 1)
    assert model.index(0, 0, site).data(Qt.ItemDataRole.FontRole).bold()
    assert texts(panel)[0].endswith("(1 unseen)")
    window.close()


def test_double_click_asks_for_the_pages_diff(qtbot, project, prefs):
    sample()
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    model = panel.model
    site = wait_items(qtbot, panel, DAY2, "a.example", 1)
    item = model.index(0, 0, site)
    panel.tree.scrollTo(item)
    rect = panel.tree.visualRect(item)
    assert rect.isValid()
    viewport = panel.tree.viewport()
    with qtbot.waitSignal(panel.sig_open_diff) as opened:
        # as a mouse does it: the view takes a double click on the row it was pressed on
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.args == ["http://a.example/5", None]  # a gone item: the latest change
    # the window shows the page in the Pages panel and opens its diff (these items have
    # no captures: it says so)
    assert window.current_panel().key == "pages"
    pages = window.panels["pages"]
    assert isinstance(pages, PagesPanel)
    dialog = pages.detail.diff_dialog
    assert dialog is not None and dialog.windowTitle() == "Changes of http://a.example/5"
    qtbot.waitUntil(lambda: bool(dialog.view.summary.text()), timeout=30_000)
    window.close()


def test_a_big_site_day_is_read_a_block_at_a_time(qtbot, project, prefs):
    count = 2 * BLOCK + 50
    add_news([(f"http://a.example/{n}", NOON + timedelta(seconds=n), "new") for n in range(count)])
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    model = panel.model
    site = wait_items(qtbot, panel, DAY1, "a.example", BLOCK)
    assert model.rowCount(site) == BLOCK + 1  # a block, and "N more…"
    assert model.index(BLOCK, 0, site).data() == f"{count - BLOCK:,} more…"
    assert panel.site_node(DAY1, "a.example").items[0].url == f"http://a.example/{count - 1}"
    # nothing more is read until the reader gets there
    qtbot.wait(50)
    assert model.rowCount(site) == BLOCK + 1
    for rows in (2 * BLOCK + 1, count):
        panel.tree.scrollToBottom()
        qtbot.waitUntil(lambda rows=rows: model.rowCount(site) == rows)
    urls = [model.index(r, URL_COLUMN, site).data(URL_ROLE) for r in range(count)]
    assert len(set(urls)) == count  # each once, none skipped at the block edges
    window.close()


def test_a_crawl_news_shows_up_and_an_empty_project_says_what_to_do(qtbot, project, prefs, server):
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    assert panel.stack.currentWidget() is panel.hint
    assert window.nav.item(0).text() == "What's new"
    # the site's first crawl the day before: one item (docs/design.md §15)
    server.html("/", "<title>Home page</title>")
    inject([server.url("/")], NOON - timedelta(days=1))
    crawl(project, clock=clock_at(NOON - T0 - timedelta(days=1)))
    # then /a is added, linked from the home page: new
    server.html("/", '<title>Home page</title><a href="/a">a</a>')
    dated = '<meta property="article:published_time" content="2026-12-31">'
    server.html("/a", f"<html><head><title>Page A</title>{dated}</head><body>a</body></html>")
    store.make_due([server.url("/")], NOON)
    crawl(project, clock=clock_at(NOON - T0))
    with qtbot.waitSignal(panel.model.sig_loaded):
        window.context.changes.sig_pages.emit()  # what a finished round tells the panels
    assert panel.stack.currentWidget() is panel.listing
    assert [day.day for day in panel.model.days] == [DAY1, DAY1 - timedelta(days=1)]
    site = wait_items(qtbot, panel, DAY1, "127.0.0.1", 2)
    assert site.data() == "1 new page on 127.0.0.1, 1 changed (2 unseen)"
    rows = {panel.model.index(r, 1, site).data(): r for r in range(2)}
    assert panel.model.index(rows["new"], 0, site).data() == "Page A"
    # the date /a states, when the crawl first saw it, and the delay (issue 14)
    published = panel.model.index(rows["new"], PUBLISHED_COLUMN, site).data()
    assert panel.model.index(rows["changed"], PUBLISHED_COLUMN, site).data() == ""
    assert published.startswith("published 31 Dec")
    assert published.endswith(", first seen 1 Jan 2027 (+1 d)") or published.endswith(
        ", first seen 1 Jan (+1 d)"
    )  # the year shown unless it is this one
    window.close()


def test_a_first_crawl_is_one_item_growing_then_done_and_unseen_again(
    qtbot, qtmodeltester, project, prefs, server
):
    """A first crawl split over crawls (a round each) is one What's new item: under way
    with what it archived so far, then done; bold again once done, though "Mark all as
    seen" was pressed while it was under way."""
    from tests.support.crawling import fast_settings

    server.html("/", '<title>Home</title><a href="/a">a</a>')
    server.html("/a", '<title>A</title><a href="/b">b</a>')
    server.html("/b", "<title>B</title>")
    inject([server.url("/")], NOON)
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    model = panel.model

    def crawl_a_round(hours: int) -> QModelIndex:
        crawl(project, fast_settings(rounds=1), clock=clock_at(NOON - T0 + timedelta(hours=hours)))
        with qtbot.waitSignal(model.sig_loaded):
            window.context.changes.sig_pages.emit()
        return wait_items(qtbot, panel, DAY1, "127.0.0.1", 1)

    site = crawl_a_round(0)
    item = model.index(0, 0, site)
    assert site.data() == "1 first crawl on 127.0.0.1 (1 unseen)"
    assert item.data() == "First crawl of 127.0.0.1 under way: 1 page archived so far"
    assert model.index(0, 1, site).data() == "first crawl"
    assert item.data(URL_ROLE) == server.url("/")
    assert model.index(0, PUBLISHED_COLUMN, site).data() == ""
    assert texts(panel) == ["Friday 1 January 2027 — 1 first crawl on 1 site (1 unseen)"]
    panel.mark_all_seen()
    qtbot.waitUntil(lambda: model.unseen == 0)

    site = crawl_a_round(1)
    assert model.index(0, 0, site).data() == (
        "First crawl of 127.0.0.1 under way: 2 pages archived so far"
    )
    assert not model.index(0, 0, site).data(Qt.ItemDataRole.FontRole)  # seen: not bold
    site = crawl_a_round(2)
    item = model.index(0, 0, site)
    assert item.data() == "First crawl of 127.0.0.1: 3 pages archived"
    assert item.data(Qt.ItemDataRole.FontRole).bold()  # done: unseen again
    assert site.data() == "1 first crawl on 127.0.0.1 (1 unseen)"
    qtbot.waitUntil(lambda: window.nav.item(0).text() == "What's new (1)")
    # the kind filter has them
    with qtbot.waitSignal(model.sig_loaded):
        panel.kind.setCurrentIndex(panel.kind.findData("baseline"))
    assert texts(panel) == ["Friday 1 January 2027 — 1 first crawl on 1 site (1 unseen)"]
    with qtbot.waitSignal(model.sig_loaded):
        panel.kind.setCurrentIndex(panel.kind.findData("new"))
    assert texts(panel) == []
    qtmodeltester.check(model)
    window.close()


@pytest.mark.parametrize("unseen", [0, 3])
def test_the_list_entry_counts_unseen_news_without_opening_the_panel(qtbot, project, prefs, unseen):
    add_news([(f"http://a.example/{n}", NOON, "new") for n in range(unseen)])
    window = open_window(qtbot, project, prefs)
    assert window.current_panel().key == "crawl"
    expected = f"What's new ({unseen})" if unseen else "What's new"
    qtbot.waitUntil(lambda: window.nav.item(0).text() == expected)
    window.close()


def test_a_changed_items_tooltip_says_what_changed_and_the_rule_that_judged_it(
    qtbot, project, prefs, server
):
    # a rule on the article's section from the start: its changes are judged by it
    section = server.url("/news/")
    save_rules(ChangeRules((ChangeRule(section, remove=("nav",)),)))
    url = crawl_ticker_history(project, server)
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    with qtbot.waitSignal(panel.model.sig_loaded):
        panel.kind.setCurrentIndex(panel.kind.findData("changed"))
    newest = panel.model.days[0].day  # the third fetch: a ticker and a paragraph
    site = wait_items(qtbot, panel, newest, "127.0.0.1", 1)
    item = panel.model.index(0, 0, site)
    assert panel.model.index(0, 1, site).data() == "changed"
    tip = item.data(Qt.ItemDataRole.ToolTipRole)
    lines = tip.splitlines()
    assert lines[0] == url and lines[2] == "What changed:"
    assert f"+ {TICKERS[2]}" in lines and f"- {TICKERS[1]}" in lines
    assert any(line.startswith("+ A public meeting") for line in lines)
    assert lines[-1] == f"Judged by the change rule on {section}"
    # the URL column says the same
    assert panel.model.index(0, URL_COLUMN, site).data(Qt.ItemDataRole.ToolTipRole) == tip
    window.close()
