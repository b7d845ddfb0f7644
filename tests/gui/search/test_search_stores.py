"""The Search panel on both stores: SQLite's FTS5 and PostgreSQL's tsvector answer alike."""

from __future__ import annotations

from recrawl.gui.search.search_model import HIT_ROLE, RUNS_ROLE

from tests.gui.helpers import open_window
from tests.gui.search.harbour import SENTENCE, search_panel, type_query
from tests.support.crawling import DAY
from tests.support.stores import store_kind  # noqa: F401  # every test on both stores


def test_a_phrase_lists_its_page_with_when_it_came_and_went_and_its_diff(
    qtbot, crawled, prefs, server
):
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    type_query(qtbot, panel, '"wall will close" -timetable')
    (hit,) = panel.model.hits()
    assert hit.url == server.url("/harbour") and hit.captures == 2
    assert round((hit.gone_at - hit.first_seen) / DAY) == 50
    runs = panel.model.index(0, 0).data(RUNS_ROLE)
    assert [text for text, bold in runs if bold] == ["wall will close"]
    assert panel.model.index(0, 0).data(HIT_ROLE) is hit
    panel.went_button.click()
    diff = window.panels["pages"].detail.diff_dialog
    qtbot.waitUntil(lambda: diff.view.page is not None)
    assert (diff.view.page.old_date, diff.view.page.new_date) == (hit.last_seen, hit.gone_at)
    assert SENTENCE in diff.view.text.toPlainText()
    diff.close()
    window.close()
