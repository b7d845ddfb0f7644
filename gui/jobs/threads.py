"""Every ``QThread`` the GUI starts, in one registry.

Jobs run on ``QObject``s moved onto a thread of their own (STYLE: background work).
The registry lets the window wait for them on close and lets the tests fail any test
that leaves one running.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QObject, QThread

_threads: weakref.WeakSet[QThread] = weakref.WeakSet()


def start_thread(runner: QObject, name: str) -> QThread:
    """Move ``runner`` onto a new, started thread named ``name``."""
    thread = QThread()
    thread.setObjectName(name)
    runner.moveToThread(thread)
    _threads.add(thread)
    thread.start()
    return thread


def running_threads() -> list[QThread]:
    return [t for t in list(_threads) if t.isRunning()]
