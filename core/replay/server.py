"""The replay server, from the outside: ``recrawl replay`` in a subprocess (docs/design.md §13).

:class:`ReplayServer` runs the command for the app, the tests and the benchmarks: it learns
the port from the one line the command prints once it listens, builds capture URLs, and
stops it. It talks to the command by its command line and that line alone (it imports
nothing of :mod:`recrawl.core.cli`), so the app and the command line each call this.

pywb is an optional extra (``recrawl[replay]``): without it the server does not start,
and says in one line how to get it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

from recrawl.core.archive.replay import capture_url
from recrawl.core.errors import ReplayError, ReplayUnavailable

#: How to get what replay needs, in the words of the error that says it is missing.
INSTALL_HINT = "pip install 'recrawl[replay]'"
UNAVAILABLE = f"replay needs pywb, which is not installed: {INSTALL_HINT}"
#: What the command's line says, and what :class:`ReplayServer` reads the port from.
_ADDRESS = re.compile(r"http://127\.0\.0\.1:(\d+)/")


def replay_installed() -> bool:
    """Whether pywb and gevent are there (found, not imported: importing pywb before
    gevent patches the process would leave ``ssl`` unpatched)."""
    return all(importlib.util.find_spec(name) is not None for name in ("pywb", "gevent"))


def replay_command(project_dir: Path) -> list[str]:
    """The command line that runs ``recrawl replay`` on ``project_dir`` on a free port."""
    words = ["replay", str(project_dir), "--port", "0", "--stop-on-eof"]
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: its executable is recrawl
        return [sys.executable, *words]
    return [sys.executable, "-m", "recrawl", *words]


class ReplayServer:
    """``recrawl replay`` on a project, in a subprocess, until :meth:`stop`.

    Starting blocks until the server listens (a second or two: pywb loads), so the app
    starts one on a thread of its own (``wait=False``, then :meth:`wait_started` there,
    which :meth:`abort` from another thread cuts short). Raises :class:`ReplayUnavailable`
    without pywb, :class:`ReplayError` when the server does not start for another reason.
    """

    def __init__(self, project_dir: Path, *, wait: bool = True) -> None:
        self.project_dir = project_dir
        self.port = 0
        self.base = ""
        # the server's stderr, read when it fails to start; open for its whole life
        self._errors: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self._proc = subprocess.Popen(
            replay_command(project_dir),
            stdin=subprocess.PIPE,  # closed by stop(), or when this process ends
            stdout=subprocess.PIPE,
            stderr=self._errors,
            text=True,
        )
        if wait:
            self.wait_started()

    def wait_started(self) -> None:
        """Block until the server listens (its port known), or raise why it ended."""
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()  # printed once it listens; "" if it ended
        found = _ADDRESS.search(line)
        if found is None:
            status = self._proc.wait()
            message = self._stderr().strip().splitlines() or [line.strip()]
            self._close()
            last = message[-1].removeprefix("recrawl: error: ") if message else ""
            if INSTALL_HINT in last:
                raise ReplayUnavailable(last)
            raise ReplayError(f"the replay server did not start (exit status {status}): {last}")
        self.port = int(found[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def url(self, stamp: str, url: str, raw: bool = False, inner: bool = False) -> str:
        """The replay URL of ``url`` at its capture closest to ``stamp`` (14 digits or a
        prefix): see :func:`recrawl.core.archive.replay.capture_url`."""
        return capture_url(self.base, stamp, url, raw, inner)

    @property
    def running(self) -> bool:
        return self._proc.poll() is None

    @property
    def exit_status(self) -> int | None:
        """The server's exit status once it has ended (0: stopped cleanly)."""
        return self._proc.poll()

    def abort(self) -> None:
        """Kill the server without waiting (thread-safe): a :meth:`wait_started` in
        progress on another thread then raises :class:`ReplayError` at once."""
        with contextlib.suppress(OSError):
            self._proc.kill()

    def stop(self) -> None:
        """Stop the server (it finishes the answers in flight) and wait for it."""
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()  # --stop-on-eof: it stops itself
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._close()

    def _stderr(self) -> str:
        self._errors.seek(0)
        return self._errors.read()[-4000:].decode("utf-8", "replace")

    def _close(self) -> None:
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._errors.close()
