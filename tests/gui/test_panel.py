"""The panels' lazy refresh (gui/panel.py): a hidden panel queries nothing, showing it
queries once, the changes of one turn of the event loop make one query, and a reader's
place is kept."""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtWidgets import QApplication
from recrawl.gui.panel import Panel


class Counting(Panel):
    key = "counting"

    def __init__(self) -> None:
        super().__init__(SimpleNamespace())  # type: ignore[arg-type]  # the base only keeps it
        self.queries = 0
        self.said: list[bool] = []
        self.read = False

    def query(self) -> None:
        self.queries += 1

    def reading(self) -> bool:
        return self.read

    def show_stale(self, stale: bool) -> None:
        self.said.append(stale)


def settle() -> None:
    """Run what the event loop has queued (the refresh is due in its next turn)."""
    for _ in range(3):
        QApplication.processEvents()


def shown(qtbot) -> Counting:
    panel = Counting()
    qtbot.addWidget(panel)
    with qtbot.waitExposed(panel):
        panel.show()
    panel.activate()
    assert panel.queries == 1
    return panel


def test_a_hidden_panel_queries_nothing_and_once_when_shown(qtbot):
    panel = shown(qtbot)
    panel.hide()
    for _ in range(3):
        panel.changed()
    settle()
    assert panel.queries == 1
    assert panel.stale and panel.said == [True]  # said once, not per change

    panel.show()
    panel.activate()
    settle()
    assert panel.queries == 2
    assert not panel.stale and panel.said == [True, False]
    panel.activate()  # shown again with nothing new: no query
    assert panel.queries == 2


def test_changes_together_make_one_query(qtbot):
    panel = shown(qtbot)
    for _ in range(3):
        panel.changed()
    assert panel.queries == 1  # not at once: when the event loop turns
    qtbot.waitUntil(lambda: panel.queries == 2)
    settle()
    assert panel.queries == 2
    assert panel.said == []


def test_a_refresh_asked_meanwhile_takes_the_changes_with_it(qtbot):
    panel = shown(qtbot)
    panel.changed()
    panel.refresh()  # the user's own action shows its effect now
    settle()
    assert panel.queries == 2


def test_a_reader_keeps_their_place_until_they_ask(qtbot):
    panel = shown(qtbot)
    panel.read = True
    panel.changed()
    settle()
    assert panel.queries == 1 and panel.stale and panel.said == [True]
    panel.refresh()  # the Refresh button
    assert panel.queries == 2 and not panel.stale and panel.said == [True, False]


def test_hidden_before_the_refresh_was_due_it_waits_to_be_shown(qtbot):
    panel = shown(qtbot)
    panel.changed()
    panel.hide()
    settle()
    assert panel.queries == 1 and panel.stale


def test_a_panel_never_shown_ignores_changes_until_it_is(qtbot):
    panel = Counting()
    qtbot.addWidget(panel)
    panel.changed()
    settle()
    assert panel.queries == 0 and not panel.stale
    panel.activate()
    assert panel.queries == 1


def test_the_sites_panel_queries_once_for_what_a_round_says(qtbot, window, monkeypatch):
    """A seed added says "pages" and "policy": the shown Sites panel reads its list once
    (it read it twice, once per signal); hidden, it reads it when shown, once."""
    sites = window.panels["sites"]
    reloads: list[None] = []
    window.show_panel("sites")
    real = sites.model.reload
    monkeypatch.setattr(sites.model, "reload", lambda: (reloads.append(None), real())[1])

    window.context.changes.sig_pages.emit()
    window.context.changes.sig_policy.emit()
    qtbot.waitUntil(lambda: len(reloads) == 1)
    settle()
    assert len(reloads) == 1

    window.show_panel("crawl")
    for _ in range(3):
        window.context.changes.sig_pages.emit()
        window.context.changes.sig_policy.emit()
    settle()
    assert len(reloads) == 1
    window.show_panel("sites")
    settle()
    assert len(reloads) == 2
