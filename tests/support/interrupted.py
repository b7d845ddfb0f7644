"""Helpers for tests that stop ``recrawl`` with signals: the real entry point in a
subprocess, a site whose answers can be held, and reading a child's output as it comes.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from tests.support.httpserver import Reply, TestServer

ROOT = Path(__file__).resolve().parents[2]


def recrawl(*args: object, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``recrawl ARGS`` to its end, as a user runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "recrawl", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if check:
        assert done.returncode == 0, f"recrawl {args}: {done.stderr}"
    return done


def start(*args: object, **options: Any) -> subprocess.Popen[str]:
    """``recrawl ARGS`` started, its output piped, line by line."""
    return subprocess.Popen(
        [sys.executable, "-m", "recrawl", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
        **options,
    )


@contextlib.contextmanager
def watchdog(child: subprocess.Popen[str], seconds: float = 180.0) -> Iterator[None]:
    """Kill ``child`` if it still runs after ``seconds``: a test that waits on its output
    then fails (the output ends) instead of hanging. Only a bound on failure, never a wait.
    """
    timer = threading.Timer(seconds, child.kill)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with contextlib.suppress(ProcessLookupError):
            child.kill()


def read_until(stream: IO[str] | None, text: str) -> list[str]:
    """Lines of ``stream`` up to and including the first holding ``text``."""
    assert stream is not None
    lines = []
    for line in stream:
        lines.append(line)
        if text in line:
            return lines
    raise AssertionError(f"the output ended without {text!r}: {''.join(lines)}")


def urls(project: Path) -> tuple[list[dict[str, Any]], str]:
    """``recrawl urls --json``: the pages, and what the command said on stderr."""
    done = recrawl("urls", project, "--json")
    return json.loads(done.stdout), done.stderr


class GatedSite:
    """Page 0 links to pages 1 to ``pages - 1``; while held, answers wait.

    Set :attr:`version` to change the even pages (the odd ones never change): a crawl of
    a new version supersedes some captures and revisits others.

    Holding the answers keeps a crawl's fetches in flight for as long as a test needs:
    the moment of a signal is then what the test chose, not what the machine's load made.
    """

    def __init__(self, server: TestServer, pages: int, version: int = 0) -> None:
        self.server = server
        self.pages = pages
        self.version = version
        self._open = threading.Event()
        self._open.set()
        self._hold_from: int | None = None
        for i in range(pages):
            server.routes[self.path(i)] = self._answer(i)

    @staticmethod
    def path(i: int) -> str:
        return f"/p{i}"

    def url(self, i: int) -> str:
        return self.server.url(self.path(i))

    def body(self, i: int, version: int) -> bytes:
        """Even pages change with each version; odd ones never do."""
        version = version if i % 2 == 0 else 0
        links = " ".join(f'<a href="{self.path(j)}">{j}</a>' for j in range(1, self.pages))
        links = links if i == 0 else f'<a href="{self.path(0)}">home</a>'
        return f"<html><body><h1>page {i} v{version}</h1>{links}</body></html>".encode()

    def _answer(self, i: int) -> Any:
        def reply(_handler: object) -> Reply:
            with self.server.lock:
                if self._hold_from is not None and len(self.server.hits) >= self._hold_from:
                    self._open.clear()
            self._open.wait()
            return Reply(200, self.body(i, self.version), {"Content-Type": "text/html"})

        return reply

    def hold(self) -> None:
        self._open.clear()

    def hold_from(self, count: int) -> None:
        """Hold the answer to the server's ``count``-th request and every later one."""
        self._hold_from = count

    def release(self) -> None:
        self._hold_from = None
        self._open.set()
