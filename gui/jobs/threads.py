"""Every ``QThread`` the GUI starts, in one registry.

Workers are ``QObject``s moved onto a thread of their own (STYLE: background work).
The registry lets the window wait for them on close and lets the tests fail any test
that leaves one running.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QObject, QThread

_threads: weakref.WeakSet[QThread] = weakref.WeakSet()


def start_thread(worker: QObject, name: str) -> QThread:
    """Move ``worker`` onto a new, started thread named ``name``."""
    thread = QThread()
    thread.setObjectName(name)
    worker.moveToThread(thread)
    _threads.add(thread)
    thread.start()
    return thread


def running_threads() -> list[QThread]:
    return [t for t in list(_threads) if t.isRunning()]
