"""The Workers panel (docs/design.md §12): who crawls a shared PostgreSQL project.

It lists the crawl workers ``store.list_workers`` returns — live ones, then those that
ended or died in the last day — with the hosts each leases, its rate and its heartbeat.
The list is read on the store thread (the panel never touches the database) and read
again every :data:`REFRESH_MS` while the panel is on screen; hidden, it reads nothing.
On a SQLite project one crawl runs at a time: the panel says so in one line, and lists
a ``recrawl worker`` there if one runs.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from recrawl.core import store
from recrawl.core.store import WorkerInfo
from recrawl.core.words import plural
from recrawl.gui.common.tables import compact_rows
from recrawl.gui.context import AppContext
from recrawl.gui.panel import Panel
from recrawl.gui.workers.workers_model import HEARTBEAT, WorkersModel

#: How often the list is read again while the panel is shown: heartbeats come every
#: third of a lease (20 s by default), ages and pages/s are worth a look more often.
REFRESH_MS = 2000

SQLITE_NOTE = (
    "Workers need a PostgreSQL store: on this SQLite project one crawl, watch or "
    "worker runs at a time (recrawl init DIR --db postgresql://… makes a shared one)."
)
EMPTY_HINT = (
    "No crawl workers in the last 24 hours. Start one on any machine that shares this "
    "project's folder and database: recrawl worker DIR. A crawl or watch on this "
    "project (the app's too) is a worker as well."
)


class WorkersPanel(Panel):
    title = "Workers"
    key = "workers"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.shared = store.is_server_store()
        self.model = WorkersModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        compact_rows(self.table)
        metrics = self.table.fontMetrics()
        samples = (
            "crawler-host-12345",
            "crawler-host",
            "1234567",
            "ended",
            "1,000",
            "1,000.0",
            "1,000,000",
            "2026-11-30 07:13",
        )
        for column, sample in enumerate(samples):
            title = self.model.COLUMNS[column].title
            width = max(metrics.horizontalAdvance(sample), metrics.horizontalAdvance(title))
            self.table.setColumnWidth(column, width + 24)
        self.table.horizontalHeader().setSectionResizeMode(
            HEARTBEAT, QHeaderView.ResizeMode.Stretch
        )

        self.note = QLabel(SQLITE_NOTE)
        self.note.setWordWrap(True)
        self.note.setVisible(not self.shared)
        self.summary = QLabel()
        self.hint = QLabel(EMPTY_HINT)
        self.hint.setWordWrap(True)
        self.hint.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.summary)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.reload)
        #: A listing is on its way: the timer asks no second one meanwhile (a slow
        #: database must not pile them up on the store thread).
        self._asked = False
        self._loaded = False

    # -- refreshing while shown ------------------------------------------------------

    def activate(self) -> None:
        self.reload()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.timer.stop()

    def shutdown(self) -> None:
        self.timer.stop()

    def reload(self) -> None:
        if self._asked:
            return
        self._asked = True
        self.context.jobs.submit(store.list_workers, self._show, self._failed)

    def _failed(self, message: str) -> None:
        self._asked = False
        self.summary.setText(f"Could not read the workers: {message}")

    # -- the list ----------------------------------------------------------------------

    def _show(self, workers: list[WorkerInfo]) -> None:
        self._asked = False
        self._loaded = True
        self.model.set_rows(workers)
        self.table.setVisible(bool(workers))
        self.hint.setVisible(self.shared and not workers)
        self.summary.setText(summary(workers))
        self.summary.setVisible(bool(workers))


def summary(workers: list[WorkerInfo]) -> str:
    """``2 live workers: 5 hosts leased, 84.2 pages/s; 1 dead, 1 ended``."""
    live = [w for w in workers if w.state == "live"]
    parts = []
    if live:
        hosts = sum(w.leased_hosts for w in live)
        rate = sum(w.pages_per_s for w in live)
        parts.append(
            f"{plural(len(live), 'live worker')}: {plural(hosts, 'host')} leased, "
            f"{rate:,.1f} pages/s"
        )
    else:
        parts.append("No live worker")
    for state in ("dead", "ended"):
        count = sum(1 for w in workers if w.state == state)
        if count:
            parts.append(f"{count} {state}")
    return "; ".join(parts)
