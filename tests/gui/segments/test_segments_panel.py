"""The Segments panel lists liveness and compacts in the background."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView
from recrawl.core.engine import inject
from recrawl.core.store.models import Segment

from tests.gui.helpers import capture_warnings
from tests.support.crawling import DAY, T0, clock_at, crawl

ROUNDS = 4


def crawl_rounds(project, server) -> None:
    """Four rounds: /a changes every round, /b never, so old rounds keep /b's response."""
    inject([server.url("/a"), server.url("/b")], T0)
    for r in range(ROUNDS):
        server.html("/a", f"<p>a version {r}</p>")
        server.html("/b", "<p>b, always the same</p>")
        crawl(project, clock=clock_at(r * 100 * DAY))


def shown(qtbot, window):
    window.show_panel("segments")
    panel = window.panels["segments"]
    qtbot.waitUntil(lambda: panel.model.rowCount() > 0, timeout=10_000)
    return panel


def liveness(panel) -> dict[str, float]:
    return {
        panel.model.row(i)["name"]: panel.model.row(i)["liveness"]
        for i in range(panel.model.rowCount())
    }


def test_an_empty_project_explains_segments(qtbot, window):
    window.show_panel("segments")
    panel = window.panels["segments"]
    qtbot.waitUntil(lambda: panel._loaded, timeout=10_000)
    assert panel.hint.isVisible() and "Each crawl round writes one segment" in panel.hint.text()
    assert not panel.compact_below.isEnabled()


def test_compact_all_below_updates_liveness(qtbot, qtmodeltester, window, project, server):
    crawl_rounds(project, server)
    panel = shown(qtbot, window)
    qtmodeltester.check(panel.model)  # Qt's own checks of the model's contract
    before = liveness(panel)
    assert len(before) == ROUNDS
    assert list(before.values()) == [0.5, 0.0, 0.0, 1.0]  # round 0 keeps /b's response
    assert "4 segments" in panel.summary.text() and "2 below 50 %" in panel.summary.text()
    panel.threshold.clear()
    qtbot.keyClicks(panel.threshold, "60")  # round 0, at 50 %, joins the two dead ones
    with qtbot.waitSignal(window.context.compaction.sig_finished, timeout=30_000) as done:
        qtbot.mouseClick(panel.compact_below, Qt.MouseButton.LeftButton)
        assert not panel.compact_below.isEnabled()  # one compaction at a time
    summary = done.args[0]
    assert summary.compacted == list(before)[:3]
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=10_000)
    after = liveness(panel)
    assert list(after.values()) == [1.0, 1.0]
    assert summary.new_segment in after
    assert "Compacted 3 segments" in panel.status.text()
    assert {s.name for s in Segment.select()} == set(after)
    qtbot.waitUntil(lambda: panel.compact_below.isEnabled(), timeout=10_000)


def test_compact_selected_with_drop(qtbot, window, project, server):
    crawl_rounds(project, server)
    panel = shown(qtbot, window)
    names = list(liveness(panel))
    panel.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
    panel.table.selectRow(1)
    panel.table.selectRow(2)
    panel.drop.setChecked(True)
    assert panel.compact_selected.isEnabled()
    with qtbot.waitSignal(window.context.compaction.sig_finished, timeout=30_000) as done:
        qtbot.mouseClick(panel.compact_selected, Qt.MouseButton.LeftButton)
    summary = done.args[0]
    assert summary.compacted == names[1:3]
    assert summary.records_dropped == 4 and summary.records_kept == 0
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=10_000)
    assert list(liveness(panel)) == [names[0], names[3]]


def test_closing_during_a_compaction_waits_for_it(qtbot, window, project, server):
    crawl_rounds(project, server)
    panel = shown(qtbot, window)
    with qtbot.waitSignal(window.context.compaction.sig_idle, timeout=30_000):
        qtbot.mouseClick(panel.compact_below, Qt.MouseButton.LeftButton)
        window.close()
        assert window.isVisible()  # not while the compaction runs
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=10_000)


def test_a_failed_open_keeps_the_project_that_was_open(
    qtbot, window, project, server, tmp_path, monkeypatch
):
    crawl_rounds(project, server)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "recrawl.sqlite").write_bytes(b"this is not a database" * 100)
    shown_messages = capture_warnings(monkeypatch)
    assert not window.open_project_path(str(broken))
    assert shown_messages and "cannot open the store" in shown_messages[0]
    assert window.project_path() == project.path
    panel = shown(qtbot, window)  # its queries still reach its own store
    assert panel.model.rowCount() == ROUNDS
