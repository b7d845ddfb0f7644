"""Work off the GUI thread (STYLE: one serial executor, results by signal).

``submit`` runs short store queries one at a time on the store thread, which has its
own database connection; ``compute`` runs long jobs (simulations, a preview over every
known URL, a CSV export) on a second thread with a connection of its own, so a long
one never holds up the queries that keep the tables moving. Results come back to the
GUI thread through a signal and are handed to the caller's callback. Jobs return plain
values (tuples, dicts, frozen dataclasses), never peewee model instances, which belong
to the thread that made them.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot
from recrawl.core import store
from recrawl.core.errors import RecrawlError
from recrawl.core.project import Project
from recrawl.gui.jobs.threads import start_thread

Done = Callable[[Any], None]
Failed = Callable[[str], None]


class _LaneRunner(QObject):
    sig_done = Signal(int, object)
    sig_failed = Signal(int, str)

    def __init__(self, project: Project, closing: threading.Event) -> None:
        super().__init__()
        self._project = project
        self._closing = closing

    @Slot(int, object)
    def run(self, ticket: int, job: Callable[[], Any]) -> None:
        if self._closing.is_set():
            return  # queued for a project that is being closed: nobody wants the answer
        try:
            with self._project.active():  # each job: Qt keeps no Python context per thread
                result = job()
        except RecrawlError as exc:
            self.sig_failed.emit(ticket, str(exc))
        except Exception as exc:  # a failed job must not kill the thread
            self.sig_failed.emit(ticket, f"{type(exc).__name__}: {exc}")
        else:
            self.sig_done.emit(ticket, result)

    @Slot()
    def finish(self) -> None:
        with self._project.active():
            store.close_database()  # this thread's connection, if it opened one
        self.thread().quit()


class _Lane(QObject):
    """One thread running jobs in order."""

    sig_run = Signal(int, object)
    sig_finish = Signal()

    def __init__(
        self,
        project: Project,
        name: str,
        on_done: Callable[..., None],
        on_failed: Callable[..., None],
        closing: threading.Event,
    ) -> None:
        super().__init__()
        self.runner = _LaneRunner(project, closing)
        self._thread: QThread = start_thread(self.runner, name)  # not QObject.thread()
        self.sig_run.connect(self.runner.run)
        self.sig_finish.connect(self.runner.finish)
        self.runner.sig_done.connect(on_done)
        self.runner.sig_failed.connect(on_failed)

    def stop(self) -> None:
        self.sig_finish.emit()  # queued after the jobs already submitted
        self._thread.wait()


class StoreJobs(QObject):
    """``submit`` (short queries) and ``compute`` (long jobs) on ``project``'s store; both
    return a ticket."""

    #: Any job failed (after its own error callback, if it had one).
    sig_failed = Signal(str)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tickets = itertools.count(1)
        self._callbacks: dict[int, tuple[Done, Failed | None]] = {}
        self._closed = False
        self._closing = threading.Event()
        self._store = _Lane(project, "store-jobs", self._done, self._failed, self._closing)
        self._compute = _Lane(project, "compute-jobs", self._done, self._failed, self._closing)

    def submit(self, job: Callable[[], Any], on_done: Done, on_error: Failed | None = None) -> int:
        return self._queue(self._store, job, on_done, on_error)

    def compute(self, job: Callable[[], Any], on_done: Done, on_error: Failed | None = None) -> int:
        return self._queue(self._compute, job, on_done, on_error)

    def _queue(
        self, lane: _Lane, job: Callable[[], Any], on_done: Done, on_error: Failed | None
    ) -> int:
        ticket = next(self._tickets)
        if not self._closed:
            self._callbacks[ticket] = (on_done, on_error)
            lane.sig_run.emit(ticket, job)
        return ticket

    def pending(self) -> int:
        return len(self._callbacks)

    def shutdown(self) -> None:
        """Skip the queued jobs, let running ones end, close the connections, stop."""
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._store.stop()
        self._compute.stop()
        self._callbacks.clear()

    @Slot(int, object)
    def _done(self, ticket: int, result: Any) -> None:
        callbacks = self._callbacks.pop(ticket, None)
        if callbacks is not None:
            callbacks[0](result)

    @Slot(int, str)
    def _failed(self, ticket: int, message: str) -> None:
        callbacks = self._callbacks.pop(ticket, None)
        if callbacks is not None and callbacks[1] is not None:
            callbacks[1](message)
        self.sig_failed.emit(message)
