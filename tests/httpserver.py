"""A real HTTP server on 127.0.0.1 for tests, with routes set per test.

A route is a :class:`Reply` (status, headers, body) or a callable taking the request
handler and returning a Reply, for servers that must look at request headers
(conditional GET) or misbehave (hang, lie about sizes).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})
    #: Don't send Content-Length (the body is then delimited by closing the connection).
    no_length: bool = False
    #: Block forever before answering (until the server shuts down).
    hang: bool = False


Route = Reply | Callable[[BaseHTTPRequestHandler], Reply]


class TestServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[tuple[str, dict[str, str]]] = []
        self.lock = threading.Lock()
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                with server.lock:
                    server.hits.append((self.path, dict(self.headers.items())))
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
                    self.wfile.write(reply.body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.origin + path

    def html(self, path: str, body: str, **headers: str) -> None:
        self.routes[path] = Reply(
            200, body.encode("utf-8"), {"Content-Type": "text/html; charset=utf-8", **headers}
        )

    def hits_for(self, path: str) -> int:
        with self.lock:
            return sum(1 for p, _ in self.hits if p == path)

    def start(self) -> TestServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
