"""The Sites panel: what the project watches, with refetch-now and remove (kept pages)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from recrawl.core import store
from recrawl.core.browser import chromium
from recrawl.core.clock import utcnow
from recrawl.core.config import UNCOMPARABLE
from recrawl.core.engine import inject
from recrawl.core.policy import capture_modes, choices, crawl_settings
from recrawl.core.policy import refetch as refetching
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, save_rules
from recrawl.core.policy.sites import ANY_HOST, scope_entries
from recrawl.core.services import Services
from recrawl.core.store.models import Page, PageStatus
from recrawl.gui.sites.sites_model import BLOCK, CAPTURE_COLUMN, SITE_ROLE
from recrawl.gui.sites.sites_panel import SitesPanel

from tests.gui.helpers import open_window
from tests.support.crawling import T0, clock_at, crawl


def open_sites(qtbot, window) -> SitesPanel:
    window.show_panel("sites")
    panel = window.panels["sites"]
    assert isinstance(panel, SitesPanel)
    qtbot.waitUntil(lambda: not panel.model.loading and panel.summary.text() != "")
    return panel


def hosts(panel: SitesPanel) -> list[str]:
    return [panel.model.index(r, 0).data() for r in range(panel.model.rowCount())]


def row_texts(panel: SitesPanel, host: str) -> list[str]:
    row = panel.model.row_of(host)
    assert row is not None, host
    return [panel.model.index(row, c).data() for c in range(panel.model.columnCount())]


def choose(qtbot, panel: SitesPanel, host: str) -> None:
    row = panel.model.row_of(host)
    rect = panel.table.visualRect(panel.model.index(row, 0))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.selected_site().host == host


@pytest.fixture
def watched(project, server):
    """A crawled site (the test server) and a seed of a host not crawled yet."""
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", "a")
    server.html("/b", "b")
    inject([server.url("/")], utcnow())
    crawl(project, clock=clock_at())
    inject(["http://later.example/start"], utcnow())
    return project


def test_sites_lists_seeds_and_hosts_with_their_pages(qtbot, qtmodeltester, watched, prefs):
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    assert hosts(panel) == ["127.0.0.1", "later.example"]
    assert panel.summary.text() == "2 hosts with pages, 4 pages in all"
    _, scope, capture, seeds, pages, due, last, nxt = row_texts(panel, "127.0.0.1")
    assert (scope, capture, seeds, pages, due) == ("in scope", "http", "1", "3", "0")
    assert last.startswith("2027-01-01") and nxt.startswith("2027-01-")
    assert row_texts(panel, "later.example")[1:7] == ["in scope", "http", "1", "1", "1", ""]
    # the seeds of the chosen site, by name: they no longer vanish after "Add seeds"
    choose(qtbot, panel, "later.example")
    qtbot.waitUntil(lambda: "http://later.example/start" in panel.seeds_label.text())
    assert panel.refetch_button.isEnabled() and panel.remove_button.isEnabled()
    qtmodeltester.check(panel.model)
    window.close()


def test_refetch_makes_the_sites_pages_due_now(qtbot, watched, prefs, server):
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    choose(qtbot, panel, "127.0.0.1")
    assert store.count_due(utcnow()) == 1  # only the later.example seed
    with qtbot.waitSignal(window.context.changes.sig_pages):
        qtbot.mouseClick(panel.refetch_button, Qt.MouseButton.LeftButton)
    assert store.count_due(utcnow()) == 4
    assert panel.message.text() == (
        "127.0.0.1: 3 more pages are due now; the next crawl fetches them."
    )
    qtbot.waitUntil(lambda: row_texts(panel, "127.0.0.1")[5] == "3")
    window.close()


def test_refetch_goes_through_the_core_call_refetch_uses(qtbot, watched, prefs, monkeypatch):
    """The button and `recrawl refetch --site` share one core call (issue 25 item 1)."""
    calls = []
    real = refetching.refetch

    def spy(now, **target):
        calls.append(target)
        done = real(now, **target)
        calls.append(done)
        return done

    monkeypatch.setattr(refetching, "refetch", spy)
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    choose(qtbot, panel, "127.0.0.1")
    with qtbot.waitSignal(window.context.changes.sig_pages):
        qtbot.mouseClick(panel.refetch_button, Qt.MouseButton.LeftButton)
    assert calls[0] == {"urls": (), "hosts": ["127.0.0.1"], "everything": False}
    assert calls[1].made_due == 3
    assert panel.message.text().startswith("127.0.0.1: 3 more pages are due now")
    # again: nothing more to make due, and the panel says so with the count
    qtbot.waitUntil(lambda: row_texts(panel, "127.0.0.1")[5] == "3")
    choose(qtbot, panel, "127.0.0.1")
    qtbot.waitUntil(panel.refetch_button.isEnabled)
    qtbot.mouseClick(panel.refetch_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(calls) == 4)
    assert calls[3].made_due == 0 and calls[3].already_due == 3
    qtbot.waitUntil(lambda: "due already" in panel.message.text())
    assert panel.message.text() == (
        "127.0.0.1: its 3 pages were due already; the next crawl fetches them."
    )
    window.close()


def test_remove_asks_then_takes_the_site_out_and_keeps_its_pages(qtbot, watched, prefs, server):
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    choose(qtbot, panel, "127.0.0.1")
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.confirm is not None and panel.confirm.isVisible())
    box = panel.confirm
    text = box.informativeText()
    assert "entry 127.0.0.1" in text and "Its 3 pages stay" in text and "filtered" in text
    # Cancel changes nothing
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert scope_entries(choices.project_chain()) == ["127.0.0.1", "later.example"]

    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.confirm is not box and panel.confirm.isVisible())
    (remove,) = [b for b in panel.confirm.buttons() if b.text() == "Remove from the crawl"]
    with qtbot.waitSignal(window.context.changes.sig_policy):
        remove.click()
    assert panel.message.text() == (
        "127.0.0.1 is out of the crawl: 3 pages kept, never fetched again."
    )
    assert scope_entries(choices.project_chain()) == ["later.example"]
    kept = list(Page.select().where(Page.host == "127.0.0.1"))
    assert len(kept) == 3 and {p.status for p in kept} == {PageStatus.FILTERED}
    qtbot.waitUntil(lambda: row_texts(panel, "127.0.0.1")[1] == "out of scope")
    assert row_texts(panel, "127.0.0.1")[7] == "never"
    choose(qtbot, panel, "127.0.0.1")
    # out of scope: nothing to refetch, nothing left to remove
    assert not panel.refetch_button.isEnabled() and not panel.remove_button.isEnabled()
    window.close()


def test_the_last_site_in_scope_is_refused_with_the_reason(qtbot, project, prefs):
    inject(["http://only.example/"], T0)
    window = open_window(qtbot, project, prefs)
    panel = open_sites(qtbot, window)
    choose(qtbot, panel, "only.example")
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "only site in scope" in panel.message.text())
    assert panel.confirm is None
    assert scope_entries(choices.project_chain()) == ["only.example"]
    window.close()


def test_many_hosts_load_a_block_at_a_time(qtbot, qtmodeltester, project, prefs):
    count = BLOCK * 2 + 17
    pages = [
        store.NewPage(f"http://h{i:04d}.example/", f"h{i:04d}.example", T0, 3600.0)
        for i in range(count)
    ]
    store.add_pages(pages, T0)
    window = open_window(qtbot, project, prefs)
    panel = open_sites(qtbot, window)
    assert panel.model.rowCount() == BLOCK
    assert panel.model.canFetchMore()
    while panel.model.canFetchMore() or panel.model.loading:
        panel.table.scrollToBottom()
        qtbot.waitUntil(lambda: not panel.model.loading)
    assert hosts(panel) == [f"h{i:04d}.example" for i in range(count)]
    # no seeds, so an empty scope filter: the chain limits no host
    assert panel.model.index(0, 0).data(SITE_ROLE).scope == ANY_HOST
    assert panel.model.index(0, 1).data() == "any host"
    qtmodeltester.check(panel.model)
    window.close()


def test_an_empty_project_says_where_sites_come_from(qtbot, project, prefs):
    window = open_window(qtbot, project, prefs)
    panel = open_sites(qtbot, window)
    assert panel.stack.currentWidget() is panel.hint
    assert "Crawl" in panel.hint.text()
    window.close()


# -- capture mode -----------------------------------------------------------------------


def capture_texts(panel: SitesPanel) -> dict[str, str]:
    return {host: row_texts(panel, host)[2] for host in hosts(panel)}


def test_capture_with_a_browser_switches_the_site_and_forgets_its_signatures(qtbot, watched, prefs):
    Page.update(signature=b"signed", signature_kind="md5").execute()
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    assert capture_texts(panel) == {"127.0.0.1": "http", "later.example": "http"}
    choose(qtbot, panel, "127.0.0.1")
    assert panel.capture_action.isEnabled() and not panel.capture_action.isChecked()
    with qtbot.waitSignal(window.context.changes.sig_settings):
        qtbot.mouseClick(panel.capture_button, Qt.MouseButton.LeftButton)
    assert panel.message.text() == (
        "127.0.0.1: captured in a browser from its next fetch; 3 pages compared afresh "
        "then (not a change)."
    )
    qtbot.waitUntil(lambda: capture_texts(panel).get("127.0.0.1") == "browser")
    assert capture_texts(panel)["later.example"] == "http"
    assert crawl_settings.project_crawl_settings().capture.host_modes == (("127.0.0.1", "browser"),)
    kinds = {p.host: (p.signature, p.signature_kind) for p in Page.select()}
    assert kinds["127.0.0.1"] == (None, UNCOMPARABLE)
    assert kinds["later.example"] == (b"signed", "md5")  # another site keeps its own
    row = panel.model.row_of("127.0.0.1")
    tip = panel.model.index(row, CAPTURE_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "Captured in a browser (Chromium): its own mode (capture.mode@127.0.0.1)"
    choose(qtbot, panel, "127.0.0.1")
    assert panel.capture_action.isChecked()
    window.close()


def test_the_context_menu_turns_browser_capture_off_again(qtbot, watched, prefs):
    Services(watched).sites.set_capture_mode("127.0.0.1", "browser")
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    assert capture_texts(panel)["127.0.0.1"] == "browser"
    choose(qtbot, panel, "127.0.0.1")
    menu = panel.make_menu()  # what a right click on the row pops up
    (action,) = [a for a in menu.actions() if a.text() == "Capture with a browser"]
    assert action.isCheckable() and action.isChecked()
    with qtbot.waitSignal(window.context.changes.sig_settings):
        action.trigger()
    assert panel.message.text().startswith("127.0.0.1: captured over HTTP from its next fetch")
    qtbot.waitUntil(lambda: capture_texts(panel).get("127.0.0.1") == "http")
    # the project-wide mode says http already: the site's own entry is forgotten
    assert capture_modes.host_modes() == {}
    window.close()


def test_browser_mode_without_chromium_says_so_and_keeps_the_mode(
    qtbot, watched, prefs, monkeypatch, tmp_path
):
    monkeypatch.setattr(chromium, "KNOWN_BINARIES", ())
    monkeypatch.setenv("PATH", str(tmp_path))  # no chromium on it
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    choose(qtbot, panel, "later.example")
    with qtbot.waitSignal(window.context.changes.sig_settings):
        qtbot.mouseClick(panel.capture_button, Qt.MouseButton.LeftButton)
    assert panel.message.text() == (
        f"later.example is to be captured in a browser, but {chromium.MISSING}"
    )
    assert "\n" not in panel.message.text()
    qtbot.waitUntil(lambda: capture_texts(panel).get("later.example") == "browser")
    assert capture_modes.host_modes() == {"later.example": "browser"}
    window.close()


def test_a_site_under_a_domains_mode_shows_where_it_comes_from(qtbot, watched, prefs):
    Services(watched).settings.update({"capture.mode@example": "browser"})
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    assert capture_texts(panel) == {"127.0.0.1": "http", "later.example": "browser"}
    row = panel.model.row_of("later.example")
    tip = panel.model.index(row, CAPTURE_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "Captured in a browser (Chromium): the mode of example (capture.mode@example)"
    row = panel.model.row_of("127.0.0.1")
    tip = panel.model.index(row, CAPTURE_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "Captured over HTTP: the project's capture mode (Settings: capture.mode)"
    window.close()


def test_change_rules_opens_the_editor_on_the_chosen_site(qtbot, watched, prefs, server):
    site = server.url("/").split("/")[2]  # 127.0.0.1:PORT: the seed's port, or no page matches
    save_rules(ChangeRules((ChangeRule(site, remove=(".ticker",), added_only=True),)))
    window = open_window(qtbot, watched, prefs)
    panel = open_sites(qtbot, window)
    assert "Change rules…" in [a.text() for a in panel.make_menu().actions()]
    choose(qtbot, panel, "later.example")
    qtbot.mouseClick(panel.rules_button, Qt.MouseButton.LeftButton)
    editor = window.change_rules
    assert editor is not None and editor.isVisible()
    qtbot.waitUntil(lambda: editor.loaded and editor.prefix.text() == "later.example")
    assert editor.form_rule() == ChangeRule("later.example")  # a new rule, nothing in it
    assert editor.rules_model.rowCount() == 1  # the project's rule, listed
    assert not editor.delete_button.isEnabled()  # nothing kept on that prefix yet
    choose(qtbot, panel, "127.0.0.1")
    next(a for a in panel.make_menu().actions() if a.text() == "Change rules…").trigger()
    qtbot.waitUntil(lambda: editor.prefix.text() == site)
    assert editor.form_rule().matches(server.url("/a"))
    assert editor.remove.toPlainText() == ".ticker" and editor.added_only.isChecked()
    assert editor.rules_view.currentIndex().row() == 0 and editor.delete_button.isEnabled()
    window.close()
