"""File → Settings…: the settings `recrawl settings` shows, edited, checked and saved."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLineEdit, QPlainTextEdit, QSpinBox
from recrawl.core.config import STORABLE
from recrawl.core.policy import crawl_settings
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.gui.settings.notify_urls import NotifyUrlsEditor
from recrawl.gui.settings.settings_dialog import SettingsDialog

from tests.support.interrupted import recrawl
from tests.support.listener import Listener


def cli_settings(project) -> dict[str, dict]:
    """What ``recrawl settings DIR --json`` prints, by name (a real subprocess)."""
    done = recrawl("settings", project.path, "--json")
    return {row["name"]: row for row in json.loads(done.stdout)}


def open_settings(qtbot, window, by_key: bool = False) -> SettingsDialog:
    if by_key:
        qtbot.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    else:
        window.settings_action.trigger()  # File → Settings…
    qtbot.waitUntil(lambda: window.settings is not None and window.settings.isVisible())
    dialog = window.settings
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.loaded is not None)
    return dialog


def test_every_setting_has_an_editor_fitting_its_kind_with_default_and_help(qtbot, window):
    dialog = open_settings(qtbot, window, by_key=True)
    assert list(dialog.editors) == list(STORABLE)  # made from the core's list
    kinds = {name: type(editor.input) for name, editor in dialog.editors.items()}
    assert kinds["politeness.obey_robots"] is QCheckBox
    assert kinds["traps.max_depth"] is QSpinBox
    assert kinds["traps.allowed_patterns"] is QPlainTextEdit
    assert kinds["fetch.user_agent"] is QLineEdit
    delay = dialog.editors["watch.round_gap"]
    # a duration shown as every duration is (issue 25 item 17), taken as --set takes it
    assert (delay.input.text(), delay.text()) == ("5 min", "5m")
    assert "Default: 5 min." in delay.help.text() and "round" in delay.help.text()
    assert dialog.editors["fetch.max_body_bytes"].text() == "10M"
    assert dialog.editors["fetch.total_timeout"].text() == ""  # not set
    dialog.reject()


def test_a_value_saved_in_the_dialog_is_what_recrawl_settings_prints(qtbot, window):
    dialog = open_settings(qtbot, window)
    editors = dialog.editors
    editors["fetch.user_agent"].input.setText("Archivist/1.0 (+mailto:me@example.org)")
    editors["politeness.delay"].input.setText("0.5s")
    editors["fetch.max_body_bytes"].input.setText("512k")
    editors["watch.round_gap"].input.setText("6h")
    editors["traps.max_sequence"].input.setValue(12)
    editors["sources.enabled"].input.setChecked(False)
    editors["traps.allowed_patterns"].input.setPlainText(
        "http://example.org/cal/{n}-{n}\nhttp://example.org/p/{n}\n"
    )
    with qtbot.waitSignal(dialog.sig_saved):
        dialog.save_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible())
    rows = cli_settings(window.context.project)
    assert rows["fetch.user_agent"]["value"] == "Archivist/1.0 (+mailto:me@example.org)"
    assert rows["politeness.delay"]["value"] == 0.5
    assert rows["fetch.max_body_bytes"]["value"] == 512 * 1024
    assert rows["watch.round_gap"]["value"] == 6 * 3600
    assert rows["traps.max_sequence"]["value"] == 12
    assert rows["sources.enabled"]["value"] is False
    assert rows["traps.allowed_patterns"]["value"] == [
        "http://example.org/cal/{n}-{n}",
        "http://example.org/p/{n}",
    ]
    changed = {name for name, row in rows.items() if not row["is_default"]}
    assert len(changed) == 7
    # the Crawl panel shows the delay kept
    crawl = window.panels["crawl"]
    qtbot.waitUntil(lambda: crawl.delay.value() == 0.5)

    # opened again: what was saved; Default forgets a setting (as --unset)
    dialog = open_settings(qtbot, window)
    assert dialog.editors["politeness.delay"].input.text() == "0.5 s"
    dialog.editors["politeness.delay"].reset_button.click()
    assert dialog.editors["politeness.delay"].input.text() == "1 s"
    with qtbot.waitSignal(dialog.sig_saved):
        dialog.save_button.click()
    rows = cli_settings(window.context.project)
    assert rows["politeness.delay"]["is_default"] and rows["politeness.delay"]["value"] == 1.0
    assert rows["fetch.max_body_bytes"]["value"] == 512 * 1024  # the others stay


def test_bad_values_are_one_line_each_and_nothing_is_saved(qtbot, window):
    recrawl("settings", window.context.project.path, "--set", "politeness.per_host=3")
    dialog = open_settings(qtbot, window)
    editors = dialog.editors
    assert editors["politeness.per_host"].input.value() == 3
    editors["politeness.per_host"].input.setValue(0)
    assert editors["politeness.per_host"].input.value() == 1  # its range is the schema's
    editors["politeness.delay"].input.setText("soon")
    editors["fetch.user_agent"].input.setText("")
    editors["watch.round_gap"].input.setText("-5")
    editors["politeness.concurrency"].input.setValue(4)  # good, but not saved alone
    assert editors["politeness.delay"].error.isVisibleTo(dialog)  # checked as typed
    dialog.save_button.click()
    lines = dialog.problems.text().splitlines()
    # the command line's own messages (core's parse_setting)
    assert len(lines) == 3, lines
    assert lines[0].startswith("politeness.delay: not a number of seconds")
    assert lines[1].startswith("fetch.user_agent: must start with the crawler's name")
    assert lines[2] == "watch.round_gap: must not be negative: '-5'"
    assert dialog.isVisible()
    rows = cli_settings(window.context.project)
    assert (
        rows["politeness.per_host"]["value"] == 3 and rows["politeness.concurrency"]["is_default"]
    )
    # put right, the summary follows
    editors["politeness.delay"].input.setText("2s")
    assert len(dialog.problems.text().splitlines()) == 2
    dialog.reject()


def test_cancel_leaves_everything_as_it_was(qtbot, window):
    before = cli_settings(window.context.project)
    dialog = open_settings(qtbot, window)
    dialog.editors["fetch.user_agent"].input.setText("Other/2.0")
    dialog.editors["embeds.enabled"].input.setChecked(False)
    dialog.buttons.rejected.emit()
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert cli_settings(window.context.project) == before


def test_a_duration_shown_rounded_is_saved_exact_while_unedited(qtbot, window):
    """8685 min shows as "6.0 d" (one format everywhere); saving the dialog untouched keeps
    8685 min, not 6 days."""
    crawl_settings.save({"watch.round_gap": 8685 * 60})
    dialog = open_settings(qtbot, window)
    gap = dialog.editors["watch.round_gap"]
    assert (gap.input.text(), gap.text()) == ("6.0 d", "8685m")
    dialog.editors["fetch.user_agent"].input.setText("Archivist/2.0")
    with qtbot.waitSignal(dialog.sig_saved):
        dialog.save_button.click()
    rows = cli_settings(window.context.project)
    assert rows["watch.round_gap"]["value"] == 8685 * 60
    assert rows["fetch.user_agent"]["value"] == "Archivist/2.0"


def test_a_whole_number_beyond_its_box_is_kept_when_another_change_is_saved(qtbot, window):
    """`recrawl settings --set traps.max_depth=3000000000` is more than a spin box holds:
    the box shows its limit, and saving another setting leaves the kept value alone."""
    crawl_settings.save({"traps.max_depth": 3_000_000_000})
    dialog = open_settings(qtbot, window)
    depth = dialog.editors["traps.max_depth"]
    assert depth.input.value() == depth.input.maximum()
    dialog.editors["fetch.user_agent"].input.setText("Archivist/2.0")
    assert "traps.max_depth" not in dialog.changes()
    with qtbot.waitSignal(dialog.sig_saved):
        dialog.save_button.click()
    assert cli_settings(window.context.project)["traps.max_depth"]["value"] == 3_000_000_000


def test_editors_take_their_ranges_units_and_tooltips_from_the_schema(qtbot, window):
    from recrawl.core.config import STORABLE

    dialog = open_settings(qtbot, window)
    per_host = dialog.editors["politeness.per_host"].input
    assert isinstance(per_host, QSpinBox)
    assert (per_host.minimum(), per_host.value(), per_host.suffix()) == (1, 1, " connection")
    per_host.setValue(2)  # the unit reads as a count does: "1 connection", "2 connections"
    assert per_host.suffix() == " connections"
    depth = dialog.editors["traps.max_depth"].input
    assert (depth.minimum(), depth.suffix()) == (0, " links")
    for name, editor in dialog.editors.items():
        spec = STORABLE[name]
        assert editor.input.toolTip().startswith(name)
        assert spec.bounds_text() in editor.input.toolTip()
        if isinstance(editor.input, QSpinBox) and spec.meta.min is not None:
            assert editor.input.minimum() == spec.meta.min, name
    assert dialog.editors["fetch.read_timeout"].input.toolTip() == "fetch.read_timeout · s · > 0s"
    dialog.reject()


def test_the_crawl_panel_fields_take_their_ranges_from_the_schema(qtbot, window):
    from recrawl.core.config import STORABLE

    window.show_panel("crawl")
    panel = window.panels["crawl"]
    assert panel.per_host.minimum() == STORABLE["politeness.per_host"].meta.min == 1
    assert panel.concurrency.minimum() == 1 and panel.delay.minimum() == 0.0
    assert panel.delay.suffix() == " s"
    assert STORABLE["politeness.delay"].help in panel.delay.toolTip()
    assert "politeness.per_host" in panel.per_host.toolTip()


def test_notification_urls_are_a_list_kept_as_recrawl_settings_keeps_them(qtbot, window):
    window.context.services.settings.save({"notify.urls": ("json://127.0.0.1:9/a",)})
    dialog = open_settings(qtbot, window)
    editor = dialog.editors["notify.urls"]
    urls = editor.input
    assert isinstance(urls, NotifyUrlsEditor)
    assert urls.urls() == ["json://127.0.0.1:9/a"]
    qtbot.mouseClick(urls.add_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(urls.rows[1].url, "ntfys://ntfy.sh/recrawl-news")
    with qtbot.waitSignal(dialog.sig_saved):
        dialog.save_button.click()
    rows = cli_settings(window.context.project)
    assert rows["notify.urls"]["value"] == ["json://127.0.0.1:9/a", "ntfys://ntfy.sh/recrawl-news"]


@pytest.fixture(scope="module")
def apprise_pools(tmp_path_factory):
    """Apprise sends from process-wide thread pools whose threads live on: started here,
    before a test counts the threads it leaves (a module fixture is set up first)."""
    project = Project.init(tmp_path_factory.mktemp("apprise") / "proj")
    try:
        with Listener() as listener:
            assert Services(project).notify.send_test(listener.url) is None
    finally:
        project.close()


def test_send_test_reaches_a_listening_service_and_says_why_a_failing_one_did_not(
    apprise_pools, qtbot, window
):
    with Listener() as working, Listener("127.0.0.2", status=500) as failing:
        dialog = open_settings(qtbot, window)
        urls = dialog.editors["notify.urls"].input
        assert isinstance(urls, NotifyUrlsEditor) and urls.urls() == []
        assert urls.empty.isVisibleTo(urls)
        for url in (working.url, failing.url, "nosuchscheme://x"):
            qtbot.mouseClick(urls.add_button, Qt.MouseButton.LeftButton)
            qtbot.keyClicks(urls.rows[-1].url, url)
        for row in urls.rows:
            qtbot.mouseClick(row.test, Qt.MouseButton.LeftButton)
        assert urls.rows[0].test.text() == "Sending…"
        qtbot.waitUntil(lambda: all(row.test.text() == "Send test" for row in urls.rows))
        said = [urls.result_text(n) for n in range(3)]
        assert said[0] == "Sent: the service took the test message."
        assert said[1].startswith("Not sent: ") and said[2].startswith("Not sent: ")
        assert all("\n" not in line for line in said)
        assert [m["title"] for m in working.received()] == ["Recrawl: a test message"]
        assert str(window.context.project.path) in working.received()[0]["message"]
        assert failing.messages and not failing.received()
        dialog.reject()  # a test saves nothing
    assert cli_settings(window.context.project)["notify.urls"]["value"] == []
