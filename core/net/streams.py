"""httpx's transport on asyncio's own streams, with each socket's facts read once.

httpx runs its connections on anyio, which on asyncio adds a layer to every read and
write (a cancel scope, a look-up of the running library) and answers each question about
a socket (httpcore asks each pooled connection whether it is still good on every
request; the crawl asks each response for its server's address) by building a table of
every fact about it, its peer's address included, with a system call each time. At a
few hundred pages a second that layer took a fifth of the crawl loop's time. httpcore
takes a network backend (its documented plug-in point): this one opens asyncio streams
and keeps what httpcore asks about them, read once when the connection is made.

Errors are httpcore's, as its own backends raise them: a timeout while connecting,
reading or writing is ``ConnectTimeout``/``ReadTimeout``/``WriteTimeout``, a failure
``ConnectError``/``ReadError``/``WriteError``; the fetcher tells them apart (fetch.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx
from httpcore import AsyncNetworkBackend, AsyncNetworkStream
from httpcore._backends.base import SOCKET_OPTION


class AsyncioStream(AsyncNetworkStream):
    """One connection: asyncio's reader and writer, and its socket's facts."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        transport = writer.transport
        self._info = {
            "socket": transport.get_extra_info("socket"),
            "server_addr": transport.get_extra_info("peername"),
            "client_addr": transport.get_extra_info("sockname"),
            "ssl_object": transport.get_extra_info("ssl_object"),
        }

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        reader = self._reader
        try:
            async with asyncio.timeout(timeout):
                return await reader.read(max_bytes)
        except TimeoutError:
            # A loop kept busy past the timeout runs the bytes that came meanwhile and the
            # expired timer in one turn, the bytes first: the server did answer in time,
            # the loop was late. Those bytes are read (at once: no wait), not a timeout.
            if getattr(reader, "_buffer", None):
                return await reader.read(max_bytes)
            raise httpcore.ReadTimeout("timed out reading") from None
        except OSError as exc:
            raise httpcore.ReadError(_reason(exc)) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            self._writer.write(buffer)
            async with asyncio.timeout(timeout):
                await self._writer.drain()
        except TimeoutError:
            raise httpcore.WriteTimeout("timed out writing") from None
        except (OSError, RuntimeError) as exc:  # RuntimeError: written after the close
            raise httpcore.WriteError(_reason(exc)) from exc

    async def aclose(self) -> None:
        transport = self._writer.transport
        with contextlib.suppress(OSError, RuntimeError):
            if self._info["ssl_object"] is None:
                transport.close()
            else:
                # asyncio's close of a TLS connection waits (up to 30 s) for the peer's
                # close_notify before closing the socket: a crawl ending meanwhile would
                # leave the socket open. Its responses were framed by HTTP, not by
                # close_notify, so the connection is dropped at once (as anyio does).
                transport.abort()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError:
            await self.aclose()
            raise httpcore.ConnectTimeout("timed out in the TLS handshake") from None
        except (OSError, ssl.SSLError) as exc:
            await self.aclose()
            raise httpcore.ConnectError(_reason(exc)) from exc
        return AsyncioStream(self._reader, self._writer)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            # httpcore asks between responses whether the server has said anything since
            # (then the connection is spoilt, or closed, and not reused). asyncio reads
            # bytes off the socket as they come, so its reader holds them: bytes sent
            # after a response (more than its Content-Length), or the end. (anyio read
            # only when asked: they stayed on the socket.) ``_buffer`` is the reader's
            # bytearray, there since Python 3.4; no public call tells its size.
            # The socket itself is not polled: httpcore asks every pooled connection on
            # every request, and each poll is a system call that hands the interpreter
            # lock to another thread. What it would add are bytes that came since the
            # loop last looked, a moment's window that a poll narrows but cannot close;
            # a request that meets such a connection fails and is sent again on a new one
            # (fetch.py, STALE_CONNECTION_ERRORS).
            reader = self._reader
            return bool(getattr(reader, "_buffer", None)) or reader.at_eof()
        return self._info.get(info)


class AsyncioBackend(AsyncNetworkBackend):
    """Opens :class:`AsyncioStream` connections."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        local = (local_address, 0) if local_address else None
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, local_addr=local, happy_eyeballs_delay=0.25
                )
        except TimeoutError:
            raise httpcore.ConnectTimeout("timed out connecting") from None
        except OSError as exc:
            raise httpcore.ConnectError(_reason(exc)) from exc
        sock = writer.transport.get_extra_info("socket")
        for option in socket_options or ():
            sock.setsockopt(*option)
        return AsyncioStream(reader, writer)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_unix_connection(path)
        except TimeoutError:
            raise httpcore.ConnectTimeout("timed out connecting") from None
        except OSError as exc:
            raise httpcore.ConnectError(_reason(exc)) from exc
        return AsyncioStream(reader, writer)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _reason(exc: Exception) -> str:
    """What went wrong, in the system's words ("Connection refused", "Name or service
    not known") rather than asyncio's ("[Errno 111] Connect call failed (...)")."""
    if isinstance(exc, ssl.SSLError):  # its errno is OpenSSL's, not the system's
        return str(exc)
    errno = getattr(exc, "errno", None)
    if isinstance(errno, int) and errno > 0 and not isinstance(exc, socket.gaierror):
        return os.strerror(errno)  # asyncio's own text names the call, not the reason
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


class Transport(httpx.AsyncHTTPTransport):
    """httpx's transport (no proxy) with its pool on :class:`AsyncioBackend`.

    httpx takes no network backend, so the pool it made is replaced by one made alike
    with ours.
    """

    def __init__(self, ssl_context: ssl.SSLContext, limits: httpx.Limits) -> None:
        super().__init__(verify=ssl_context, limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=AsyncioBackend(),
        )
