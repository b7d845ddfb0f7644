"""Store queries off the GUI thread (STYLE: one serial executor, results by signal).

Every query a panel needs runs here, one at a time, on a worker thread with its own
database connection; the result comes back to the GUI thread through a signal and is
handed to the caller's callback. Jobs return plain values (tuples, dicts, frozen
dataclasses), never peewee model instances, which belong to the thread that made them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from core import store
from core.errors import RecrawlError
from gui.threads import start_thread


class _Runner(QObject):
    sig_done = Signal(int, object)
    sig_failed = Signal(int, str)

    @Slot(int, object)
    def run(self, ticket: int, job: Callable[[], Any]) -> None:
        try:
            result = job()
        except RecrawlError as exc:
            self.sig_failed.emit(ticket, str(exc))
        except Exception as exc:  # a failed query must not kill the thread
            self.sig_failed.emit(ticket, f"{type(exc).__name__}: {exc}")
        else:
            self.sig_done.emit(ticket, result)

    @Slot()
    def finish(self) -> None:
        store.close_database()  # this thread's connection only
        self.thread().quit()


class StoreJobs(QObject):
    """Runs callables on the store thread; ``submit`` returns a ticket."""

    sig_run = Signal(int, object)
    sig_finish = Signal()
    #: Any job failed (after its own error callback, if it had one).
    sig_failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = _Runner()
        self._thread = start_thread(self._runner, "store-jobs")
        self.sig_run.connect(self._runner.run)
        self.sig_finish.connect(self._runner.finish)
        self._runner.sig_done.connect(self._done)
        self._runner.sig_failed.connect(self._failed)
        self._tickets = itertools.count(1)
        self._callbacks: dict[int, tuple[Callable[[Any], None], Callable[[str], None] | None]] = {}
        self._closed = False

    def submit(
        self,
        job: Callable[[], Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[str], None] | None = None,
    ) -> int:
        ticket = next(self._tickets)
        if self._closed:
            return ticket
        self._callbacks[ticket] = (on_done, on_error)
        self.sig_run.emit(ticket, job)
        return ticket

    def pending(self) -> int:
        return len(self._callbacks)

    def shutdown(self) -> None:
        """Finish the queued jobs, close the thread's connection, stop the thread."""
        if self._closed:
            return
        self._closed = True
        self.sig_finish.emit()
        self._thread.wait()
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
