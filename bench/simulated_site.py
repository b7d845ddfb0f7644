"""What the benches that crawl a site living in simulated time share (bench/discovery_crawl.py,
bench/longwatch_bench.py): a loopback server answering from a function of the path, the
real ``recrawl`` command as a subprocess, and one crawl at a simulated instant.

The server runs in a thread of the bench's process: while a crawl runs the bench only waits
for it (the interpreter lock is the server's), and the bench scores once the crawls are done.
A site's pages name their own address as ``{base}``, filled in by the server.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
#: What a site answers for a path: status, content type, body (``{base}`` is its address).
Answer = tuple[int, str, bytes]


def serve(page: Callable[[str], Answer]) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``page`` on 127.0.0.1 (a free port) in a daemon thread; returns the server
    (:func:`stop` it) and its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, kind, body = page(self.path.split("?")[0])
            body = body.replace(b"{base}", base.encode())
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, base


def stop(server: ThreadingHTTPServer) -> None:
    """Stop serving and close the listening socket."""
    server.shutdown()
    server.server_close()


def recrawl(*args: str) -> str:
    """Run ``recrawl ARGS`` (this interpreter's) and return its stdout; a failure raises
    with its stderr's end."""
    done = subprocess.run([str(BIN / "recrawl"), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"recrawl {args[0]} failed: {done.stderr[-2000:]}")
    return done.stdout


def timed_recrawl(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    """``recrawl ARGS`` as a whole process: its wall time and what it returned (a failure
    is the caller's to judge: a command that does not exist yet is one)."""
    began = time.perf_counter()
    done = subprocess.run([str(BIN / "recrawl"), *args], capture_output=True, text=True)
    return time.perf_counter() - began, done


def iso(at: datetime) -> str:
    """``2027-03-01T06:00:00Z``: an aware instant as the command line takes it."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> datetime:
    """An ISO 8601 instant from the command line's JSON, aware (UTC)."""
    at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def crawl_at(project: Path, now: datetime, *flags: str) -> dict[str, Any]:
    """``recrawl crawl PROJECT --now NOW --delay 0 --json FLAGS``: a loopback site needs no
    politeness delay. Returns the summary (the last line's JSON)."""
    out = recrawl("crawl", str(project), "--now", iso(now), "--delay", "0", "--json", *flags)
    summary: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return summary
