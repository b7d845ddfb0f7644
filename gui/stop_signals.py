"""Ctrl-C, SIGTERM and SIGHUP close the app as its window's close button does.

Closing the window stops a running crawl after its fetches in flight, lets a compaction
finish, and then quits (gui/main_window.py); a second Ctrl-C or SIGTERM kills at once
(:mod:`recrawl.core.interrupts`, whose handlers these are).

Qt's event loop runs in C++, and Python runs a signal's handler only when the
interpreter next gets control, which an idle window may not give it for ever. As
matplotlib and napari do (``_maybe_allow_interrupt``) and qutebrowser's crashsignal,
``signal.set_wakeup_fd`` has the C-level handler write to a socket that a
``QSocketNotifier`` watches: the loop wakes, runs a little Python, and with it the
handler. The handler only queues the close, so it never runs inside another slot.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Iterator

from PySide6.QtCore import QSocketNotifier, QTimer
from PySide6.QtWidgets import QWidget
from recrawl.core.interrupts import StopSignals


@contextlib.contextmanager
def close_on_stop_signals(
    window: QWidget, close: Callable[[], object] | None = None
) -> Iterator[StopSignals]:
    """While entered, a stop signal closes ``window`` (from the event loop, soon after);
    ``close``: how (the main window quits, never hides in the tray, on a signal)."""
    signals = StopSignals(
        lambda: QTimer.singleShot(0, close or window.close),
        "closing the window; a crawl stops after its fetches in flight",
    )
    if threading.current_thread() is not threading.main_thread():
        yield signals  # signals reach only the main thread: nothing to wake
        return
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(lambda: _drain(reader))
    previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    try:
        with signals:
            yield signals
    finally:
        signal.set_wakeup_fd(previous)
        notifier.setEnabled(False)
        notifier.deleteLater()
        reader.close()
        writer.close()


def _drain(reader: socket.socket) -> None:
    # what was written is only the signal's number; reading it re-arms the notifier
    with contextlib.suppress(OSError):
        while reader.recv(64):
            pass
