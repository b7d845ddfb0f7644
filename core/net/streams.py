"""httpx's transport over anyio's streams, with the socket's facts read once.

On every request, httpcore asks each pooled connection whether it is still good
(``get_extra_info("is_readable")``), and the crawl asks each response for its server's
address. anyio answers each such question by building a table of every fact about the
socket, its peer's address included, with a system call each time: at a few hundred
pages a second that was a tenth of the crawl loop's time. These streams ask once, when
the connection is made, and keep the answers (a connection's socket and peer never
change).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx
from httpcore._backends.anyio import AnyIOBackend
from httpcore._backends.base import SOCKET_OPTION, AsyncNetworkBackend, AsyncNetworkStream
from httpcore._utils import is_socket_readable


class KeptInfoStream(AsyncNetworkStream):
    """A network stream whose socket, addresses and TLS object are read once."""

    def __init__(self, stream: AsyncNetworkStream) -> None:
        self._stream = stream
        self._info = {
            name: stream.get_extra_info(name)
            for name in ("socket", "server_addr", "client_addr", "ssl_object")
        }

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._stream.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._stream.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> AsyncNetworkStream:
        return KeptInfoStream(await self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            socket = self._info["socket"]
            return socket is not None and is_socket_readable(socket)
        if info in self._info:
            return self._info[info]
        return self._stream.get_extra_info(info)


class KeptInfoBackend(AsyncNetworkBackend):
    """anyio's backend, its streams wrapped in :class:`KeptInfoStream`."""

    def __init__(self) -> None:
        self._backend = AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        stream = await self._backend.connect_tcp(host, port, timeout, local_address, socket_options)
        return KeptInfoStream(stream)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        stream = await self._backend.connect_unix_socket(path, timeout, socket_options)
        return KeptInfoStream(stream)

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


class Transport(httpx.AsyncHTTPTransport):
    """httpx's transport (no proxy) with its pool on :class:`KeptInfoBackend`.

    httpx takes no network backend, so the pool it made is replaced by one made alike
    with ours (httpcore's pool takes one: ``network_backend``).
    """

    def __init__(self, ssl_context: ssl.SSLContext, limits: httpx.Limits) -> None:
        super().__init__(verify=ssl_context, limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=KeptInfoBackend(),
        )
