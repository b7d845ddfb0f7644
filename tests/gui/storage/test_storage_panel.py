"""The Storage panel shows the report's figures, and warns when the disk runs low."""

from __future__ import annotations

from PySide6.QtCore import Qt
from recrawl.core.engine import inject
from recrawl.core.policy import crawl_settings
from recrawl.core.services.storage import storage_report
from recrawl.gui.common.formatting import size
from recrawl.gui.storage.storage_model import ROW_ROLE

from tests.support.crawling import DAY, T0, clock_at, crawl


def crawl_rounds(project, server, rounds: int = 3) -> None:
    inject([server.url("/a"), server.url("/b")], T0)
    for r in range(rounds):
        server.html("/a", f"<p>a version {r}</p>")
        server.html("/b", "<p>b, always the same</p>")
        crawl(project, clock=clock_at(r * 40 * DAY))


def shown(qtbot, window):
    window.show_panel("storage")
    panel = window.panels["storage"]
    qtbot.waitUntil(lambda: panel.report is not None, timeout=10_000)
    return panel


def test_the_panel_shows_bytes_by_site_month_and_kind(
    qtbot, qtmodeltester, window, project, server
):
    crawl_rounds(project, server)
    panel = shown(qtbot, window)
    qtmodeltester.check(panel.sites)
    qtmodeltester.check(panel.months)
    expected = storage_report(project.path)
    assert panel.sites.rowCount() == 1
    site = panel.sites.index(0, 0).data(ROW_ROLE)
    assert site.key == "127.0.0.1" and site.captures == 6
    assert panel.sites.index(0, 1).data() == size(expected.warc_bytes)
    months = [panel.months.index(i, 0).data() for i in range(panel.months.rowCount())]
    assert months == ["2027-01", "2027-02", "2027-03"]
    assert panel.kind_values["pages"].text() == size(expected.by_kind["pages"])
    assert panel.kind_values["store"].text() != ""
    assert "Segments: 3" in panel.segments.text()
    assert "Compaction: 2 segments" in panel.compaction.text()
    assert "a month" in panel.growth.text()
    assert panel.free.text().startswith("Free: ")
    assert not panel.warning.isVisible()


def test_the_panel_warns_below_the_free_space_setting(qtbot, window, project, server):
    crawl_rounds(project, server, rounds=1)
    panel = shown(qtbot, window)
    assert not panel.warning.isVisible()
    crawl_settings.save({"storage.warn_free": 1 << 60})
    first = panel.report
    window.context.changes.sig_settings.emit()  # what the Settings dialog says when saved
    qtbot.waitUntil(lambda: panel.report is not first, timeout=10_000)
    assert panel.warning.isVisible()
    assert panel.warning.text().startswith("Low disk space: only ")
    # in the units of the panel's other figures (its "Free:" line), not the command's
    free = panel.report.free
    assert f"only {size(free.free_bytes)} free" in panel.warning.text()
    assert size(free.warn_below) in panel.warning.text()
    assert "GiB" not in panel.warning.text()


def test_a_round_refreshes_the_shown_panel(qtbot, window, project, server):
    crawl_rounds(project, server, rounds=1)
    panel = shown(qtbot, window)
    assert panel.months.rowCount() == 1
    server.html("/a", "<p>a, later</p>")
    crawl(project, clock=clock_at(40 * DAY))
    first = panel.report
    window.context.changes.sig_segments.emit()  # what the app's store watcher says
    qtbot.waitUntil(lambda: panel.report is not first, timeout=10_000)
    assert panel.months.rowCount() == 2


def test_ctrl_9_shows_the_storage_panel(qtbot, window):
    qtbot.keyClick(window, Qt.Key.Key_9, Qt.KeyboardModifier.ControlModifier)
    assert window.current_panel().key == "storage"
    panel = window.panels["storage"]
    qtbot.waitUntil(lambda: panel.report is not None, timeout=10_000)
    assert panel.sites.rowCount() == 0 and panel.growth.text().startswith("Growth: not known")


def test_the_panel_says_one_segment_holds(qtbot, window, project, server):
    crawl_rounds(project, server, rounds=2)
    panel = shown(qtbot, window)
    assert panel.compaction.text().startswith("Compaction: 1 segment (")
    assert ") holds 1 superseded capture" in panel.compaction.text()
