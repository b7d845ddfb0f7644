"""Start adds the seeds typed and not added yet, then crawls them (issue 25 item 12:
"Crawl finished: 0 pages")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from recrawl.core import store
from recrawl.core.store.models import Page

from tests.gui.crawl.test_crawl_panel import crawl_panel, fast


def test_start_adds_the_typed_seeds_then_crawls_them(qtbot, window, server):
    server.html("/", '<html><body><a href="/a">a</a></body></html>')
    server.html("/a", "<html><body>a</body></html>")
    panel = crawl_panel(window)
    qtbot.waitUntil(lambda: panel.settings_loaded)
    fast(panel)
    qtbot.keyClicks(panel.seeds, server.url("/"))  # typed, "Add seeds" not pressed
    with qtbot.waitSignal(window.context.crawl.sig_finished) as finished:
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert finished.args[0].fetched == 2
    assert sorted(p.url for p in Page.select()) == [server.url("/"), server.url("/a")]
    assert panel.seeds.toPlainText() == ""  # added: the box is ready for the next ones
    qtbot.waitUntil(lambda: not window.context.crawl.busy)
    assert "Crawl finished: 2 pages" in panel.round_label.text()


def test_start_with_a_typed_non_url_says_so_and_crawls_nothing(qtbot, window):
    panel = crawl_panel(window)
    qtbot.waitUntil(lambda: panel.settings_loaded)
    qtbot.keyClicks(panel.seeds, "not a url at all")
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "not a url at all" in panel.seed_status.text())
    qtbot.waitUntil(lambda: panel.start_button.isEnabled())
    assert not window.context.crawl.busy and store.page_count() == 0
    assert panel.seeds.toPlainText() == "not a url at all"  # kept, to be corrected


def test_watch_adds_the_typed_seeds_too(qtbot, window, server):
    server.html("/", "<html><body>home</body></html>")
    panel = crawl_panel(window)
    qtbot.waitUntil(lambda: panel.settings_loaded)
    fast(panel)
    qtbot.keyClicks(panel.seeds, server.url("/"))
    qtbot.mouseClick(panel.watch_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.context.crawl.watching)
    qtbot.waitUntil(lambda: store.page_count() == 1 and panel.sleeping)
    assert Page.get().last_fetched is not None
    window.context.crawl.stop()
    qtbot.waitUntil(lambda: not window.context.crawl.busy)
