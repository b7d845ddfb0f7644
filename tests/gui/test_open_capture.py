""" "Open capture in browser": the app starts the project's replay server in the background
and opens the capture's replay URL (docs/design.md §13).

The offscreen platform has no browser: the URL is caught at Qt's own door
(``QDesktopServices.setUrlHandler``), then fetched as a browser would, from the server
the app started.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication
from recrawl.core.archive.captures import find_captures
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.gui.replay import UNAVAILABLE

from tests.gui.helpers import open_window, select_page
from tests.support.crawling import DAY, clock_at, crawl
from tests.support.replayserver import fetch, shown

pytestmark = pytest.mark.slow

STORIES = ("the first story", "a second story", "the third story")


class Browser(QObject):
    """Stands in for the desktop's browser: the URLs the app asked it to open."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def show(self, url: QUrl) -> None:
        self.opened.append(url.toString())


@pytest.fixture
def browser() -> Iterator[Browser]:
    receiver = Browser()
    QDesktopServices.setUrlHandler("http", receiver, "show")
    yield receiver
    QDesktopServices.unsetUrlHandler("http")


@pytest.fixture
def crawled(project, server):
    """/news with a new story in each of three rounds a fortnight apart."""
    server.html("/", '<a href="/news">n</a>')
    inject([server.url("/")], utcnow())
    for n, story in enumerate(STORIES):
        server.html("/news", f"<html><body><p>{story}</p></body></html>")
        crawl(project, clock=clock_at(n * 14 * DAY))
    return project


def test_a_page_and_a_history_row_open_their_captures_through_one_server(
    qtbot, crawled, prefs, server, browser
):
    window = open_window(qtbot, crawled, prefs)
    news = server.url("/news")
    panel = select_page(qtbot, window, news)
    captures = find_captures(crawled.path, news)
    assert len(captures) == 3
    replay = window.context.replay
    assert replay.server is None  # started only when asked for

    # no history row selected: the latest capture
    assert panel.detail.capture_button.isEnabled()
    panel.detail.capture_button.click()
    qtbot.waitUntil(lambda: len(browser.opened) == 1)
    server_ = replay.server
    assert server_ is not None
    latest = f"http://127.0.0.1:{server_.port}/project/{capture_stamp(captures[-1].date)}/{news}"
    assert browser.opened == [latest]
    page = shown(server_, capture_stamp(captures[-1].date), news)  # what `latest` shows
    assert page.status == 200
    assert STORIES[-1] in page.body.decode()

    # the oldest fetch in the history, from its context menu: the same server
    history = panel.detail.history
    oldest = min(range(history.rowCount()), key=lambda r: history.row(r)[0])
    panel.detail.history_view.selectRow(oldest)
    menu = panel.detail.make_history_menu()
    (action,) = [a for a in menu.actions() if a.text() == "Open capture in browser"]
    assert action.isEnabled()
    action.trigger()
    qtbot.waitUntil(lambda: len(browser.opened) == 2)
    first = f"http://127.0.0.1:{server_.port}/project/{capture_stamp(captures[0].date)}/{news}"
    assert browser.opened[1] == first
    assert replay.server is server_
    page = shown(server_, capture_stamp(captures[0].date), news)  # what `first` shows
    assert page.status == 200
    assert STORIES[0] in page.body.decode()
    assert STORIES[-1] not in page.body.decode()
    raw = fetch(
        first.replace(
            f"/{capture_stamp(captures[0].date)}/", f"/{capture_stamp(captures[0].date)}id_/"
        )
    )
    assert raw.body == f"<html><body><p>{STORIES[0]}</p></body></html>".encode()

    window.close()  # the project closes: its server stops
    assert server_.exit_status == 0


def test_without_pywb_the_app_says_how_to_get_it_and_goes_on(
    qtbot, crawled, prefs, server, browser, monkeypatch, tmp_path
):
    stand_in = tmp_path / "no-pywb" / "pywb"
    stand_in.mkdir(parents=True)
    (stand_in / "__init__.py").write_text("raise ImportError('pywb is missing here')\n")
    monkeypatch.setenv("PYTHONPATH", str(stand_in.parent))
    window = open_window(qtbot, crawled, prefs)
    news = server.url("/news")
    panel = select_page(qtbot, window, news)
    with qtbot.waitSignal(window.context.replay.sig_failed) as failed:
        panel.detail.capture_button.click()
    assert failed.args == [UNAVAILABLE]
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == UNAVAILABLE)
    assert browser.opened == []
    assert window.context.replay.server is None
    # the panel goes on working
    panel.detail.content_button.click()
    qtbot.waitUntil(lambda: panel.detail.content_dialog is not None)
    assert STORIES[-1] in panel.detail.content_dialog.text.toPlainText()
    panel.detail.content_dialog.close()
    window.close()


def test_closing_the_project_while_its_server_starts_stops_the_start_at_once(
    qtbot, crawled, prefs, server, browser, monkeypatch, tmp_path
):
    """A server still loading pywb (here a pywb that takes minutes to import) is stopped
    when the window closes: the window does not wait for it, and no process is left."""
    started, loaded = tmp_path / "started", tmp_path / "loaded"
    stand_in = tmp_path / "slow-pywb" / "pywb"
    stand_in.mkdir(parents=True)
    (stand_in / "__init__.py").write_text(
        "import os, pathlib, time\n"
        f"pathlib.Path({str(started)!r}).write_text(str(os.getpid()))\n"
        "time.sleep(120)\n"
        f"pathlib.Path({str(loaded)!r}).write_text('')\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(stand_in.parent))
    window = open_window(qtbot, crawled, prefs)
    panel = select_page(qtbot, window, server.url("/news"))
    panel.detail.capture_button.click()
    qtbot.waitUntil(lambda: started.exists() and started.read_text() != "", timeout=30_000)
    pid = int(started.read_text())
    window.close()
    assert not loaded.exists()  # the close did not wait for pywb to load
    with pytest.raises(ProcessLookupError):  # killed and reaped: no orphan
        os.kill(pid, 0)
    assert browser.opened == []


def test_the_status_bar_shows_the_address_opened_with_copy(qtbot, crawled, prefs, server, browser):
    window = open_window(qtbot, crawled, prefs)
    news = server.url("/news")
    panel = select_page(qtbot, window, news)
    note = window.address_note
    assert not note.isVisible()
    panel.detail.capture_button.click()
    qtbot.waitUntil(lambda: len(browser.opened) == 1)
    (address,) = browser.opened
    assert note.isVisible() and note.label.text() == f"Opened in the browser: {address}"
    note.copy_button.click()
    assert QGuiApplication.clipboard().text() == address
    assert note.copy_button.text() == "Copied"
    note.close_button.click()
    assert not note.isVisible()
    window.close()


@pytest.mark.qt_log_ignore("This plugin does not support QPlatformServices::openUrl")
def test_no_browser_says_so_with_the_address_to_copy(qtbot, crawled, prefs, server):
    """No URL handler: the offscreen platform has no browser to start, as a desktop with
    none set (or a launcher that fails), and Qt's openUrl says so."""
    window = open_window(qtbot, crawled, prefs)
    news = server.url("/news")
    panel = select_page(qtbot, window, news)
    note = window.address_note
    with qtbot.waitSignal(window.context.replay.sig_opened) as opened:
        panel.detail.capture_button.click()
    address, took = opened.args
    assert not took
    assert address.startswith(f"http://127.0.0.1:{window.context.replay.server.port}/project/")
    assert address.endswith(f"/{news}")
    assert note.isVisible() and note.label.text() == f"Could not open a browser: {address}"
    note.copy_button.click()
    assert QGuiApplication.clipboard().text() == address
    # the address works: pasted into a browser, it shows the capture
    stamp = address.split("/project/")[1].split("/")[0]
    assert STORIES[-1] in shown(window.context.replay.server, stamp, news).body.decode()
    window.close()
