"""The Change rules editor on a real project (issue 28): an article whose ticker changes
at every fetch, previewed, saved, deleted through the real changes service; a bad
selector or pattern says the core's line and saves nothing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from recrawl.core.policy.change_rules import ChangeRule, project_rules
from recrawl.gui.changes.change_rules_dialog import ChangeRulesDialog
from recrawl.gui.common import formatting
from recrawl.gui.main_window import MainWindow

from tests.gui.helpers import open_window
from tests.support.ticker_article import TICKERS, crawl_ticker_history


@pytest.fixture
def ticker(project, server) -> str:
    return crawl_ticker_history(project, server)


def open_editor(qtbot, window: MainWindow, prefix: str) -> ChangeRulesDialog:
    window.edit_change_rules(prefix)
    editor = window.change_rules
    assert editor is not None
    qtbot.waitUntil(lambda: editor.loaded and editor.prefix.text() == prefix)
    return editor


def click(qtbot, button) -> None:
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def host(url: str) -> str:
    return url.split("/")[2]


def test_a_preview_counts_the_fetches_judged_otherwise_and_opens_one(qtbot, project, prefs, ticker):
    window = open_window(qtbot, project, prefs)
    editor = open_editor(qtbot, window, host(ticker))
    editor.remove.setPlainText(".ticker")
    progress = []
    editor.preview_job.sig_progress.connect(progress.append)
    click(qtbot, editor.preview_button)
    assert editor.bar.isVisible() and editor.stop_button.isVisible()
    assert not editor.save_button.isEnabled()  # one job at a time
    qtbot.waitUntil(lambda: editor.preview is not None and not editor.busy)
    preview = editor.preview
    # fetch 2 changed only its ticker: unchanged under the rule; fetch 3 added a paragraph
    assert preview.judged == 2  # the article's two refetches (robots.txt has one capture)
    assert (preview.to_unchanged, preview.to_changed) == (1, 0)
    assert editor.preview_label.text().startswith(
        "1 past fetch would have been unchanged instead of changed, 0 the reverse"
    )
    assert not editor.bar.isVisible() and editor.save_button.isEnabled()
    assert progress and progress[-1].done == progress[-1].captures
    assert editor.examples.rowCount() == 1
    cells = [editor.examples.index(0, c).data() for c in range(4)]
    example = preview.examples[0]
    assert cells == [
        ticker,
        formatting.local_time(example.at, seconds=True),
        "changed",
        "unchanged",
    ]
    assert project_rules().rules == ()  # a preview saves nothing

    # the example's two captures, in the Pages panel's diff window
    rect = editor.examples_view.visualRect(editor.examples.index(0, 0))
    viewport = editor.examples_view.viewport()
    # as a mouse does it: the view takes a double click on the row it was pressed on
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    assert editor.diff_button.isEnabled()
    qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    dialog = window.panels["pages"].detail.diff_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.view.page is not None)
    page = dialog.view.page
    assert (page.old_date, page.new_date) == (example.before, example.at)
    rows = [(row.kind, row.old, row.new) for row in page.rows if row.kind != "equal"]
    assert rows == [("removed", TICKERS[0], None), ("added", None, TICKERS[1])]
    window.close()


def test_save_keeps_the_rule_and_re_signs_its_page_then_delete_drops_it(
    qtbot, project, prefs, ticker
):
    window = open_window(qtbot, project, prefs)
    editor = open_editor(qtbot, window, host(ticker))
    editor.remove.setPlainText(".ticker\n")
    editor.added_only.setChecked(True)
    policy = []
    window.context.changes.sig_policy.connect(lambda: policy.append(True))
    click(qtbot, editor.save_button)
    assert editor.bar.isVisible()
    qtbot.waitUntil(lambda: not editor.busy and editor.status.text().startswith("Saved"))
    assert editor.status.text().startswith("Saved: 1 page re-signed")
    assert project_rules().rules == (
        ChangeRule(host(ticker), remove=(".ticker",), added_only=True),
    )
    assert policy  # the panels read the project's policy again
    qtbot.waitUntil(lambda: editor.rules_model.rowCount() == 1)
    assert editor.rules_model.index(0, 1).data() == "remove 1 selector, added text only"
    assert editor.delete_button.isEnabled()

    click(qtbot, editor.delete_button)
    qtbot.waitUntil(lambda: not editor.busy and editor.status.text().startswith("Deleted"))
    assert project_rules().rules == ()
    qtbot.waitUntil(lambda: editor.rules_model.rowCount() == 0)
    assert editor.empty.isVisible()
    assert editor.remove.toPlainText() == ".ticker"  # the form keeps it: Save puts it back
    assert not editor.delete_button.isEnabled()
    window.close()


@pytest.mark.parametrize(
    ("box", "text", "says"),
    [
        ("remove", "p[", "--remove 'p[' is not a CSS selector"),
        ("only", "article >> p", "--only 'article >> p' is not a CSS selector"),
        ("ignore", "Updated (\\d+", "--ignore invalid pattern"),
    ],
)
def test_a_bad_selector_or_pattern_says_the_cores_line_and_saves_nothing(
    qtbot, project, prefs, ticker, box, text, says
):
    window = open_window(qtbot, project, prefs)
    editor = open_editor(qtbot, window, host(ticker))
    getattr(editor, box).setPlainText(f"{text}\n")
    for button in (editor.save_button, editor.preview_button):
        click(qtbot, button)
        qtbot.waitUntil(lambda: not editor.busy and editor.error.isVisible())
        line = editor.error.text()
        assert line.startswith(f"change rule {host(ticker)}: ") and says in line
        assert "\n" not in line
        assert project_rules().rules == ()
        assert editor.preview is None and not editor.bar.isVisible()
    editor.ignore.setPlainText("")  # editing the form clears the line
    assert not editor.error.isVisible()
    window.close()


def test_stop_ends_a_preview_and_the_editor_is_ready_again(qtbot, project, prefs, ticker):
    window = open_window(qtbot, project, prefs)
    editor = open_editor(qtbot, window, host(ticker))
    editor.ignore.setPlainText("Trending now: .*")
    click(qtbot, editor.preview_button)
    click(qtbot, editor.stop_button)
    assert not editor.stop_button.isEnabled() and editor.status.text() == "Stopping…"
    qtbot.waitUntil(lambda: editor.preview is not None and not editor.busy)
    # stopped before the end, or done first (a history of two pairs is quickly judged)
    said = editor.preview_label.text()
    assert ("Stopped before the end" in said) == editor.preview.stopped
    assert not editor.bar.isVisible() and editor.preview_button.isEnabled()
    assert editor.form.isEnabled()
    window.close()


def test_a_save_goes_on_with_the_editor_closed_and_shows_when_it_opens_again(
    qtbot, project, prefs, ticker
):
    window = open_window(qtbot, project, prefs)
    editor = open_editor(qtbot, window, host(ticker))
    editor.only.setPlainText("article p:not(.ticker)")
    click(qtbot, editor.save_button)
    assert not editor.form.isEnabled()  # the rule being saved is not edited meanwhile
    editor.reject()
    assert not editor.isVisible()
    qtbot.waitUntil(lambda: not editor.busy)
    assert project_rules().rules == (ChangeRule(host(ticker), only=("article p:not(.ticker)",)),)
    window.edit_change_rules()
    assert window.change_rules is editor and editor.isVisible()
    assert editor.status.text().startswith("Saved: 1 page re-signed")
    window.close()
