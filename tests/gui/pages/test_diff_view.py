"""The diff view and "Show content" of a chosen capture (issue 13, point 4), offscreen.

A real server changes an article between three crawl rounds at shifted clocks: a
corrected number, then an added paragraph. The history table's rows are chosen as a
user would (clicks, Ctrl+click), and what the windows show is read back.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, save_rules
from recrawl.gui.common import formatting
from recrawl.gui.pages.diff_jobs import ADDED_WORDS, REMOVED_WORDS
from recrawl.gui.pages.pages_panel import PagesPanel

from tests.gui.helpers import open_window, select_page
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.httpserver import Reply
from tests.support.realdocs import python_docs
from tests.support.screenshots import Capture, browser_captures, png
from tests.support.ticker_article import TICKERS, crawl_ticker_history

WRONG = (
    "The summit of the mountain is 2,435 m above the sea, which makes it the highest "
    "point of the range; it draws thousands of climbers every summer."
)
RIGHT = WRONG.replace("2,435", "2,345")
ROUTE = "The normal route starts at the hut and takes about six hours in good weather."
ADDED = "A new cable car opened in the autumn, which shortens the approach by two hours."


def article(*paragraphs: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        "<html><head><title>The mountain</title></head><body>"
        "<nav><a href='/'>Home</a></nav>"
        f"<article><h1>The mountain</h1>{body}</article></body></html>"
    )


@pytest.fixture
def crawled(project, server):
    choices.set_schedule(None, ["min@127.0.0.1=1h", "max@127.0.0.1=20d"])
    server.html("/", article(WRONG, ROUTE))
    inject([server.url("/")], utcnow())
    crawl(project, clock=clock_at())
    server.html("/", article(RIGHT, ROUTE))
    crawl(project, clock=clock_at(25 * DAY))
    server.html("/", article(RIGHT, ROUTE, ADDED))
    crawl(project, clock=clock_at(60 * DAY))
    return project


def open_page(qtbot, window, url: str) -> PagesPanel:
    panel = select_page(qtbot, window, url)
    assert panel.detail.history.rowCount() == 3
    return panel


def click_rows(qtbot, panel: PagesPanel, *rows: int) -> None:
    """Click the first row, Ctrl+click the others (as a user chooses two)."""
    view = panel.detail.history_view
    for number, row in enumerate(rows):
        rect = view.visualRect(panel.detail.history.index(row, 0))
        modifier = Qt.KeyboardModifier.ControlModifier if number else Qt.KeyboardModifier.NoModifier
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())
    assert sorted(i.row() for i in view.selectionModel().selectedRows()) == sorted(rows)


def fetched_at(panel: PagesPanel, row: int):
    return panel.detail.history.row(row)[0]


def local(instant) -> str:
    return formatting.local_time(instant.replace(microsecond=0), seconds=True)


def test_compare_two_history_rows_shows_both_dates_and_the_changed_words(
    qtbot, crawled, prefs, server, tmp_path
):
    window = open_window(qtbot, crawled, prefs)
    url = server.url("/")
    panel = open_page(qtbot, window, url)
    detail = panel.detail
    assert not detail.compare_button.isEnabled()  # nothing chosen yet
    click_rows(qtbot, panel, 0, 1)
    assert detail.compare_button.isEnabled()
    assert not detail.content_button.isEnabled()  # which of the two?
    qtbot.mouseClick(detail.compare_button, Qt.MouseButton.LeftButton)
    dialog = detail.diff_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.view.page is not None, timeout=30_000)
    view = dialog.view
    assert view.old_header.text() == f"Before: captured {local(fetched_at(panel, 0))} (local time)"
    assert view.new_header.text() == f"After: captured {local(fetched_at(panel, 1))} (local time)"
    assert view.summary.text() == "1 paragraph changed"
    page_html = view.page.html
    assert f'<span style="background-color: {REMOVED_WORDS}">2,435</span>' in page_html
    assert f'<span style="background-color: {ADDED_WORDS}">2,345</span>' in page_html
    text = view.text.toPlainText()
    assert "2,435" in text and "2,345" in text and "Home" not in text
    shot = Path(os.environ.get("RECRAWL_SCREENSHOTS", tmp_path)) / "diff-view.png"
    assert dialog.grab().save(str(shot)) and shot.stat().st_size > 0

    # one row: that capture against the one before it
    click_rows(qtbot, panel, 2)
    detail.compare_selected()
    dialog = detail.diff_dialog
    qtbot.waitUntil(lambda: dialog.view.page is not None, timeout=30_000)
    assert dialog.view.page.old_date == fetched_at(panel, 1).replace(microsecond=0)
    assert dialog.view.summary.text() == "1 paragraph added"
    assert ADDED in dialog.view.text.toPlainText()
    window.close()


def test_show_content_shows_the_selected_capture_with_its_date(qtbot, crawled, prefs, server):
    window = open_window(qtbot, crawled, prefs)
    panel = open_page(qtbot, window, server.url("/"))
    detail = panel.detail
    click_rows(qtbot, panel, 0)
    qtbot.mouseClick(detail.content_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: detail.content_dialog is not None)
    dialog = detail.content_dialog
    assert "2,435" in dialog.text.toPlainText() and "2,345" not in dialog.text.toPlainText()
    assert local(fetched_at(panel, 0)) in dialog.windowTitle()
    dialog.close()
    # no row chosen: the latest capture
    detail.history_view.selectionModel().clearSelection()
    detail.content_dialog = None
    qtbot.mouseClick(detail.content_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: detail.content_dialog is not None)
    assert ADDED in detail.content_dialog.text.toPlainText()
    assert local(fetched_at(panel, 2)) in detail.content_dialog.windowTitle()
    window.close()


def test_the_main_window_opens_a_pages_latest_change(qtbot, crawled, prefs, server):
    window = open_window(qtbot, crawled, prefs)
    window.show_page_diff(server.url("/"))
    panel = window.panels["pages"]
    assert isinstance(panel, PagesPanel)
    dialog = panel.detail.diff_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.view.page is not None, timeout=30_000)
    assert dialog.view.summary.text() == "1 paragraph added"
    assert dialog.view.page.new_date.replace(microsecond=0) == dialog.view.page.new_date
    window.close()


def test_a_news_items_change_opens_that_change_not_the_latest(qtbot, crawled, prefs, server):
    # the What's new panel's double-click on the older "changed" item of two
    url = server.url("/")
    changed = [item for item in store.news_items() if item.kind == "changed"]
    assert len(changed) == 2
    older = min(changed, key=lambda item: item.at)
    window = open_window(qtbot, crawled, prefs)
    window.show_page_diff(url, older.at)
    dialog = window.panels["pages"].detail.diff_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.view.page is not None, timeout=30_000)
    assert dialog.view.summary.text() == "1 paragraph changed"  # 2,435 -> 2,345, not ADDED
    assert "2,345" in dialog.view.page.html and ADDED not in dialog.view.text.toPlainText()
    window.close()


def test_a_fetch_without_capture_says_so(qtbot, crawled, prefs, server):
    window = open_window(qtbot, crawled, prefs)
    panel = open_page(qtbot, window, server.url("/"))
    click_rows(qtbot, panel, 0)
    panel.detail.compare_selected()  # the first capture: nothing before it
    dialog = panel.detail.diff_dialog
    qtbot.waitUntil(lambda: "Cannot compare" in dialog.view.summary.text())
    assert "first" in dialog.view.summary.text()
    window.close()


def test_the_history_context_menu_compares_too(qtbot, crawled, prefs, server):
    window = open_window(qtbot, crawled, prefs)
    panel = open_page(qtbot, window, server.url("/"))
    detail = panel.detail
    click_rows(qtbot, panel, 0, 2)
    compare, content, capture = detail.make_history_menu().actions()
    assert (compare.text(), compare.isEnabled()) == ("Compare", True)
    assert (content.text(), content.isEnabled()) == ("Show content", False)
    # two captures chosen: the browser opens one at a time
    assert (capture.text(), capture.isEnabled()) == ("Open capture in browser", False)
    compare.trigger()
    dialog = detail.diff_dialog
    qtbot.waitUntil(lambda: dialog.view.page is not None, timeout=30_000)
    assert dialog.view.summary.text() == "1 paragraph added, 1 changed"
    window.close()


# -- a real documentation page: its paragraphs whole, unchanged runs folded ---------------

ABS = b"Return the absolute value of a number."
ABS_REAL = b"Return the absolute value of a real number."


@pytest.fixture
def docs_crawled(project, server):
    """Debian's Python documentation page of the built-in functions, crawled twice: the
    second time with one word added to abs()'s paragraph (which spans three lines of
    its markup)."""
    page = (python_docs() / "library" / "functions.html").read_bytes()
    assert page.count(ABS) == 1
    url = server.url("/functions.html")
    # the page alone (not the rest of the documentation its links lead to)
    choices.set_chain(f"[[filter]]\nkind = 'prefix'\nname = 'page'\nrules = '''\n{url}\n'''\n")
    choices.set_schedule(None, ["min@127.0.0.1=1h", "max@127.0.0.1=20d"])
    server.routes["/functions.html"] = Reply(200, page, {"Content-Type": "text/html"})
    inject([url], utcnow())
    crawl(project, clock=clock_at())
    changed = page.replace(ABS, ABS_REAL)
    server.routes["/functions.html"] = Reply(200, changed, {"Content-Type": "text/html"})
    crawl(project, clock=clock_at(25 * DAY))
    return url


def click_link(qtbot, browser: QTextBrowser, text: str) -> str:
    """Click the link that shows ``text`` in ``browser``, as a reader does; its href."""
    found = browser.document().find(text)
    assert not found.isNull(), f"no {text!r} in the view"
    cursor = QTextCursor(browser.document())
    cursor.setPosition(found.selectionStart() + 2)
    browser.setTextCursor(cursor)
    browser.ensureCursorVisible()
    at = browser.cursorRect(cursor).center() + QPoint(2, 0)
    href = browser.anchorAt(at)
    assert href, f"{text!r} is no link"
    with qtbot.waitSignal(browser.anchorClicked):
        qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=at)
    return href


def test_a_real_doc_pages_diff_shows_whole_paragraphs_and_unfolds_unchanged_ones(
    qtbot, project, docs_crawled, prefs, tmp_path
):
    window = open_window(qtbot, project, prefs)
    window.show_page_diff(docs_crawled)
    dialog = window.panels["pages"].detail.diff_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.view.page is not None, timeout=60_000)
    view = dialog.view
    assert view.summary.text() == "1 paragraph changed"
    (changed,) = [row for row in view.page.rows if row.kind == "changed"]
    # the whole paragraph, its three lines of markup one line of text
    assert changed.new is not None and changed.new.startswith(ABS_REAL.decode())
    assert changed.new.endswith("If the argument is a complex number, its magnitude is returned.")
    assert changed.old == changed.new.replace(" real", "")
    rows = view.page.rows
    assert not any("¶" in (row.new or "") + (row.old or "") for row in rows)
    shots = Path(os.environ.get("RECRAWL_SCREENSHOTS", tmp_path))
    assert dialog.grab().save(str(shots / "diff-docs-folded.png"))

    # the unchanged paragraphs after the change: folded into one line, shown on a click
    after = [i for i, row in enumerate(rows) if row.kind == "equal" and i > rows.index(changed)]
    hidden = after[3:]  # three paragraphs of context stay
    hidden_text = rows[hidden[5]].new
    assert hidden_text is not None and hidden_text not in view.text.toPlainText()
    count = f"{len(hidden):,} unchanged paragraphs"
    folds = view.text.toPlainText().count("(click to show)")
    href = click_link(qtbot, view.text, f"{count} (click to show)")
    assert href == f"fold:{hidden[0]}"
    assert hidden_text in view.text.toPlainText()
    assert f"hide these {count}" in view.text.toPlainText()
    assert view.text.toPlainText().count("(click to show)") == folds - 1
    assert dialog.grab().save(str(shots / "diff-docs-unfolded.png"))

    # and folded again
    click_link(qtbot, view.text, f"hide these {count}")
    assert hidden_text not in view.text.toPlainText()
    assert view.text.toPlainText().count("(click to show)") == folds
    window.close()


# -- screenshots (issue 27, point 5) ------------------------------------------------------

SHOT_URL = "http://127.0.0.1:9/mountain"
GREY = (120, 120, 120, 255)


def screenshot_pair(project, first: bytes, second: bytes | None) -> None:
    browser_captures(
        project.path,
        SHOT_URL,
        [
            Capture(T0, article(WRONG, ROUTE), first),
            Capture(T0 + 2 * DAY, article(RIGHT, ROUTE), second),
        ],
    )


def compared(qtbot, window, url: str):
    panel = select_page(qtbot, window, url)
    click_rows(qtbot, panel, 0, 1)
    qtbot.mouseClick(panel.detail.compare_button, Qt.MouseButton.LeftButton)
    dialog = panel.detail.diff_dialog
    qtbot.waitUntil(lambda: dialog.view.page is not None)
    return dialog


def test_two_browser_captures_show_their_screenshots_side_by_side_with_the_pixels_changed(
    qtbot, project, prefs, tmp_path
):
    # 30 of 40 × 30 pixels differ: 2.5 %
    marks = [(x, y, (255, 0, 0, 255)) for x in range(10) for y in range(3)]
    screenshot_pair(project, png(40, 30, GREY), png(40, 30, GREY, marks))
    window = open_window(qtbot, project, prefs)
    dialog = compared(qtbot, window, SHOT_URL)
    view = dialog.view
    assert view.summary.text() == "1 paragraph changed"  # the text diff as before
    assert view.screens.isVisible()
    assert view.pixels.text() == "Screenshots: 2.5 % of pixels changed"
    old, new = view.old_image.pixmap.toImage(), view.new_image.pixmap.toImage()
    assert old.size().toTuple() == new.size().toTuple() == (40, 30)
    assert old.pixelColor(0, 0).getRgb() == GREY  # before on the left
    assert new.pixelColor(0, 0).getRgb() == (255, 0, 0, 255)  # after on the right
    assert new.pixelColor(10, 3).getRgb() == GREY
    # the changed pixels marked on the right when asked for, the others as they were
    view.mark.click()
    marked = view.new_image.pixmap.toImage()
    assert marked.pixelColor(0, 0).getRgb() == (255, 0, 255 * 4 // 5, 255)  # red under magenta
    assert marked.pixelColor(10, 3).getRgb() == GREY
    # both drawn, each in its half
    assert view.old_image.image_rect().width() > 0 and view.new_image.image_rect().width() > 0
    assert view.old_image.mapTo(view, view.old_image.rect().topLeft()).x() < view.new_image.x()
    shot = Path(os.environ.get("RECRAWL_SCREENSHOTS", tmp_path)) / "diff-screenshots.png"
    assert dialog.grab().save(str(shot))
    window.close()


def test_screenshots_of_different_sizes_count_what_only_one_covers_as_changed(
    qtbot, project, prefs
):
    screenshot_pair(project, png(40, 30, GREY), png(40, 40, GREY))  # 400 of 1,600 pixels
    window = open_window(qtbot, project, prefs)
    view = compared(qtbot, window, SHOT_URL).view
    assert view.pixels.text() == (
        "Screenshots: 25.0 % of pixels changed (the sizes differ, 40 × 30 and 40 × 40: the "
        "area both cover is compared, the rest counts as changed)"
    )
    window.close()


def test_a_capture_without_a_screenshot_shows_none_and_says_why(qtbot, project, prefs):
    screenshot_pair(project, png(40, 30, GREY), None)
    window = open_window(qtbot, project, prefs)
    view = compared(qtbot, window, SHOT_URL).view
    assert not view.screens.isVisible() and view.page.visual is None
    when = formatting.local_time(T0 + 2 * DAY, seconds=True)
    assert view.notes.isVisible()
    assert f"no screenshots compared: the capture of {when} has none" in view.notes.text()
    window.close()


def test_an_http_page_diff_shows_no_screenshots(qtbot, crawled, prefs, server):
    window = open_window(qtbot, crawled, prefs)
    view = compared(qtbot, window, server.url("/")).view
    assert view.page.visual is None and not view.screens.isVisible()
    assert "screenshot" not in view.notes.text()
    window.close()


# -- "Ignore this text…" (issue 28) ---------------------------------------------------------


def select_text(browser: QTextBrowser, text: str) -> None:
    """Select ``text`` in ``browser`` as a reader's drag over it does."""
    found = browser.document().find(text)
    assert not found.isNull(), f"no {text!r} in the view"
    browser.setTextCursor(found)


def latest_diff_dialog(qtbot, window, url: str):
    window.show_page_diff(url)
    dialog = window.panels["pages"].detail.diff_dialog
    qtbot.waitUntil(lambda: dialog.view.page is not None)
    return dialog


def test_ignore_this_text_opens_the_rule_of_the_pages_host_with_the_selection(
    qtbot, project, prefs, server
):
    url = crawl_ticker_history(project, server)
    window = open_window(qtbot, project, prefs)
    dialog = latest_diff_dialog(qtbot, window, url)
    view = dialog.view
    assert not view.ignore_button.isEnabled()  # nothing selected yet
    assert not next(
        a for a in view.make_menu().actions() if a.text() == "Ignore this text…"
    ).isEnabled()
    select_text(view.text, TICKERS[2])
    assert view.ignore_button.isEnabled()
    menu_action = next(a for a in view.make_menu().actions() if a.text() == "Ignore this text…")
    assert menu_action.isEnabled()
    menu_action.trigger()
    editor = window.change_rules
    assert editor is not None and editor.isVisible()
    qtbot.waitUntil(lambda: editor.loaded)
    host = url.split("/")[2]
    rule = editor.form_rule()
    assert rule.prefix == host  # with its port: the prefix matches the page
    assert rule.matches(url)
    assert len(rule.ignore) == 1
    # what the pattern takes out is the ticker, and the ticker alone
    assert rule.lines([TICKERS[2], TICKERS[1]]) == [TICKERS[1]]
    assert "ignore pattern" in editor.status.text()
    window.close()


def test_ignore_this_text_adds_to_the_rule_that_applies_to_the_page(qtbot, project, prefs, server):
    url = crawl_ticker_history(project, server)
    section = url.rsplit("/", 1)[0] + "/"  # http://127.0.0.1:PORT/news/
    kept = ChangeRule(section, remove=("nav",), ignore=(r"Updated \d+",), notify=False)
    other = ChangeRule(url.split("/")[2], remove=("footer",))
    save_rules(ChangeRules((kept, other)))
    window = open_window(qtbot, project, prefs)
    dialog = latest_diff_dialog(qtbot, window, url)
    select_text(dialog.view.text, TICKERS[1])
    qtbot.mouseClick(dialog.view.ignore_button, Qt.MouseButton.LeftButton)
    editor = window.change_rules
    qtbot.waitUntil(lambda: editor.loaded and editor.prefix.text() == section)
    rule = editor.form_rule()
    # the longest prefix's rule, as kept, plus the selection
    assert rule.remove == ("nav",) and not rule.notify
    assert rule.ignore[0] == r"Updated \d+" and len(rule.ignore) == 2
    assert rule.lines([f"{TICKERS[1]}", "Updated 5"]) == []
    assert editor.rules_model.rowCount() == 2
    window.close()
