"""What the Search panel's tests share: the pages of the ``crawled`` project
(tests/gui/search/conftest.py) and the steps of driving the panel."""

from __future__ import annotations

from PySide6.QtCore import Qt
from recrawl.gui.search.search_panel import SearchPanel

SENTENCE = "The harbour wall will close for repairs in the spring."
PLAIN = "The town council met on Monday and the ferry runs every hour as before."


def article(*paragraphs: str, title: str = "Harbour news") -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<html><head><title>{title}</title></head><body><article>{body}</article></body></html>"


def search_panel(qtbot, window) -> SearchPanel:
    """The Search panel shown (Ctrl+F), its index complete."""
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    panel = window.panels["search"]
    assert isinstance(panel, SearchPanel)
    qtbot.waitUntil(lambda: panel.index_complete is True and not panel.index_job.busy)
    return panel


def type_query(qtbot, panel: SearchPanel, text: str) -> None:
    panel.query_edit.clear()
    with qtbot.waitSignal(panel.sig_shown, check_params_cb=lambda: panel.asked.text == text):
        qtbot.keyClicks(panel.query_edit, text)
    qtbot.waitUntil(lambda: panel.answer is not None and panel.answer.asked.text == text)
