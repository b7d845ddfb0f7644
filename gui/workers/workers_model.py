"""The crawl workers table (docs/design.md §12): one row per worker of ``store.list_workers``.

Not to be confused with :mod:`recrawl.gui.jobs.long_jobs`, the app's own background threads:
these are the crawl processes (``recrawl worker``, crawls and watches on a PostgreSQL
project) that share the project's store. A project has a handful of them: the whole
list is read at once, off the GUI thread, and replaced on each refresh.
"""

from __future__ import annotations

import os
import socket
from datetime import timedelta
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from recrawl.core.clock import human_duration
from recrawl.core.store import WorkerInfo
from recrawl.gui.common.formatting import local_time
from recrawl.gui.common.table_model import Column, TableModel

#: The row's WorkerInfo, for tests and whoever wants the whole record.
ROW_ROLE = Qt.ItemDataRole.UserRole + 1

#: How each state reads, and what it means (the state cell's tool tip).
STATES = {
    "live": ("live", "Crawling or waiting for due pages; its heartbeat renews its leases."),
    "ended": ("ended", "Stopped cleanly: its leases were released."),
    "dead": (
        "dead",
        "Its heartbeat ran out (killed, or cut off from the database): its hosts are free "
        "for the other workers, and its open segment is recovered by the next one to start.",
    ),
}

DEAD_COLOUR = QColor("#b3261e")
ENDED_COLOUR = QColor("#6b7780")


class WorkersModel(TableModel[WorkerInfo]):
    """Rows are the :class:`~recrawl.core.store.WorkerInfo` values of a listing."""

    COLUMNS = (
        Column("Worker"),
        Column("Machine"),
        Column("PID", numeric=True),
        Column("State"),
        Column("Hosts", "Hosts it holds a lease on now", numeric=True),
        Column("Pages/s", "Its rate over its last heartbeat period", numeric=True),
        Column("Fetched", "Pages it fetched since it started", numeric=True),
        Column("Started", "When it started (local time)"),
        Column(
            "Heartbeat",
            "How long ago it last renewed its leases (by the database's clock), and when "
            "(local time)",
        ),
    )

    def cell(self, worker: WorkerInfo, column: int, role: int) -> Any:
        if role == ROW_ROLE:
            return worker
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(worker, column)
        if role == Qt.ItemDataRole.ForegroundRole:
            if worker.state == "dead":
                return DEAD_COLOUR
            if worker.state == "ended":
                return ENDED_COLOUR
        if role == Qt.ItemDataRole.FontRole and worker.state == "dead" and column == STATE:
            bold = QFont()
            bold.setBold(True)
            return bold
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tip(worker, column)
        return None

    def _text(self, worker: WorkerInfo, column: int) -> str:
        live = worker.state == "live"
        return (
            worker.name,
            worker.machine,
            str(worker.pid),
            STATES.get(worker.state, (worker.state, ""))[0],
            f"{worker.leased_hosts:,}" if live else "",
            f"{worker.pages_per_s:,.1f}" if live else "",
            f"{worker.fetched:,}",
            local_time(worker.started_at),
            heartbeat_text(worker),
        )[column]

    def _tip(self, worker: WorkerInfo, column: int) -> str | None:
        if column == NAME and is_this_app(worker):
            return "This window's crawl (a crawl on a PostgreSQL project is a worker too)"
        if column == STATE:
            tip = STATES.get(worker.state, ("", ""))[1]
            if worker.ended_at is not None:
                tip += f" Ended {local_time(worker.ended_at, seconds=True)} (local time)."
            return tip
        if column == STARTED:
            return f"{local_time(worker.started_at, seconds=True)} (local time)"
        if column == HEARTBEAT:
            return f"last heartbeat {local_time(worker.heartbeat_at, seconds=True)} (local time)"
        return None


def is_this_app(worker: WorkerInfo) -> bool:
    return worker.pid == os.getpid() and worker.machine == socket.gethostname()


def heartbeat_text(worker: WorkerInfo) -> str:
    """``4 s ago, 14:03:22``: the age by the database's clock, and the local time (with
    the date when it is not today's)."""
    when = local_time(worker.heartbeat_at, seconds=True)
    today = local_time(worker.heartbeat_at + timedelta(seconds=worker.heartbeat_age_s))
    if when[:10] == today[:10]:
        when = when[11:]
    return f"{human_duration(worker.heartbeat_age_s)} ago, {when}"


_TITLES = [column.title for column in WorkersModel.COLUMNS]
NAME = _TITLES.index("Worker")
STATE = _TITLES.index("State")
STARTED = _TITLES.index("Started")
HEARTBEAT = _TITLES.index("Heartbeat")
