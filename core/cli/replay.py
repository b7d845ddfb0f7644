"""``recrawl replay``: a project's captures in the browser, as they looked (docs/design.md §13).

The command serves them with pywb on 127.0.0.1 until Ctrl-C
(:mod:`.replay_server`: a process of its own, patched for gevent). :class:`ReplayServer`
runs that command in a subprocess for the app, the tests and the benchmarks: it learns
the port from the one line the command prints once it listens, builds capture URLs, and
stops it.

pywb is an optional extra (``recrawl[replay]``): without it the command says in one
line how to get it.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

from recrawl.core.archive.replay import COLLECTION, capture_url
from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.errors import ProjectError, RecrawlError, ReplayError, ReplayUnavailable
from recrawl.core.layout import STORE_FILE, Layout
from recrawl.core.project import Project

#: The port served when none is given (pywb's own default).
DEFAULT_PORT = 8080
#: How to get what replay needs, in the words of the error that says it is missing.
INSTALL_HINT = "pip install 'recrawl[replay]'"
UNAVAILABLE = f"replay needs pywb, which is not installed: {INSTALL_HINT}"
#: What the command's line says, and what :class:`ReplayServer` reads the port from.
_ADDRESS = re.compile(r"http://127\.0\.0\.1:(\d+)/")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text} (0 to 65535)")
    return port


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Serve the project's captures on 127.0.0.1 with pywb, to open in a browser as "
        f"they looked: http://127.0.0.1:PORT/{COLLECTION}/TIMESTAMP/URL is URL at its "
        "capture closest to TIMESTAMP (UTC, 14 digits yyyyMMddhhmmss or a prefix), "
        "…/TIMESTAMPid_/URL its bytes as archived. Captures made while it serves (a "
        f"crawl, a compaction) are served too. Needs pywb: {INSTALL_HINT}."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        metavar="P",
        help=f"the port to listen on (default: {DEFAULT_PORT}; 0: a free one, printed)",
    )
    # for ReplayServer: stop when the process that started us closes our stdin (or dies)
    p.add_argument("--stop-on-eof", action="store_true", help=argparse.SUPPRESS)


def run_replay(args: argparse.Namespace) -> int:
    folder = project_folder(args.dir)
    if not replay_installed():
        raise ReplayUnavailable(UNAVAILABLE)
    _bring_up_to_date(folder)
    from recrawl.core.cli import replay_server

    def ready(port: int) -> None:
        print(
            f"Serving the captures of {folder} at http://127.0.0.1:{port}/{COLLECTION}/ "
            "(Ctrl-C stops)",
            flush=True,
        )

    try:
        return replay_server.serve(folder, args.port, ready, stop_on_eof=args.stop_on_eof)
    except ImportError as exc:  # there, but broken: a part of pywb or gevent missing
        raise ReplayUnavailable(f"{UNAVAILABLE} ({exc})") from None


def _bring_up_to_date(folder: Path) -> None:
    """The project opened once and closed: what opening finishes (a killed round's
    recovery; an older version's index keys, which pywb would look pages up by in vain)
    is done before pywb reads the indexes. Serving needs nothing else of the store, so a
    store that cannot open is said and the captures are served all the same."""
    try:
        project = Project.open(folder)
    except RecrawlError as exc:
        print(f"recrawl: warning: {exc}; serving the captures as they are", file=sys.stderr)
        return
    for note in project.notes:
        print(f"recrawl: {note}", file=sys.stderr)
    project.close()


def replay_installed() -> bool:
    """Whether pywb and gevent are there (found, not imported: importing pywb before
    gevent patches the process would leave ``ssl`` unpatched)."""
    return all(importlib.util.find_spec(name) is not None for name in ("pywb", "gevent"))


def project_folder(path: str | Path) -> Path:
    """The project folder ``path`` names, checked without opening its store: the server
    reads only the folder's WARCs and indexes, beside crawls, the app and compactions."""
    folder = Path(path).expanduser().absolute()
    if not folder.is_dir():
        raise ProjectError(f"no project at {folder}")
    if not Layout(folder).is_project():
        raise ProjectError(f"{folder} is not a Recrawl project (no {STORE_FILE})")
    return folder


def replay_command(project_dir: Path) -> list[str]:
    """The command line that runs ``recrawl replay`` on ``project_dir`` on a free port."""
    words = ["replay", str(project_dir), "--port", "0", "--stop-on-eof"]
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: its executable is recrawl
        return [sys.executable, *words]
    return [sys.executable, "-m", "recrawl", *words]


class ReplayServer:
    """``recrawl replay`` on a project, in a subprocess, until :meth:`stop`.

    Starting blocks until the server listens (a second or two: pywb loads), so the app
    starts one from a worker thread (``wait=False``, then :meth:`wait_started` there,
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


COMMANDS = {"replay": Command(_replay_arguments, run_replay)}
