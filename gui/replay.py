"""Captures opened in the browser as they looked: the project's replay server, in the background.

"Open capture in browser" needs ``recrawl replay`` serving the project
(:class:`~recrawl.core.replay.server.ReplayServer`, a process of its own). The first request
starts it on a worker thread (pywb takes a second or two to load); the URLs asked for
meanwhile open once its port is known, and later ones at once. One server per project,
kept until the project closes or the app quits; if it dies, the next request starts
another.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, QThread, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from recrawl.core.errors import RecrawlError, ReplayUnavailable
from recrawl.core.replay.server import ReplayServer
from recrawl.gui.jobs.threads import start_thread

#: What the app says when pywb is not installed (pip) or not in the bundle.
UNAVAILABLE = (
    "Opening captures in the browser needs pywb, which is not installed with this "
    "Recrawl: pip install 'recrawl[replay]'"
)


class _Starter(QObject):
    """Starts the server on its own thread: starting blocks until pywb listens."""

    sig_started = Signal(object)  # the ReplayServer
    sig_failed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        #: The last server started: whoever shuts down after the thread ends stops it,
        #: even if its signal never reached the GUI thread.
        self.server: ReplayServer | None = None
        self._lock = threading.Lock()
        self._starting: ReplayServer | None = None
        self._aborted = False

    def abort(self) -> None:
        """Kill the server being started, if one is (thread-safe: the GUI thread calls
        it so as not to wait for pywb to load), and any started later; one that started
        is left to be stopped cleanly."""
        with self._lock:
            self._aborted = True
            if self._starting is not None:
                self._starting.abort()

    @Slot(str)
    def start(self, project_dir: str) -> None:
        try:
            server = ReplayServer(Path(project_dir), wait=False)
            with self._lock:
                self.server = self._starting = server
                if self._aborted:
                    server.abort()
            try:
                server.wait_started()
            finally:
                with self._lock:
                    self._starting = None
        except ReplayUnavailable:
            self.sig_failed.emit(UNAVAILABLE)
        except RecrawlError as exc:
            self.sig_failed.emit(str(exc))
        except OSError as exc:  # the executable or a pipe failed
            self.sig_failed.emit(f"the replay server did not start: {exc}")
        else:
            self.sig_started.emit(server)


class ReplayService(QObject):
    """The project's replay server, started when first needed, for "Open capture in browser"."""

    sig_start = Signal(str)
    #: A capture's replay URL the app asked the desktop to open, and whether a browser
    #: took it (False: none could be started; the window says so, with the address).
    sig_opened = Signal(str, bool)
    #: The server could not start (without pywb: :data:`UNAVAILABLE`).
    sig_failed = Signal(str)

    def __init__(self, project_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project_dir = project_dir
        self._server: ReplayServer | None = None
        self._starter: _Starter | None = None
        self._thread: QThread | None = None
        self._starting = False
        self._pending: list[tuple[str, str]] = []  # (stamp, url) waiting for the port
        self._closed = False

    @property
    def server(self) -> ReplayServer | None:
        """The running server, if one is."""
        return self._server if self._server is not None and self._server.running else None

    def warm(self) -> None:
        """Start the server now if none runs (a request is coming)."""
        if self._closed or self._starting or self.server is not None:
            return
        if self._starter is None:
            self._starter = _Starter()
            self._starter.sig_started.connect(self._started)
            self._starter.sig_failed.connect(self._failed)
            self.sig_start.connect(self._starter.start)
            self._thread = start_thread(self._starter, "replay-start")
        self._starting = True
        self.sig_start.emit(str(self.project_dir))

    def open(self, stamp: str, url: str) -> None:
        """Open ``url`` as captured at ``stamp`` (14 digits) in the browser."""
        if self._closed:
            return
        server = self.server
        if server is not None:
            self._open(server, stamp, url)
            return
        self._pending.append((stamp, url))
        self.warm()

    def shutdown(self) -> None:
        """Stop the server (after a start in progress ends); nothing opens afterwards."""
        self._closed = True
        self._pending.clear()
        if self._starter is not None:
            self._starter.abort()  # a start in progress ends now, not once pywb loaded
        if self._thread is not None:
            self._thread.quit()  # after the start in progress, if one is
            self._thread.wait()
        servers = {id(s): s for s in (self._server, self._starter and self._starter.server) if s}
        for server in servers.values():
            server.stop()
        self._server = None

    @Slot(object)
    def _started(self, server: ReplayServer) -> None:
        self._starting = False
        if self._closed:
            return  # shutdown() stops it
        self._server = server
        pending, self._pending = self._pending, []
        for stamp, url in pending:
            self._open(server, stamp, url)

    @Slot(str)
    def _failed(self, message: str) -> None:
        self._starting = False
        self._pending.clear()
        if not self._closed:
            self.sig_failed.emit(message)

    def _open(self, server: ReplayServer, stamp: str, url: str) -> None:
        address = server.url(stamp, url)
        self.sig_opened.emit(address, QDesktopServices.openUrl(QUrl(address)))
