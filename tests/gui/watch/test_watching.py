"""Watching from the app (issue 13, point 2): the Watch toggle runs the core's watcher on
the crawl job's thread; Pause and Stop work on it; the panel says when the next page is
due while it sleeps; another process's watcher shows as "watched by pid N" and can be
stopped from the window."""

from __future__ import annotations

import os
import signal
from datetime import datetime

import pytest
from PySide6.QtCore import Qt
from recrawl.core.engine import WatchRound, WatchSleeping
from recrawl.core.policy import choices, crawl_settings
from recrawl.core.store.models import Page
from recrawl.core.watch.wake import watcher_of
from recrawl.core.watch.watcher import WatchSummary
from recrawl.gui.watch import autostart

from tests.gui.helpers import open_window
from tests.support.interrupted import start, watchdog
from tests.support.watching import watching


def watch_soon(interval: str = "2s") -> None:
    """Pages come due every ``interval``; rounds as close as 0.2 s; no politeness delay."""
    choices.set_schedule("fixed", [f"initial={interval}"])
    crawl_settings.save({"watch.round_gap": 0.2, "politeness.delay": 0.0})


def crawl_panel(window):
    window.show_panel("crawl")
    return window.panels["crawl"]


def test_watch_runs_rounds_as_pages_come_due_says_when_and_stops(
    qtbot, project, prefs, server, tmp_path
):
    server.html("/", '<a href="/a">a</a>')
    server.html("/a", "<p>alpha</p>")
    watch_soon()
    window = open_window(qtbot, project, prefs)
    panel = crawl_panel(window)
    qtbot.keyClicks(panel.seeds, server.url("/"))
    with qtbot.waitSignal(window.context.changes.sig_pages):
        qtbot.mouseClick(panel.add_seeds, Qt.MouseButton.LeftButton)
    events: list[object] = []
    window.context.crawl.sig_events.connect(events.extend)
    sleeps: list[str] = []

    def note_sleep(batch: list[object]) -> None:
        if any(isinstance(e, WatchSleeping) for e in batch):
            sleeps.append(panel.view.outlook.text())

    window.context.crawl.sig_events.connect(note_sleep)
    qtbot.mouseClick(panel.watch_button, Qt.MouseButton.LeftButton)
    assert window.context.crawl.watching and panel.watch_button.isChecked()
    assert not panel.start_button.isEnabled()
    assert window.crawl_state.text() == "Watching…"
    # round after round as the pages come due again (every 2 s), asleep in between
    qtbot.waitUntil(lambda: server.hits_for("/") >= 3)
    rounds = [e for e in events if isinstance(e, WatchRound)]
    assert len(rounds) >= 3
    asleep = [e for e in events if isinstance(e, WatchSleeping)]
    assert asleep and all(isinstance(e.until, datetime) for e in asleep)
    assert sleeps and sleeps[0].startswith("Watching: the next page is due ")
    assert panel.sleeping or panel.round_label.text().startswith("Round")
    assert "watch round: " in panel.log.toPlainText()  # the log goes on across rounds
    qtbot.waitUntil(lambda: panel.sleeping)
    panel.grab().save(str(tmp_path / "crawl-panel-watching.png"))
    assert "(in " in panel.view.outlook.text()
    assert window.tray.state.mode.value == "sleeping"
    assert "watching — next due" in window.tray.tooltip

    # Pause holds the watch (the tray says so); Resume lets it go on
    qtbot.mouseClick(panel.pause_button, Qt.MouseButton.LeftButton)
    assert window.crawl_state.text() == "Paused" and window.tray.state.mode.value == "paused"
    assert window.tray.pause_action.text() == "Resume Watching"
    window.tray.pause_action.trigger()  # the tray's Resume
    assert window.crawl_state.text() == "Watching…"
    hits = server.hits_for("/")
    qtbot.waitUntil(lambda: server.hits_for("/") > hits)

    with qtbot.waitSignal(window.context.crawl.sig_finished) as finished:
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    summary = finished.args[0]
    assert isinstance(summary, WatchSummary) and summary.stopped and summary.rounds >= 3
    qtbot.waitUntil(lambda: not window.context.crawl.busy)
    assert not panel.watch_button.isChecked() and panel.start_button.isEnabled()
    assert panel.round_label.text().startswith("Watching stopped after ")
    assert window.tray.state.mode.value == "idle"
    assert {p.url for p in Page.select()} == {server.url("/"), server.url("/a")}
    window.close()


def test_the_watch_toggle_off_stops_it_and_the_menu_follows(qtbot, window):
    panel = crawl_panel(window)
    window.watch_menu.watch_action.trigger()  # Crawl ▸ Watch
    qtbot.waitUntil(lambda: panel.sleeping)  # an empty project: nothing will be due
    assert "nothing is due" in panel.view.outlook.text()
    assert panel.watch_button.isChecked() and window.watch_menu.watch_action.isChecked()
    with qtbot.waitSignal(window.context.crawl.sig_idle):
        qtbot.mouseClick(panel.watch_button, Qt.MouseButton.LeftButton)
    assert not window.watch_menu.watch_action.isChecked()
    assert not panel.watch_button.isChecked() and panel.watch_button.isEnabled()


# on PostgreSQL too: no store file changes there, the app notices commits otherwise
@pytest.mark.parametrize("store_kind", ["sqlite", "postgresql"])
def test_a_watcher_in_another_process_shows_its_pid_and_stops_from_the_window(
    qtbot, project, prefs, server, tmp_path
):
    server.html("/", '<a href="/a">a</a>')
    server.html("/a", "<p>alpha</p>")
    watch_soon("1h")
    window = open_window(qtbot, project, prefs)
    panel = crawl_panel(window)
    with watching(project.path) as watch:
        qtbot.waitUntil(lambda: panel.holder is not None)
        assert panel.holder.pid == watch.pid
        assert panel.banner.isVisible()
        text = panel.banner.text.text()
        assert f"This project is watched by `recrawl watch` (pid {watch.pid}) since " in text
        assert not panel.start_button.isEnabled() and not panel.watch_button.isEnabled()
        assert f"watched by pid {watch.pid}" in window.tray.tooltip
        qtbot.waitUntil(lambda: "the watcher fetches them" in panel.round_label.text())
        panel.grab().save(str(tmp_path / "crawl-panel-watched.png"))
        # its commits reach the panels: seeds added here wake it, it fetches them
        pages = window.panels["pages"]
        with qtbot.waitSignal(window.context.watch.sig_store_changed):
            qtbot.keyClicks(panel.seeds, server.url("/"))
            qtbot.mouseClick(panel.add_seeds, Qt.MouseButton.LeftButton)
        window.show_panel("pages")
        qtbot.waitUntil(lambda: server.hits_for("/a") == 1)
        qtbot.waitUntil(lambda: pages.model.rowCount() == 2)
        window.show_panel("crawl")
        qtbot.mouseClick(panel.banner.stop_button, Qt.MouseButton.LeftButton)
        assert watch.end() == 0
        qtbot.waitUntil(lambda: panel.holder is None)
        for stream in (watch.child.stdout, watch.child.stderr):
            if stream is not None:
                stream.close()
    assert not panel.banner.isVisible()
    assert panel.start_button.isEnabled() and panel.watch_button.isEnabled()
    assert window.tray.state.mode.value == "idle"
    window.close()


def test_recrawl_gui_watch_starts_watching_and_sigterm_stops_it_cleanly(qtbot, project):
    # the command the login entry runs (offscreen has no tray: the window shows)
    child = start("gui", project.path, "--watch", "--hidden", env=offscreen_env())
    with watchdog(child, 120):
        qtbot.waitUntil(
            lambda: (info := watcher_of(project.path)) is not None and info.pid == child.pid
        )
        child.send_signal(signal.SIGTERM)
        _out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert watcher_of(project.path) is None


def offscreen_env() -> dict[str, str]:
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen"}


def test_start_watching_at_login_writes_and_removes_the_entry(
    qtbot, window, project, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    action = window.watch_menu.login_action
    assert action.isEnabled() and not action.isChecked()
    action.trigger()
    entry = tmp_path / "xdg" / "autostart" / "recrawl.desktop"
    assert entry.exists() and action.isChecked()
    assert autostart.enabled_project() == project.path
    exec_line = next(line for line in entry.read_text().splitlines() if line.startswith("Exec="))
    assert autostart.parse_exec(exec_line[5:])[-4:] == [
        "gui",
        str(project.path),
        "--watch",
        "--hidden",
    ]
    action.trigger()
    assert not entry.exists() and not action.isChecked()
