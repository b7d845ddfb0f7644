"""Telling a project's watcher that something it waits on changed, or to stop.

Whoever changes the seeds, the filter chain, the schedule or the crawl settings of a
project calls :func:`wake_watcher` afterwards, so a sleeping watcher looks at what is due
now instead of at its next due page. The app calls :func:`watcher_of` ("watched by pid
N") and :func:`stop_watcher`.

The channel: a watcher listens on a TCP socket on 127.0.0.1 (any free port) and writes
the port and a random token to ``recrawl.watch`` in the project folder, readable by its
owner only (0600), removed when it ends. A request is one line, ``TOKEN COMMAND``; other
users can reach the port but cannot read the token, and a wrong token gets no answer.
A file a killed watcher left behind is ignored: nothing listens on its port any more (or
whatever does never answers with the token), so such a watcher is taken to be gone, as
its project lock is. The same on every platform (Windows has no 0600 of its own: the
project folder under the user's profile is what keeps other users out).

Quick: a command that calls :func:`wake_watcher` on a project nobody watches only finds
no file; this module imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recrawl.core.clock import parse_iso, to_iso
from recrawl.core.layout import Layout

#: Seconds a client waits for a watcher's answer (it answers from a thread of its own).
ANSWER_TIMEOUT = 5.0
_MAX_LINE = 256


@dataclass(frozen=True)
class WatcherInfo:
    """The watcher of a project: its process and since when it watches (UTC)."""

    pid: int
    since: datetime


def wake_watcher(project_dir: Path) -> bool:
    """Wake the project's watcher, if one runs; whether one was told."""
    return _ask(Path(project_dir), "wake") is not None


def stop_watcher(project_dir: Path, wait: float = 0.0) -> bool:
    """Ask the project's watcher to stop (after the fetches in flight); whether one was
    told. ``wait`` > 0: also wait up to that many seconds for it to end (its project
    lock released)."""
    return _ask(Path(project_dir), "stop", wait=wait) is not None


def watcher_of(project_dir: Path) -> WatcherInfo | None:
    """The project's running watcher, or None."""
    found = _ask(Path(project_dir), "ping")
    if found is None:
        return None
    _reply, info = found
    return WatcherInfo(int(str(info["pid"])), parse_iso(str(info["since"])))


def _read(project_dir: Path) -> dict[str, object] | None:
    try:
        text = Layout(project_dir).wake_file.read_text(encoding="utf-8")
        info = json.loads(text)
    except (OSError, ValueError):
        return None  # no watcher, or a file half-written or not ours
    if not isinstance(info, dict) or not {"port", "token", "pid", "since"} <= info.keys():
        return None
    return info


def _ask(
    project_dir: Path, command: str, wait: float = 0.0
) -> tuple[str, dict[str, object]] | None:
    """Send ``command``; the watcher's answer and its file, or None when none answers."""
    info = _read(project_dir)
    if info is None:
        return None
    try:
        port = int(str(info["port"]))
        with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_TIMEOUT) as conn:
            conn.sendall(f"{info['token']} {command}\n".encode("ascii"))
            reply = _read_line(conn)
            if not reply.startswith("ok"):
                return None
            if wait > 0:
                # the watcher keeps this connection until it has ended: EOF then
                conn.settimeout(wait)
                with contextlib.suppress(OSError):
                    while conn.recv(64):
                        pass
    except (OSError, ValueError, UnicodeError):
        return None  # a watcher killed without removing its file: nothing listens
    return reply, info


def _read_line(conn: socket.socket) -> str:
    data = b""
    while b"\n" not in data and len(data) < _MAX_LINE:
        chunk = conn.recv(_MAX_LINE)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode("ascii", "replace")


class WakeChannel:
    """The watcher's end of the channel: serves ``wake``, ``stop`` and ``ping``.

    Made when the watcher has its project lock; :meth:`close` removes the file and stops
    serving before the lock goes, :meth:`release_stoppers` after it (a ``stop_watcher``
    that waits then sees the lock free).
    """

    def __init__(
        self,
        project_dir: Path,
        *,
        wake: Callable[[], None],
        stop: Callable[[], None],
        since: datetime,
    ) -> None:
        self.path = Layout(Path(project_dir)).wake_file
        self._actions = {"wake": wake, "stop": stop, "ping": lambda: None}
        self._token = secrets.token_hex(16)
        self._closing = False
        self._stoppers: list[socket.socket] = []
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._server.bind(("127.0.0.1", 0))
            self._server.listen(8)
            self.port = int(self._server.getsockname()[1])
            self._write(since)
        except OSError:
            self._server.close()
            raise
        # blocks in accept(): no polling; close() wakes it with a connection of its own
        self._thread = threading.Thread(target=self._serve, name="recrawl-wake", daemon=True)
        self._thread.start()

    def _write(self, since: datetime) -> None:
        info = {"pid": os.getpid(), "port": self.port, "token": self._token, "since": to_iso(since)}
        partial = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(info, out)
        os.replace(partial, self.path)  # never half a file under the name clients read

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            if self._closing:
                conn.close()
                return
            self._answer(conn)

    def _answer(self, conn: socket.socket) -> None:
        keep = False
        try:
            conn.settimeout(ANSWER_TIMEOUT)  # a client that says nothing holds no one up
            token, _, command = _read_line(conn).partition(" ")
            action = self._actions.get(command.strip())
            if action is None or not hmac.compare_digest(token.encode(), self._token.encode()):
                return
            action()
            conn.sendall(f"ok {os.getpid()}\n".encode("ascii"))
            if command.strip() == "stop":
                self._stoppers.append(conn)
                keep = True
        except (OSError, UnicodeError):
            pass
        finally:
            if not keep:
                conn.close()

    def close(self) -> None:
        """Stop serving and remove the file (while the watcher still holds its lock)."""
        if self._closing:
            return
        self._closing = True
        with contextlib.suppress(OSError):
            self.path.unlink()
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", self.port), timeout=ANSWER_TIMEOUT).close()
        self._thread.join(ANSWER_TIMEOUT * 2)
        self._server.close()

    def release_stoppers(self) -> None:
        """Let ``stop_watcher(..., wait=...)`` callers return: the watcher has ended."""
        for conn in self._stoppers:
            with contextlib.suppress(OSError):
                conn.close()
        self._stoppers = []
