"""The Workers panel lists a shared project's crawl workers: a real ``recrawl worker``
holding leases on a real eight-host site, one that died, and the same worker ended."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from recrawl.core import store
from recrawl.core.project import Project
from recrawl.gui.workers.workers_model import DEAD_COLOUR, ROW_ROLE
from recrawl.gui.workers.workers_panel import REFRESH_MS, SQLITE_NOTE

from tests.gui.helpers import open_window
from tests.support.interrupted import recrawl, start, watchdog
from tests.support.multisite import MultiHostSite

SHOTS = Path(os.environ.get("RECRAWL_SHOTS", "")) if os.environ.get("RECRAWL_SHOTS") else None


@pytest.fixture
def site() -> Iterator[MultiHostSite]:
    served = MultiHostSite(hosts=8, pages=2)
    yield served
    served.stop()


def _rows(panel) -> dict[str, object]:
    return {
        panel.model.index(r, 0).data(ROW_ROLE).name: panel.model.index(r, 0).data(ROW_ROLE)
        for r in range(panel.model.rowCount())
    }


def _texts(panel, name: str) -> list[str]:
    for r in range(panel.model.rowCount()):
        if panel.model.index(r, 0).data() == name:
            return [panel.model.index(r, c).data() for c in range(panel.model.columnCount())]
    raise AssertionError(f"{name} not listed")


def test_a_worker_shows_live_with_its_hosts_then_ended(
    qtbot, qtmodeltester, prefs, tmp_path, site, pg_url
):
    folder = tmp_path / "shared"
    recrawl("init", folder, "--db", pg_url)
    recrawl("settings", folder, "--set", "sources.enabled=false")
    recrawl("inject", folder, *site.roots())
    project = Project.open(folder)
    # a worker killed long ago in effect: its lease (a millisecond) ran out at once
    store.register_worker("ghost", 4242, "elsewhere", 0.001)
    window = open_window(qtbot, project, prefs)
    site.hold()  # the worker leases every host, then waits on its first answers
    worker = start("worker", folder, "--name", "crawler-1", "--until-idle", "--delay", "0")
    with watchdog(worker):
        window.show_panel("workers")
        panel = window.panels["workers"]
        assert not panel.note.isVisible()  # PostgreSQL: no word about SQLite
        assert panel.timer.isActive() and panel.timer.interval() == REFRESH_MS

        def holding() -> bool:
            rows = _rows(panel)
            crawler = rows.get("crawler-1")
            return crawler is not None and crawler.state == "live" and crawler.leased_hosts == 8

        qtbot.waitUntil(holding)  # the timer's refreshes, nothing else, bring it
        qtmodeltester.check(panel.model)
        rows = _rows(panel)
        assert [w.name for w in panel.model._rows] == ["crawler-1", "ghost"]  # live first
        assert rows["ghost"].state == "dead"
        _name, machine, pid, state, hosts, _rate, _fetched, started, beat = _texts(
            panel, "crawler-1"
        )
        assert (pid, state, hosts) == (str(worker.pid), "live", "8") and machine
        assert started and " ago, " in beat and ":" in beat.split(", ")[1]
        ghost = _texts(panel, "ghost")
        assert ghost[3] == "dead" and ghost[4] == ""  # a dead worker holds nothing
        assert panel.model.index(1, 3).data(Qt.ItemDataRole.ForegroundRole) == DEAD_COLOUR
        assert panel.summary.text().startswith("1 live worker: 8 hosts leased")
        assert "1 dead" in panel.summary.text()
        if SHOTS is not None:
            panel.grab().save(str(SHOTS / "workers-live.png"))

        site.release()
        _out, err = worker.communicate()
    assert worker.returncode == 0, err
    qtbot.waitUntil(lambda: _rows(panel)["crawler-1"].state == "ended")
    ended = _texts(panel, "crawler-1")
    assert ended[3] == "ended" and ended[4] == "" and ended[6] == "24"  # 8 hosts × 3 pages
    assert panel.summary.text() == "No live worker; 1 dead; 1 ended"
    if SHOTS is not None:
        panel.grab().save(str(SHOTS / "workers-ended.png"))

    window.show_panel("segments")  # hidden: no more reading
    assert not panel.timer.isActive()
    window.close()
    project.close()


def test_on_sqlite_the_panel_says_workers_need_postgresql(qtbot, prefs, tmp_path):
    project = Project.init(tmp_path / "alone")  # SQLite, whatever RECRAWL_TEST_STORE says
    window = open_window(qtbot, project, prefs)
    window.show_panel("workers")
    panel = window.panels["workers"]
    qtbot.waitUntil(lambda: panel._loaded)
    assert panel.note.isVisible() and panel.note.text() == SQLITE_NOTE
    assert not panel.table.isVisible() and not panel.hint.isVisible()
    window.close()
    project.close()
