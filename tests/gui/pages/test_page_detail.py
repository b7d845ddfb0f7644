"""The Pages panel reads well: many rows at the default size, dates on a one-fetch page's
time axis, intervals from 0, why a fetch failed, and "never" for a page out of the crawl."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.policy.sites import remove_site
from recrawl.gui.pages.pages_model import ERROR_COLUMN, HISTORY_COLUMNS, RAW_ROLE, PagesModel

from tests.gui.helpers import open_window
from tests.support.crawling import T0, clock_at, crawl
from tests.support.httpserver import Reply

DAY = 86400.0


@pytest.fixture
def fetched_once(project, server):
    """One crawl: a page fetched once, and one whose server failed."""
    server.html("/", '<a href="/once">once</a> <a href="/broken">broken</a>')
    server.html("/once", "<p>fetched a single time</p>")
    server.routes["/broken"] = Reply(500, b"broken")
    inject([server.url("/")], utcnow())
    crawl(project, clock=clock_at())
    return project


def open_pages(qtbot, window):
    window.show_panel("pages")
    panel = window.panels["pages"]
    qtbot.waitUntil(lambda: panel.model.total is not None and panel.model.rowCount() > 0)
    return panel


def select(qtbot, panel, url: str):
    row = panel.model.row_of(url)
    assert row is not None, url
    panel.table.selectRow(row)
    qtbot.waitUntil(lambda: panel.detail.detail is not None and panel.detail.detail.url == url)
    return panel.detail


def test_the_table_shows_many_rows_at_the_default_window_size(qtbot, project, prefs):
    pages = [
        store.NewPage(f"http://site.example/p{i}", "site.example", T0, 3600.0) for i in range(60)
    ]
    store.add_pages(pages, T0)
    window = open_window(qtbot, project, prefs)  # 1200 x 780, as a first start
    panel = open_pages(qtbot, window)
    qtbot.waitUntil(lambda: panel.table.rowAt(0) == 0)
    last_visible = panel.table.rowAt(panel.table.viewport().height() - 1)
    assert last_visible >= 14, f"only {last_visible + 1} rows show"  # six before
    table, detail = panel.split.sizes()
    assert table > detail
    window.close()


def test_a_page_fetched_once_has_dates_on_its_time_axis(qtbot, fetched_once, prefs, server):
    window = open_window(qtbot, fetched_once, prefs)
    panel = open_pages(qtbot, window)
    detail = select(qtbot, panel, server.url("/once"))
    assert detail.summary.text().endswith(", 1 fetch")
    (x0, x1), (y0, y1) = detail.plot.getPlotItem().vb.viewRange()
    assert x1 - x0 >= DAY  # not the half second around one point
    assert y0 <= 0 < y1  # intervals from 0
    axis = detail.plot.getPlotItem().getAxis("bottom")
    levels = axis.tickValues(x0, x1, 600)
    labels = [text for spacing, values in levels for text in axis.tickStrings(values, 1.0, spacing)]
    assert labels
    assert not [t for t in labels if re.fullmatch(r"\d+\.\d+", t)], labels
    # the next fetch is drawn, and in view
    assert detail.next_line is not None and x0 <= detail.next_line.value() <= x1
    window.close()


def test_the_history_says_why_a_fetch_failed(qtbot, qtmodeltester, fetched_once, prefs, server):
    window = open_window(qtbot, fetched_once, prefs)
    panel = open_pages(qtbot, window)
    detail = select(qtbot, panel, server.url("/broken"))
    history = detail.history
    assert history.headerData(ERROR_COLUMN, Qt.Orientation.Horizontal) == "Error"
    assert HISTORY_COLUMNS[ERROR_COLUMN] == "error"
    assert history.rowCount() == 1
    cell = history.index(0, ERROR_COLUMN)
    assert cell.data() == "HTTP 500" and cell.data(RAW_ROLE) == "HTTP 500"
    select(qtbot, panel, server.url("/once"))
    assert detail.history.index(0, ERROR_COLUMN).data() == ""
    qtmodeltester.check(detail.history)
    window.close()


def test_a_page_out_of_the_crawl_is_never_fetched_and_says_so(qtbot, project, prefs):
    inject(["http://kept.example/", "http://gone.example/"], T0)
    remove_site("gone.example")
    window = open_window(qtbot, project, prefs)
    panel = open_pages(qtbot, window)
    row = panel.model.row_of("http://gone.example/")
    column = PagesModel.columns.index("next_fetch")
    assert panel.model.index(row, column).data() == "never"
    assert panel.model.index(row, PagesModel.columns.index("status")).data() == "filtered out"
    detail = select(qtbot, panel, "http://gone.example/")
    assert "next fetch never (filtered: the chain rejects it" in detail.summary.text()
    window.close()
