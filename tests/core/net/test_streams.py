"""The fetcher's connections (core/net/streams.py): plain and TLS, reused, and their
failures as httpx names them."""

from __future__ import annotations

import asyncio
import http.server
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import httpx
import pytest
from recrawl.core.net.streams import Transport

LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=4)


class _Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the second request reuses the connection

    def do_GET(self) -> None:
        body = f"hello from {self.client_address[1]}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_server(certificate: tuple[Path, Path]) -> Iterator[int]:
    cert, key = certificate
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _get_twice(url: str, context: ssl.SSLContext) -> list[tuple[int, str, object, object]]:
    async def run() -> list[tuple[int, str, object, object]]:
        seen = []
        async with httpx.AsyncClient(transport=Transport(context, LIMITS)) as client:
            for _ in range(2):
                response = await client.get(url)
                stream = response.extensions["network_stream"]
                seen.append(
                    (
                        response.status_code,
                        response.text,
                        stream.get_extra_info("server_addr"),
                        stream.get_extra_info("ssl_object"),
                    )
                )
        return seen

    return asyncio.run(run())


def test_a_page_comes_over_tls_on_one_kept_connection(certificate, tls_server):
    context = ssl.create_default_context(cafile=str(certificate[0]))
    first, second = _get_twice(f"https://127.0.0.1:{tls_server}/", context)
    assert first[0] == second[0] == 200
    assert first[1].startswith("hello from ") and first[1] == second[1]  # one connection
    assert first[2] == ("127.0.0.1", tls_server)
    assert isinstance(first[3], ssl.SSLObject)


def test_a_certificate_no_one_vouches_for_is_a_connect_error(tls_server):
    context = ssl.create_default_context()  # the system's authorities: not ours
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        _get_twice(f"https://127.0.0.1:{tls_server}/", context)


def test_a_refused_connection_says_so(closed_port):
    with pytest.raises(httpx.ConnectError, match=r"^Connection refused$"):
        _get_twice(f"http://127.0.0.1:{closed_port}/", ssl.create_default_context())


def test_a_server_that_says_nothing_is_a_read_timeout():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        async def run() -> None:
            transport = Transport(ssl.create_default_context(), LIMITS)
            async with httpx.AsyncClient(transport=transport, timeout=0.2) as client:
                await client.get(f"http://127.0.0.1:{port}/")

        with pytest.raises(httpx.ReadTimeout):
            asyncio.run(run())


def _request(lines: BinaryIO) -> bytes:
    """A request's head, or b"" at the end of the connection."""
    head = b""
    while (line := lines.readline()) not in (b"", b"\r\n"):
        head += line
    return head


class _Overrunner:
    """Answers on one connection at a time; after its first answer, on the test's word,
    sends bytes no one asked for (as a server that sends more than its Content-Length,
    late). Counts the requests each connection brought."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.requests: list[int] = []
        self.extra = threading.Event()
        self.extra_sent = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        with self.listener:
            for number in range(2):
                connection, _ = self.listener.accept()
                self.requests.append(0)
                with connection, connection.makefile("rb") as lines:
                    while _request(lines):
                        self.requests[number] += 1
                        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
                        if number == 0 and self.requests[0] == 1:
                            self.extra.wait()
                            connection.sendall(b"garbage")
                            self.extra_sent.set()

    def send_extra(self) -> None:
        self.extra.set()
        self.extra_sent.wait()


def test_bytes_a_server_sends_after_its_response_retire_the_connection():
    from httpcore._utils import is_socket_readable

    server = _Overrunner()

    async def run() -> str:
        async with httpx.AsyncClient(
            transport=Transport(ssl.create_default_context(), LIMITS)
        ) as client:
            first = await client.get(f"http://127.0.0.1:{server.port}/")
            sock = first.extensions["network_stream"].get_extra_info("socket")
            await asyncio.to_thread(server.send_extra)
            while is_socket_readable(sock):  # until the loop has read them off the socket
                await asyncio.sleep(0)
            second = await client.get(f"http://127.0.0.1:{server.port}/")
            return second.text

    assert asyncio.run(run()) == "hello"  # not "illegal status line"
    assert server.requests[0] == 1, "the next request went out on the spoilt connection"


def test_bytes_that_came_while_the_loop_was_busy_past_the_timeout_are_read():
    """A loop kept busy (a crawl's CPU work, a loaded machine) past a read's timeout
    finds the server's bytes and the expired timer together: the bytes came in time."""
    from recrawl.core.net.streams import AsyncioBackend

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    sent = threading.Event()

    def serve() -> None:
        with listener:
            connection, _ = listener.accept()
            with connection:
                connection.sendall(b"in time")
                sent.set()
                connection.recv(1)  # until the client is done

    threading.Thread(target=serve, daemon=True).start()
    timeout = 0.2

    def busy(until: float) -> None:  # the loop's thread at work: nothing else runs
        sent.wait()
        while time.monotonic() < until:
            time.sleep(0.01)

    async def run() -> bytes:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port)
        loop = asyncio.get_running_loop()
        loop.call_soon(busy, time.monotonic() + timeout * 3)
        try:
            return await stream.read(100, timeout=timeout)
        finally:
            await stream.aclose()

    assert asyncio.run(run()) == b"in time"
