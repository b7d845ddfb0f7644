"""The notify.urls editor: one row a URL, each with its own test and what it said."""

from __future__ import annotations

from PySide6.QtCore import Qt
from recrawl.gui.settings.notify_urls import NotifyUrlsEditor


def test_rows_hold_the_urls_and_each_test_answers_in_its_own_row(qtbot):
    editor = NotifyUrlsEditor()
    qtbot.addWidget(editor)
    editor.set_urls(["json://127.0.0.1:9/a", "ntfys://ntfy.sh/recrawl"])
    assert editor.urls() == ["json://127.0.0.1:9/a", "ntfys://ntfy.sh/recrawl"]
    assert not editor.empty.isVisibleTo(editor)
    first, second = editor.rows
    with qtbot.waitSignal(editor.sig_send_test) as asked:
        qtbot.mouseClick(second.test, Qt.MouseButton.LeftButton)
    assert asked.args == [second.key, "ntfys://ntfy.sh/recrawl"]
    assert not second.test.isEnabled() and second.test.text() == "Sending…"
    # the first row is removed while the second's test is under way
    with qtbot.waitSignal(editor.sig_edited):
        qtbot.mouseClick(first.remove, Qt.MouseButton.LeftButton)
    editor.show_result(first.key, None)  # an answer for a row gone: dropped
    editor.show_result(second.key, "connection refused")
    assert editor.urls() == ["ntfys://ntfy.sh/recrawl"]
    assert editor.result_text(0) == "Not sent: connection refused"
    assert second.test.isEnabled()
    qtbot.mouseClick(second.test, Qt.MouseButton.LeftButton)
    editor.show_result(second.key, None)
    assert editor.result_text(0) == "Sent: the service took the test message."


def test_an_empty_row_has_no_test_and_is_not_a_url(qtbot):
    editor = NotifyUrlsEditor()
    qtbot.addWidget(editor)
    editor.set_urls([])
    assert editor.empty.isVisibleTo(editor)
    with qtbot.waitSignal(editor.sig_edited):
        qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    row = editor.rows[0]
    assert not row.test.isEnabled() and editor.urls() == []
    qtbot.keyClicks(row.url, "json://127.0.0.1:9/")
    assert row.test.isEnabled() and editor.urls() == ["json://127.0.0.1:9/"]
