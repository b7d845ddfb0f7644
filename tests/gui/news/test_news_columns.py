"""What's new reads in full (issue 25): columns as wide as their texts in bold, titles cut
at their end, the URL's path, no empty Published column."""

from __future__ import annotations

from datetime import timedelta

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QStyle
from recrawl.core.engine import inject
from recrawl.core.policy.refetch import refetch
from recrawl.gui.news.news_model import (
    AT_COLUMN,
    KIND_COLUMN,
    KIND_LABELS,
    PUBLISHED_COLUMN,
    TITLE_COLUMN,
    URL_COLUMN,
    URL_ROLE,
)
from recrawl.gui.news.news_panel import NewsPanel

from tests.gui.helpers import open_window
from tests.gui.news.test_news_panel import DAY1, add_news, news_panel, wait_items
from tests.support.crawling import T0, clock_at, crawl

NOON = T0 + timedelta(hours=12)
LONG = "3. An Informal Introduction to Python — Python 3.12.1 documentation"


def bold_width(panel: NewsPanel, text: str) -> int:
    font = QFont(panel.tree.font())
    font.setBold(True)
    return QFontMetrics(font).horizontalAdvance(text)


def fits(panel: NewsPanel, column: int, text: str, indent: int = 0) -> bool:
    """``text`` in bold shows whole in ``column``: the delegate's margins included."""
    style = panel.tree.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, panel.tree) + 1
    needed = bold_width(panel, text) + 2 * margin + indent
    return panel.tree.header().sectionSize(column) >= needed


def item_texts(panel: NewsPanel, site: QModelIndex, column: int) -> list[str]:
    model = panel.model
    return [model.index(r, column, site).data() for r in range(model.rowCount(site))]


def test_short_columns_fit_their_bold_texts_and_urls_show_their_path(qtbot, project, prefs):
    add_news(
        [
            ("http://a.example/docs/tutorial/introduction.html?v=3", NOON, "new"),
            ("http://a.example/", NOON + timedelta(minutes=1), "changed"),
            ("http://a.example/gone", NOON + timedelta(minutes=2), "gone"),
            ("http://a.example/back", NOON + timedelta(minutes=3), "some-later-kind"),
        ]
    )
    window = open_window(qtbot, project, prefs)
    window.resize(1400, 700)
    panel = news_panel(qtbot, window)
    site = wait_items(qtbot, panel, DAY1, "a.example", 4)
    model, header = panel.model, panel.tree.header()
    assert model.index(0, 0, site).data(Qt.ItemDataRole.FontRole).bold()  # unseen: bold
    # every kind reads whole in bold, a kind this version has no label for too
    kinds = item_texts(panel, site, KIND_COLUMN)
    assert "some-later-kind" in kinds and "changed" in kinds
    for text in [*KIND_LABELS.values(), *kinds]:
        assert fits(panel, KIND_COLUMN, text), text
    for text in item_texts(panel, site, AT_COLUMN):
        assert fits(panel, AT_COLUMN, text)
    # the path on the host (the site row names it), the URL whole in the tooltip
    paths = item_texts(panel, site, URL_COLUMN)
    assert paths == ["/back", "/gone", "/", "/docs/tutorial/introduction.html?v=3"]
    last = model.index(3, URL_COLUMN, site)
    assert last.data(Qt.ItemDataRole.ToolTipRole) == last.data(URL_ROLE)
    assert last.data(URL_ROLE) == "http://a.example/docs/tutorial/introduction.html?v=3"
    # no item states when it was published: no Published column taking the room
    assert panel.tree.isColumnHidden(PUBLISHED_COLUMN)
    # the titles (here their URLs) have the room they need in a wide window
    for text in item_texts(panel, site, TITLE_COLUMN):
        assert fits(panel, TITLE_COLUMN, text, indent=panel.tree.indentation() * 3)
    # a width the reader sets stays theirs
    header.resizeSection(KIND_COLUMN, 200)
    window.resize(1100, 700)
    qtbot.waitUntil(lambda: panel.tree.width() < 1000)
    panel.refresh()
    wait_items(qtbot, panel, DAY1, "a.example", 4)
    assert header.sectionSize(KIND_COLUMN) == 200
    window.close()


def test_long_titles_are_cut_at_their_end_and_dates_show_their_column(
    qtbot, project, prefs, server
):
    dated = '<meta property="article:published_time" content="2026-12-31">'
    # the site's first crawl is its baseline (docs/design.md §15): the titled pages come after
    server.html("/", f"<title>{LONG}</title><p>The first version of the home page.</p>")
    inject([server.url("/")], NOON - timedelta(hours=2))
    crawl(project, clock=clock_at(NOON - timedelta(hours=2) - T0))
    server.html(
        "/", f'<title>{LONG}</title><p>The second version, with a link.</p><a href="/a">a</a>'
    )
    server.html("/a", f"<html><head><title>{LONG} (a)</title>{dated}</head><body>a</body></html>")
    refetch(NOON, everything=True)
    crawl(project, clock=clock_at(NOON - T0))
    window = open_window(qtbot, project, prefs)
    window.resize(1200, 700)
    panel = news_panel(qtbot, window)
    (day,) = panel.model.days
    site = wait_items(qtbot, panel, day.day, "127.0.0.1", 3)  # the baseline, changed, new
    tree, header = panel.tree, panel.tree.header()
    titles = item_texts(panel, site, TITLE_COLUMN)
    assert set(titles) == {LONG, f"{LONG} (a)", "First crawl of 127.0.0.1: 1 page archived"}
    # a title keeps its start ("3. An Informal Intro…"), not its site's name
    assert tree.itemDelegateForColumn(TITLE_COLUMN) is None
    assert tree.textElideMode() == Qt.TextElideMode.ElideRight
    # a page states its date: the column shows, as wide as what it says
    assert not tree.isColumnHidden(PUBLISHED_COLUMN)
    published = [t for t in item_texts(panel, site, PUBLISHED_COLUMN) if t]
    assert published and published[0].startswith("published 31 Dec")
    assert fits(panel, PUBLISHED_COLUMN, published[0])
    # the paths still show whole beside the cut titles
    room = tree.viewport().width() - header.sectionViewportPosition(URL_COLUMN)
    assert all(room > bold_width(panel, path) for path in item_texts(panel, site, URL_COLUMN))
    assert header.sectionSize(TITLE_COLUMN) < bold_width(panel, LONG)  # so they are cut
    window.close()
