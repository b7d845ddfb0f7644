"""A site over several hosts (127.0.0.2 … 127.0.0.9: Linux routes the whole 127/8 to
loopback, no set-up needed), one server thread per host, that notes when two requests
to one host were in flight at once (two workers on one host: docs/design.md §12).

Each host's home page links to its pages; each page links to the next of its host and
to the same page on the next host, so the crawl spreads over every host and runs a
few rounds deep. Answers may be held (:meth:`hold`) and slowed (:attr:`latency`).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.httpserver import PATIENCE_S


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # killed workers hang up mid-answer: part of the tests


class MultiHostSite:
    def __init__(self, hosts: int = 8, pages: int = 10) -> None:
        self.addresses = [f"127.0.0.{2 + i}" for i in range(hosts)]
        self.pages = pages
        #: Seconds each answer waits first.
        self.latency = 0.0
        self.lock = threading.Condition()
        self.hits: Counter[str] = Counter()  # "host/path" → requests
        self.served = 0
        #: Requests that arrived while another to the same host was in flight.
        self.overlaps: list[str] = []
        self._in_flight: Counter[str] = Counter()
        self._open = threading.Event()
        self._open.set()
        self._closing = threading.Event()
        self._servers = [self._server(address) for address in self.addresses]
        self.ports = {address: s.server_address[1] for address, s in self._servers}
        for _, server in self._servers:
            threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()

    def _server(self, address: str) -> tuple[str, ThreadingHTTPServer]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                with site.lock:
                    site._in_flight[address] += 1
                    if site._in_flight[address] > 1:
                        site.overlaps.append(f"{address}{self.path}")
                try:
                    site._open.wait()
                    if site.latency:
                        site._closing.wait(site.latency)
                    body = site.body(address, self.path)
                    status = 200 if body is not None else 404
                    data = (body or "<html><body>not found</body></html>").encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    with site.lock:
                        site._in_flight[address] -= 1
                        site.hits[f"{address}{self.path}"] += 1
                        site.served += 1
                        site.lock.notify_all()

        return address, _Quiet((address, 0), Handler)

    def url(self, address: str, path: str = "/") -> str:
        return f"http://{address}:{self.ports[address]}{path}"

    def roots(self) -> list[str]:
        return [self.url(address) for address in self.addresses]

    def all_urls(self) -> list[str]:
        return [
            self.url(address, path)
            for address in self.addresses
            for path in ["/", *(f"/p{i}" for i in range(self.pages))]
        ]

    def body(self, address: str, path: str) -> str | None:
        index = self.addresses.index(address)
        following = self.addresses[(index + 1) % len(self.addresses)]
        if path == "/":
            links = [self.url(address, "/p0"), self.url(address, "/p1")]
        elif path.startswith("/p") and path[2:].isdigit() and int(path[2:]) < self.pages:
            i = int(path[2:])
            links = [self.url(following, path)]
            if i + 2 < self.pages:
                links.append(self.url(address, f"/p{i + 2}"))
        else:
            return None
        anchors = " ".join(f'<a href="{link}">{link}</a>' for link in links)
        return f"<html><head><title>{address}{path}</title></head><body>{anchors}</body></html>"

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def wait_served(self, count: int, timeout: float = PATIENCE_S) -> bool:
        with self.lock:
            return self.lock.wait_for(lambda: self.served >= count, timeout)

    def stop(self) -> None:
        self._closing.set()
        self._open.set()
        for _, server in self._servers:
            server.shutdown()
            server.server_close()


def wait_until(condition: object, timeout: float = PATIENCE_S, every: float = 0.05) -> bool:
    """Look at ``condition()`` until it holds (True) or ``timeout`` passed (False): for
    conditions only another process's database writes make true."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True
