"""Times, durations and words as the window shows them (issue 25 items 17, 18, 23):
local times labelled, one duration format that the fields also read, liveness never
rounded to full, statuses and plurals as words."""

from __future__ import annotations

import time
from datetime import datetime

import pytest
from PySide6.QtCore import Qt
from recrawl.gui.filters.filter_models import RejectedModel
from recrawl.gui.pages.page_detail import FixIntervalDialog
from recrawl.gui.pages.pages_model import _text

FIXED = 8685 * 60  # 6.03 days, which the page's summary reads as "6.0 d"


@pytest.fixture
def tokyo(monkeypatch):
    """The local clock nine hours ahead of UTC, all year."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def fix_dialog(qtbot, current: float) -> FixIntervalDialog:
    dialog = FixIntervalDialog("https://example.org/", current, None)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def ok(qtbot, dialog: FixIntervalDialog) -> list[object]:
    with qtbot.waitSignal(dialog.sig_chosen) as chosen:
        dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    return chosen.args


def test_fix_interval_is_filled_as_the_interval_reads_and_reads_what_it_shows(qtbot):
    dialog = fix_dialog(qtbot, FIXED)
    assert dialog.edit.text() == "6.0 d"  # not "8685m"
    assert ok(qtbot, dialog) == [FIXED]  # left as filled: the interval as it was
    for typed, seconds in (("90 min", 5400), ("8 h", 8 * 3600), ("2.5 d", 2.5 * 86400)):
        dialog = fix_dialog(qtbot, FIXED)
        dialog.edit.clear()
        qtbot.keyClicks(dialog.edit, typed)
        assert ok(qtbot, dialog) == [seconds]


def segment(name: str, records: int, live: int) -> dict[str, object]:
    return {
        "name": name,
        "created_at": datetime.strptime(name[:14], "%Y%m%d%H%M%S"),
        "records": records,
        "live_records": live,
        "liveness": live / records if records else 0.0,
        "bytes": 1000 * records,
    }


def test_segments_read_in_local_time_and_a_partial_one_never_reads_full(qtbot, window, tokyo):
    window.show_panel("segments")
    panel = window.panels["segments"]
    qtbot.waitUntil(lambda: panel._loaded)
    panel._show(
        [
            segment("20261202010147", 461, 459),
            segment("20261202020000-w1", 461, 461),
            segment("20261203000000", 2000, 1),
            segment("20261204000000", 10, 0),
        ]
    )
    model = panel.model
    text = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(4)]
    # the name is UTC: 01:01:47 UTC is 10:01:47 in Tokyo; a worker's tag stays
    assert [row[0] for row in text] == [
        "2026-12-02 10:01:47",
        "2026-12-02 11:00:00 w1",
        "2026-12-03 09:00:00",
        "2026-12-04 09:00:00",
    ]
    tip = model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "20261202010147" in tip and "UTC" in tip and "local time" in tip
    assert "local time" in model.headerData(
        0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
    )
    # 459 of 461 is not all of them; 1 of 2,000 is not none of them
    assert [row[4] for row in text] == ["99 %", "100 %", "<1 %", "0 %"]
    assert panel.summary.text().startswith("4 segments, ")


def test_statuses_read_as_words_and_the_filter_keeps_their_names(qtbot, window):
    window.show_panel("pages")
    combo = window.panels["pages"].status
    shown = {combo.itemText(i): combo.itemData(i) for i in range(combo.count())}
    assert shown["not modified"] == "notmodified"
    assert shown["robots.txt denied"] == "robots_denied"
    assert shown["redirected (permanent)"] == "redirect_perm"
    assert not any("_" in text for text in shown)
    assert _text("status", "notmodified") == "not modified"


def test_why_not_crawled_says_since_when_a_link_is_rejected(qtbot):
    model = RejectedModel()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert "Rejected since" in headers and "First seen" not in headers
