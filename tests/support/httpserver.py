"""A real HTTP server on 127.0.0.1 for tests, with routes set per test.

A route is a :class:`Reply` (status, headers, body) or a callable taking the request
handler and returning a Reply, for servers that must look at request headers
(conditional GET) or misbehave (hang, lie about sizes).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: How long a wait for hits may take before the test fails. Only a bound on failure (a
#: wait ends as soon as its condition holds): generous, as a child process starting on a
#: loaded 2-core machine, beside the suite's other workers, can take half a minute.
PATIENCE_S = 300.0


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})
    #: Don't send Content-Length (the body is then delimited by closing the connection).
    no_length: bool = False
    #: Block forever before answering (until the server shuts down).
    hang: bool = False
    #: Send the body in 1 KiB pieces this many seconds apart (a slow server).
    trickle: float = 0.0


def gzip_with_etag(body: bytes, etag: str = '"v1"') -> Callable[[BaseHTTPRequestHandler], Reply]:
    """A route serving ``body`` (already gzip-compressed) with ``etag``, and a 304 to a
    request that names that ETag: a conditional GET's not-modified revisit."""

    def answer(handler: BaseHTTPRequestHandler) -> Reply:
        if handler.headers.get("If-None-Match") == etag:
            return Reply(304, b"", {"ETag": etag, "Cache-Control": "max-age=60"})
        return Reply(
            200, body, {"Content-Type": "text/html", "Content-Encoding": "gzip", "ETag": etag}
        )

    return answer


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # clients that hang up (timeouts, killed crawls) are part of the tests
        pass


Route = Reply | Callable[[BaseHTTPRequestHandler], Reply]


class TestServer:
    def __init__(self, port: int = 0, address: str = "127.0.0.1") -> None:
        """``port``: 0 for any free one; a given one to come back where a stopped server was.
        ``address``: a loopback address of its own (127.0.0.2: a second host)."""
        self.routes: dict[str, Route] = {}
        self.hits: list[tuple[str, dict[str, str]]] = []
        #: time.monotonic() of each hit, in the order of ``hits``.
        self.times: list[float] = []
        self.lock = threading.Condition()
        self.closing = threading.Event()
        #: Seconds each answer waits first: a slow server, so a crawl can be caught mid-round.
        self.latency = 0.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                with server.lock:
                    server.hits.append((self.path, dict(self.headers.items())))
                    server.times.append(time.monotonic())
                    server.lock.notify_all()
                if server.latency:
                    server.closing.wait(server.latency)
                route = server.routes.get(self.path)
                if route is None:
                    reply = Reply(404, b"<html><body>not found</body></html>")
                elif callable(route):
                    reply = route(self)
                else:
                    reply = route
                if reply.hang:
                    server.closing.wait(60)
                    return
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.no_length:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                elif "Content-Length" not in reply.headers:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    if not reply.trickle:
                        self.wfile.write(reply.body)
                        return
                    for start in range(0, len(reply.body), 1024):
                        self.wfile.write(reply.body[start : start + 1024])
                        self.wfile.flush()
                        if server.closing.wait(reply.trickle):
                            return

        self.address = address
        self.httpd = _QuietServer((address, port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://{self.address}:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.origin + path

    def html(self, path: str, body: str, **headers: str) -> None:
        self.routes[path] = Reply(
            200, body.encode("utf-8"), {"Content-Type": "text/html; charset=utf-8", **headers}
        )

    def times_for(self, path: str) -> list[float]:
        with self.lock:
            return [t for (p, _), t in zip(self.hits, self.times, strict=True) if p == path]

    def hits_for(self, path: str) -> int:
        with self.lock:
            return sum(1 for p, _ in self.hits if p == path)

    def wait_hits(
        self,
        count: int,
        timeout: float = PATIENCE_S,
        while_running: subprocess.Popen[str] | None = None,
    ) -> bool:
        """Block until the server has answered ``count`` requests in all (True), or until
        ``timeout`` passed or the ``while_running`` process ended first (False)."""
        ended = threading.Event()
        if while_running is not None:
            child = while_running

            def watch() -> None:
                child.wait()
                with self.lock:
                    ended.set()
                    self.lock.notify_all()

            threading.Thread(target=watch, daemon=True).start()
        with self.lock:
            self.lock.wait_for(lambda: len(self.hits) >= count or ended.is_set(), timeout)
            return len(self.hits) >= count

    def start(self) -> TestServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
