""" "Mark all as seen" in What's new marks what the kind and site filters list, not
everything (issue 25 item 14)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from recrawl.core import store

from tests.gui.helpers import open_window
from tests.gui.news.test_news_panel import DAY1, DAY2, news_panel, sample, texts, wait_items


def bold(index) -> bool:
    font = index.data(Qt.ItemDataRole.FontRole)
    return font is not None and font.bold()


def test_mark_all_as_seen_marks_what_the_filters_list(qtbot, project, prefs):
    sample()  # day 1: a.example 12 new, 3 changed; b.example 2 new. Day 2: 1 gone
    window = open_window(qtbot, project, prefs)
    panel = news_panel(qtbot, window)
    model = panel.model
    with qtbot.waitSignal(model.sig_loaded):
        panel.kind.setCurrentIndex(panel.kind.findData("changed"))
    assert panel.count_label.text() == "3 items, 3 unseen"
    qtbot.mouseClick(panel.seen_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.nav.item(0).text() == "What's new (15)")
    assert store.unseen_news_count() == 15
    assert panel.count_label.text() == "3 items" and not panel.seen_button.isEnabled()
    assert texts(panel) == ["Friday 1 January 2027 — 3 changed pages on 1 site"]

    # all kinds again: the changes read as seen, the new pages and the gone one do not
    with qtbot.waitSignal(model.sig_loaded):
        panel.kind.setCurrentIndex(0)
    assert panel.count_label.text() == "18 items, 15 unseen" and panel.seen_button.isEnabled()
    panel.tree.expand(model.day_index(panel.day_node(DAY1)))
    site = wait_items(qtbot, panel, DAY1, "a.example", 15)
    kinds = {model.index(r, 1, site).data(): bold(model.index(r, 0, site)) for r in range(15)}
    assert kinds == {"changed": False, "new": True}
    assert bold(model.index(0, 0, wait_items(qtbot, panel, DAY2, "a.example", 1)))

    # one site: b.example's two new pages, nothing of a.example's
    with qtbot.waitSignal(model.sig_loaded):
        panel.site.setCurrentIndex(panel.site.findData("b.example"))
        panel.site.activated.emit(panel.site.currentIndex())
    qtbot.mouseClick(panel.seen_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.nav.item(0).text() == "What's new (13)")
    assert {i.host for i in store.news_items() if store.is_unseen(i, store.seen_marks())} == {
        "a.example"
    }
    window.close()
