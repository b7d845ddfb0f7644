"""A real notification service for tests: an HTTP server on 127.0.0.x that keeps every
JSON message POSTed to it (Apprise's ``json://`` URL), answering with ``status``.

    with Listener() as listener:
        ...  # notify.urls = (listener.url,)
        assert listener.messages[0]["title"] == "..."
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Listener:
    def __init__(self, address: str = "127.0.0.1", status: int = 200, hang: bool = False) -> None:
        #: What each request answers (a test may turn a working service into a failing one).
        self.status = status
        #: Answer nothing until stopped (a service that never answers).
        self.hang = hang
        self._stopping = threading.Event()
        #: The messages received (Apprise's JSON: version, title, message, type, ...),
        #: with the answer each got under "answered".
        self.messages: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with owner._lock:
                    status = owner.status
                    # a hanging listener answers nothing: None
                    answered = None if owner.hang else status
                    owner.messages.append({**body, "answered": answered})
                if owner.hang:
                    owner._stopping.wait()
                    return
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._server = ThreadingHTTPServer((address, 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The Apprise URL that posts to this listener."""
        host, port = self._server.server_address[:2]
        return f"json://{host}:{port}/"

    def received(self) -> list[dict[str, Any]]:
        """The messages it answered with a success."""
        with self._lock:
            return [m for m in self.messages if (m["answered"] or 999) < 300]

    def start(self) -> Listener:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Listener:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
