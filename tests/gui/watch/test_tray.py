"""The tray: closing the window while watching (asked once, remembered), Quit, Open, the
menu and its state, and the notifications: one per watch round with news, none without,
none when the project has them switched off."""

from __future__ import annotations

from datetime import datetime

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QCheckBox, QMessageBox
from recrawl.core.engine import PageFetched, RoundFinished, RoundStarted, WatchRound
from recrawl.gui.main_window import MainWindow

from tests.gui.helpers import open_window


@pytest.fixture
def tray_window(qtbot, project, prefs):
    """The main window as where the platform has a tray (offscreen has none)."""
    # not qtbot.addWidget: its teardown closes the window before this fixture's own, and
    # a close while watching asks its question
    window = MainWindow(project, prefs, tray_available=True)
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    yield window
    window.quit_app()  # stops a watch first, then closes
    qtbot.waitUntil(lambda: window.context is None)
    window.deleteLater()


def start_watching(qtbot, window) -> None:
    panel = window.panels["crawl"]
    window.start_watching()
    qtbot.waitUntil(lambda: panel.sleeping)  # an empty project: nothing will be due


def answer_question(qtbot, button_text: str, remember: bool) -> list[str]:
    """Answer the close question when it comes up; the texts it showed."""
    seen: list[str] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, answer)
            return
        seen.append(box.text())
        box.findChild(QCheckBox, "remember-choice").setChecked(remember)
        next(b for b in box.buttons() if b.text() == button_text).click()

    QTimer.singleShot(0, answer)
    return seen


def test_closing_while_watching_asks_once_and_remembers(qtbot, tray_window, prefs):
    window = tray_window
    start_watching(qtbot, window)
    seen = answer_question(qtbot, "Keep Watching", remember=True)
    window.close()
    assert seen == ["Keep watching in the tray?"]
    assert not window.isVisible() and window.context.crawl.busy  # still watching
    assert prefs.close_while_watching() == "tray"
    assert window.watch_menu.close_actions["tray"].isChecked()
    # the tray's Open brings it back; closing again asks nothing: the choice holds
    window.tray.open_action.trigger()
    assert window.isVisible()
    window.close()
    assert not window.isVisible() and window.context.crawl.busy
    # the menu changes it back: now closing stops watching and closes for good
    window.tray.open_action.trigger()
    window.watch_menu.close_actions["stop"].trigger()
    assert prefs.close_while_watching() == "stop"
    with qtbot.waitSignal(window.sig_closed):
        window.close()
    assert not window.context or not window.context.crawl.busy


def test_not_remembered_it_asks_again_and_cancel_keeps_the_window(qtbot, tray_window, prefs):
    window = tray_window
    start_watching(qtbot, window)
    seen = answer_question(qtbot, "Cancel", remember=True)
    window.close()
    assert seen and window.isVisible() and prefs.close_while_watching() == "ask"
    seen = answer_question(qtbot, "Stop Watching and Close", remember=False)
    with qtbot.waitSignal(window.sig_closed):
        window.close()
    assert seen and prefs.close_while_watching() == "ask"


def test_without_a_tray_closing_stops_watching_as_before(qtbot, project, prefs):
    window = open_window(qtbot, project, prefs)  # offscreen: no tray
    assert not window.tray.available and window.tray.icon is None
    start_watching(qtbot, window)
    with qtbot.waitSignal(window.sig_closed):
        window.close()
    assert prefs.close_while_watching() == "ask"


def test_the_trays_quit_stops_the_watch_cleanly_then_closes(qtbot, tray_window, prefs):
    window = tray_window
    prefs.set_close_while_watching("tray")
    start_watching(qtbot, window)
    window.close()  # into the tray, as remembered
    assert not window.isVisible() and window.context.crawl.busy
    assert window.tray.pause_action.isEnabled()
    assert [a.text() for a in window.tray.menu.actions() if a.text()][1:] == [
        "Pause Watching",
        "Open Recrawl",
        "Quit",
    ]
    summaries: list[object] = []
    window.context.crawl.sig_finished.connect(summaries.append)
    with qtbot.waitSignal(window.sig_closed):
        window.tray.quit_action.trigger()
    assert len(summaries) == 1 and summaries[0].stopped
    assert window.context is None  # the project closed with the window


def a_round(new: int, changed: int, *urls: str) -> list[object]:
    now = datetime(2026, 11, 30, 12, 0)
    fetched = [PageFetched(u, "fetched", 200, "unknown", 10, 1.0, news="new") for u in urls]
    return [
        RoundStarted(1, "s1", len(urls), now),
        *fetched,
        RoundFinished(1, "s1", len(urls), 0, 0, new_pages=new, changed_pages=changed),
        WatchRound(now, len(urls), new, changed, 0, None),
    ]


def settle(qtbot, window) -> None:
    """Wait until the store thread has answered everything asked before (one lane)."""
    done: list[bool] = []
    window.context.jobs.submit(lambda: None, lambda _: done.append(True))
    qtbot.waitUntil(lambda: bool(done))


def test_one_notification_per_round_with_news_none_without_none_when_off(qtbot, tray_window):
    # The watcher's event batches as they reach the window (its signal): the engine's own
    # rounds carry news counts once the news area records them.
    window = tray_window
    start_watching(qtbot, window)
    relay = window.context.crawl.sig_events
    tray = window.tray
    relay.emit(a_round(12, 3, "https://example.org/a", "https://b.org/", "https://c.org/"))
    qtbot.waitUntil(lambda: len(tray.messages) == 1)
    assert tray.messages[0][1] == "12 new pages, 3 changed on example.org and 2 other sites"
    relay.emit(a_round(0, 0, "https://example.org/a"))
    settle(qtbot, window)
    assert len(tray.messages) == 1
    # switched off for this project (the Crawl panel's box): no message
    panel = window.panels["crawl"]
    qtbot.waitUntil(panel.notify_box.isEnabled)
    assert panel.notify_box.isChecked()
    panel.notify_box.setChecked(False)
    relay.emit(a_round(1, 0, "https://example.org/new"))
    settle(qtbot, window)
    assert len(tray.messages) == 1
    panel.notify_box.setChecked(True)
    relay.emit(a_round(1, 0, "https://example.org/new"))
    qtbot.waitUntil(lambda: len(tray.messages) == 2)
    assert tray.messages[1][1] == "1 new page on example.org"


def test_a_watched_sites_first_crawl_notifies_once_when_done_then_its_new_pages(
    qtbot, tray_window, server
):
    """A real watch of a site whose pages link one to the next: its first crawl takes a
    round a page, and says so once, when it is done (docs/design.md §15); a page added later
    is new."""
    from recrawl.core.clock import utcnow
    from recrawl.core.engine import inject
    from recrawl.core.policy import choices, crawl_settings

    server.html("/", '<title>Home</title><a href="/a">a</a>')
    server.html("/a", '<title>A</title><a href="/b">b</a>')
    server.html("/b", "<title>B</title>")
    choices.set_schedule("fixed", ["initial=2s"])  # due again every 2 s
    crawl_settings.save({"watch.round_gap": 0.2, "politeness.delay": 0.0})
    inject([server.url("/")], utcnow())
    window = tray_window
    tray = window.tray
    rounds: list[WatchRound] = []
    window.context.crawl.sig_events.connect(
        lambda batch: rounds.extend(e for e in batch if isinstance(e, WatchRound))
    )
    window.start_watching()
    qtbot.waitUntil(lambda: len(tray.messages) == 1)
    assert tray.messages[0][1] == "First crawl of 127.0.0.1 done: 3 pages archived"
    assert [r.baseline_pages for r in rounds[:3]] == [1, 1, 1]  # none said while under way
    # the pages again, unchanged: nothing to say
    qtbot.waitUntil(lambda: server.hits_for("/b") >= 2)
    settle(qtbot, window)
    assert len(tray.messages) == 1
    server.html("/b", '<title>B</title><a href="/c">c</a>')
    server.html("/c", "<title>C</title>")
    # /b changed, and the page it links to is new: in one round's message when the round
    # that fetched /b reaches /c too, else in the next's
    qtbot.waitUntil(lambda: any("new page" in text for _, text in tray.messages[1:]))
    assert [text for _, text in tray.messages[1:]] in (
        ["1 changed page on 127.0.0.1", "1 new page on 127.0.0.1"],
        ["1 new page, 1 changed on 127.0.0.1"],
    )
