"""The Search panel (issue 30, point 3), offscreen on a project made by real crawls.

A real server adds a sentence to a page in the second of four rounds 25 days apart and
takes it out in the fourth; another page never says it. The panel is driven as a user
would: Ctrl+F from another panel, typing, choosing a result and its actions; what it and
the windows it opens show is read back.
"""

from __future__ import annotations

import os
import threading
from datetime import UTC
from pathlib import Path

from PySide6.QtCore import QDateTime, Qt
from PySide6.QtGui import QFont
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.store.search import STALE, search_state, set_search_state
from recrawl.gui.common.formatting import local_time
from recrawl.gui.search import search_jobs
from recrawl.gui.search.result_delegate import snippet_layout
from recrawl.gui.search.search_model import HIT_ROLE, RUNS_ROLE, SEEN_ROLE, bar

from tests.gui.helpers import open_window
from tests.gui.search.harbour import (
    PLAIN,
    SENTENCE,
    article,
    search_panel,
    type_query,
)
from tests.support import httpserver
from tests.support.crawling import DAY, clock_at, crawl


def test_typing_lists_the_pages_that_said_it_with_the_matches_bold_and_when(
    qtbot, crawled, prefs, server, tmp_path
):
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    type_query(qtbot, panel, "harbour wall")
    model = panel.model
    assert model.rowCount() == 1
    hit = model.index(0, 0).data(HIT_ROLE)
    assert hit.url == server.url("/harbour")
    assert hit.title == "Harbour news"
    # bold: the matching words, and nothing else
    runs = model.index(0, 0).data(RUNS_ROLE)
    assert [text.casefold() for text, bold in runs if bold] == ["harbour", "wall"]
    assert "".join(text for text, _ in runs) == hit.snippet
    # first seen in round 2, last in round 3, gone in round 4; in local time
    assert hit.gone_at is not None
    assert round((hit.last_seen - hit.first_seen) / DAY) == 25
    assert round((hit.gone_at - hit.last_seen) / DAY) == 25
    seen = model.index(0, 0).data(SEEN_ROLE)
    assert seen == (
        f"First seen {local_time(hit.first_seen)} · last seen {local_time(hit.last_seen)} · "
        f"gone {local_time(hit.gone_at)} (local time)"
    )
    assert hit.captures == 2
    assert panel.count_label.text() == "1 page matches"
    # its timeline: one period, from the second round to the third, gone at the fourth
    (period,) = hit.periods
    assert (period.start, period.end, period.gone) == (hit.first_seen, hit.last_seen, hit.gone_at)
    # over the project's time: its first round to its last, 75 days
    span = panel.delegate.span
    assert span is not None and span.end == hit.gone_at
    assert round((hit.first_seen - span.start) / DAY) == 25
    marks = bar(hit.periods, span, 301)
    assert marks.present == ((100, 200),)  # rounds 25 days apart: a third of the span
    assert marks.fading == ((200, 300),)
    assert marks.gone == (300,)
    assert panel.legend.isVisible() and "(local time)" in panel.legend.text()
    shot = Path(os.environ.get("RECRAWL_SCREENSHOTS", tmp_path)) / "search-panel.png"
    assert window.grab().save(str(shot)) and shot.stat().st_size > 0

    # words both pages have: both, best first; -excluded leaves one out
    type_query(qtbot, panel, "ferry")
    assert {model.index(r, 0).data(HIT_ROLE).url for r in range(model.rowCount())} == {
        server.url("/harbour"),
        server.url("/ferry"),
    }
    type_query(qtbot, panel, "ferry -council")
    assert [model.index(r, 0).data(HIT_ROLE).url for r in range(model.rowCount())] == [
        server.url("/ferry")
    ]
    window.close()


def test_the_site_and_time_filters_narrow_the_captures_that_count(qtbot, crawled, prefs, server):
    other = httpserver.TestServer(address="127.0.0.2").start()
    try:
        other.html("/", article("The harbour wall of the other town stands.", title="Other"))
        inject([other.url("/")], utcnow())
        crawl(crawled, clock=clock_at(80 * DAY))
    finally:
        other.stop()
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    qtbot.waitUntil(lambda: panel.site.findData("127.0.0.2") >= 0)
    assert panel.site.itemText(0) == "All sites" and panel.site.findData("127.0.0.1") >= 0
    type_query(qtbot, panel, "harbour wall")
    assert panel.model.rowCount() == 2
    with qtbot.waitSignal(panel.sig_shown):
        panel.site.setCurrentIndex(panel.site.findData("127.0.0.1"))
        panel.site.activated.emit(panel.site.currentIndex())  # as a user's choice does
    assert [h.url for h in panel.model.hits()] == [server.url("/harbour")]
    first = panel.model.hits()[0]
    # until a day after its first match: the text was there at the last capture counted
    until = (first.first_seen + DAY).replace(tzinfo=UTC).timestamp()
    panel.until.setDateTime(QDateTime.fromSecsSinceEpoch(int(until)))  # shown in local time
    with qtbot.waitSignal(panel.sig_shown):
        panel.until_check.setChecked(True)
    assert panel.answer.asked.until == first.first_seen + DAY
    (hit,) = panel.model.hits()
    assert hit.first_seen == first.first_seen == hit.last_seen and hit.gone_at is None
    # since after it went: no page of the site says it
    since = (first.gone_at + DAY).replace(tzinfo=UTC).timestamp()
    panel.since.setDateTime(QDateTime.fromSecsSinceEpoch(int(since)))
    with qtbot.waitSignal(panel.sig_shown):
        panel.until_check.setChecked(False)
    with qtbot.waitSignal(panel.sig_shown):
        panel.since_check.setChecked(True)
    assert panel.model.rowCount() == 0
    assert panel.count_label.text() == "No page matches"
    window.close()


def test_an_invalid_query_says_so_in_one_line_and_a_quote_left_open_is_noted(qtbot, crawled, prefs):
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    type_query(qtbot, panel, "-")
    assert panel.model.rowCount() == 0
    assert panel.answer.error is not None
    assert panel.message.text() == panel.answer.error and "\n" not in panel.message.text()
    assert "b00020" in panel.message.styleSheet()  # red: an error
    type_query(qtbot, panel, '"harbour wall')
    assert panel.model.rowCount() == 1
    assert panel.message.text() == "A quote was not closed: the phrase runs to the end of the query"
    assert "b00020" not in panel.message.styleSheet()
    assert window.statusBar().currentMessage() == ""  # nothing but the line
    window.close()


def test_ctrl_f_focuses_the_field_from_another_panel(qtbot, crawled, prefs):
    window = open_window(qtbot, crawled, prefs)
    window.show_panel("pages")
    assert window.current_panel().key == "pages"
    panel = search_panel(qtbot, window)
    assert window.current_panel() is panel
    qtbot.waitUntil(panel.query_edit.hasFocus)
    panel.query_edit.setText("ferry")
    window.show_panel("storage")
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.current_panel() is panel
    qtbot.waitUntil(panel.query_edit.hasFocus)
    assert panel.query_edit.selectedText() == "ferry"  # typing replaces it
    # in the View menu with its shortcut; the other panels keep Ctrl+1…9
    view = next(m for m in window.menuBar().actions() if m.text() == "&View").menu()
    shortcuts = {a.text(): a.shortcut().toString() for a in view.actions()}
    assert shortcuts["Search"] == "Ctrl+F"
    assert shortcuts["Storage"] == "Ctrl+9" and shortcuts["What's new"] == "Ctrl+1"
    window.close()


def test_the_actions_open_the_matching_captures_and_the_diffs_where_it_came_and_went(
    qtbot, crawled, prefs, server
):
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    type_query(qtbot, panel, '"harbour wall will close"')
    hit = panel.current_hit()
    assert hit is not None
    pages = window.panels["pages"]

    # Show content: the last match (the default), from the keyboard: Down, then Enter
    qtbot.keyClick(panel.query_edit, Qt.Key.Key_Down)
    qtbot.waitUntil(panel.results.hasFocus)
    qtbot.keyClick(panel.results, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pages.detail.content_dialog is not None)
    dialog = pages.detail.content_dialog
    assert SENTENCE in dialog.text.toPlainText()
    assert local_time(hit.last_seen, seconds=True) in dialog.windowTitle()
    dialog.close()
    pages.detail.content_dialog = None
    panel.which.setCurrentIndex(panel.which.findData("first"))
    panel.content_button.click()
    qtbot.waitUntil(lambda: pages.detail.content_dialog is not None)
    assert local_time(hit.first_seen, seconds=True) in pages.detail.content_dialog.windowTitle()
    pages.detail.content_dialog.close()

    # Diff where it appeared: the capture before the first match → the first match
    panel.appeared_button.click()
    diff = pages.detail.diff_dialog
    assert diff is not None
    qtbot.waitUntil(lambda: diff.view.page is not None)
    assert diff.view.page.new_date == hit.first_seen
    assert diff.view.page.old_date < hit.first_seen
    assert diff.view.summary.text() == "1 paragraph added"
    assert SENTENCE in diff.view.text.toPlainText()

    # Diff where it went, from the context menu: the last match → the gone capture
    menu = panel.make_menu()
    (went,) = [a for a in menu.actions() if a.text() == "Diff where it went"]
    assert went.isEnabled()
    went.trigger()
    diff = pages.detail.diff_dialog
    qtbot.waitUntil(lambda: diff.view.page is not None)
    assert (diff.view.page.old_date, diff.view.page.new_date) == (hit.last_seen, hit.gone_at)
    assert diff.view.summary.text() == "1 paragraph removed"
    diff.close()

    # Open capture in browser: the capture's replay, as the Pages panel opens it
    with qtbot.waitSignal(panel.sig_open_capture) as opened:
        (action,) = [a for a in menu.actions() if a.text().startswith("Open the first match")]
        action.trigger()
    assert opened.args == [hit.url, hit.first_seen]
    window.close()


def test_an_incomplete_index_is_built_with_its_progress_and_results_meanwhile(
    qtbot, crawled, prefs
):
    clear_index_of(crawled)  # a project archived before search: nothing indexed
    window = open_window(qtbot, crawled, prefs)
    panel = window.panels["search"]
    progress: list[tuple[int, int]] = []
    panel.index_job.sig_progress.connect(lambda done, total: progress.append((done, total)))
    with qtbot.waitSignal(panel.index_job.sig_idle):
        window.show_search()
        qtbot.waitUntil(lambda: panel.index_label.isVisible())
        assert panel.index_label.text().startswith("Indexing")
        assert panel.index_button.text() == "Stop"
    assert progress and progress[-1][0] == progress[-1][1] > 0
    assert panel.index_label.text() != "" and not panel.index_label.isVisible()
    assert panel.index_complete is True and search_state().complete
    type_query(qtbot, panel, "harbour")
    assert panel.model.rowCount() == 1
    window.close()


def test_the_build_stops_when_asked_and_indexes_the_rest_later(qtbot, crawled, prefs):
    clear_index_of(crawled)
    window = open_window(qtbot, crawled, prefs)
    panel = window.panels["search"]
    real, gate = panel.index_job._build, threading.Event()

    def held_at_its_start(progress, should_stop):
        def report(done, total):
            progress(done, total)
            if done == 0:  # Stop is clicked before the first batch
                assert gate.wait(30)

        return real(report, should_stop)

    panel.index_job._build = held_at_its_start
    window.show_search()
    qtbot.waitUntil(lambda: panel.index_label.text().startswith("Indexing 0 of "))
    assert panel.index_progress.isVisible()
    with qtbot.waitSignal(panel.index_job.sig_idle):
        panel.index_button.click()
        assert panel.index_label.text() == "Stopping after the batch in hand…"
        gate.set()
    assert panel.index_label.text().startswith("Indexing stopped at 0 of ")
    assert panel.index_button.text() == "Index the rest" and panel.index_button.isEnabled()
    assert not search_state().complete
    type_query(qtbot, panel, "harbour")
    assert panel.model.rowCount() == 0  # nothing indexed yet
    # the query runs again once the rest is indexed
    with qtbot.waitSignal(panel.sig_shown), qtbot.waitSignal(panel.index_job.sig_idle):
        panel.index_button.click()
    assert search_state().complete and not panel.index_label.isVisible()
    assert panel.model.rowCount() == 1
    window.close()


def clear_index_of(project) -> None:
    from recrawl.core.store.search import clear_index
    from recrawl.core.store.sql import writing

    with writing():
        clear_index()
        set_search_state(STALE)


def test_the_snippet_is_laid_out_with_its_matches_bold_in_two_lines_at_most(qtbot, crawled, prefs):
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    type_query(qtbot, panel, "harbour repairs")
    runs = panel.model.index(0, 0).data(RUNS_ROLE)
    layout = snippet_layout(runs, panel.results.font(), 120)
    text = layout.text()
    bold = [text[r.start : r.start + r.length] for r in layout.formats()]
    assert [w.casefold() for w in bold] == ["harbour", "repairs"]
    assert all(r.format.fontWeight() == QFont.Weight.Bold for r in layout.formats())
    assert layout.lineCount() == 2  # a narrow row: the rest of the snippet is cut
    # the list paints its rows (a Qt warning would fail the test)
    assert not panel.results.viewport().grab().isNull()
    window.close()


def test_an_answer_overtaken_by_a_newer_query_is_dropped(
    qtbot, crawled, prefs, server, monkeypatch
):
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    asked_newer = threading.Event()
    real = search_jobs.search
    ran: list[str] = []

    def searching(text, **kwargs):
        ran.append(text)
        if text == "ferry":  # still searching when the newer query is asked
            assert asked_newer.wait(30)
        return real(text, **kwargs)

    monkeypatch.setattr(search_jobs, "search", searching)
    shown: list[str] = []
    panel.sig_shown.connect(lambda: shown.append(panel.answer.asked.text))
    panel.query_edit.setText("ferry")
    panel.run_query()
    qtbot.waitUntil(lambda: ran == ["ferry"])
    panel.query_edit.setText("harbour")
    panel.run_query()  # queued behind the one searching
    asked_newer.set()
    qtbot.waitUntil(lambda: shown == ["harbour"])
    assert ran == ["ferry", "harbour"]
    assert [h.url for h in panel.model.hits()] == [server.url("/harbour")]

    # queries asked while another waits its turn are not run at all: only the last
    gate = threading.Event()
    window.context.jobs.submit(lambda: gate.wait(30), lambda _: None)
    for text in ("fer", "ferr", "ferry"):
        panel.query_edit.setText(text)
        panel.run_query()
    gate.set()
    qtbot.waitUntil(lambda: shown[-1:] == ["ferry"])
    assert ran[2:] == ["ferry"] and shown == ["harbour", "ferry"]
    window.close()


def test_a_new_round_searches_again_keeping_the_chosen_page_and_a_return_is_a_second_period(
    qtbot, crawled, prefs, server
):
    window = open_window(qtbot, crawled, prefs)
    panel = search_panel(qtbot, window)
    type_query(qtbot, panel, "ferry")
    ferry = [h.url for h in panel.model.hits()].index(server.url("/ferry"))
    panel.results.setCurrentIndex(panel.model.index(ferry, 0))
    before = panel.answer
    # the sentence comes back in a fifth round
    server.html("/harbour", article(PLAIN, SENTENCE))
    crawl(crawled, clock=clock_at(100 * DAY))
    with qtbot.waitSignal(panel.sig_shown):
        window.context.changes.sig_pages.emit()  # what the app says after a round
    assert panel.answer is not before
    assert panel.current_hit().url == server.url("/ferry")
    type_query(qtbot, panel, '"harbour wall"')
    (hit,) = panel.model.hits()
    assert len(hit.periods) == 2 and hit.gone_at is None
    assert hit.periods[0].gone is not None and hit.periods[1].start > hit.periods[0].gone
    assert panel.model.index(0, 0).data(SEEN_ROLE).endswith("still there (local time)")
    assert not panel.went_button.isEnabled()  # it has not gone (again)
    marks = bar(hit.periods, panel.delegate.span, 401)
    assert len(marks.present) == 2 and len(marks.gone) == 1
    window.close()
