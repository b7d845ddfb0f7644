"""A Chrome DevTools protocol connection over the browser's own pipe.

Chromium started with ``--remote-debugging-pipe`` reads commands on its fd 3 and writes
answers and events on its fd 4, each message JSON ended by a NUL byte. Answers carry the
command's ``id``; events carry no id, and the ``sessionId`` of the tab they come from
(none: the browser's own). No socket is opened, so no other process on the machine can
drive the browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from typing import Any

from recrawl.core.errors import BrowserError

#: A command's answer, at most (a screenshot of a large viewport or a 10 MB DOM takes
#: well under a second; a browser that has not answered in this long is hung).
CALL_TIMEOUT = 15.0

Message = dict[str, Any]
#: Called with an event's method and params, from the event loop (it must not block).
Listener = Callable[[str, Message], None]


class CdpError(BrowserError):
    """The browser answered a command with an error (a closed tab, a bad parameter)."""


class CdpTimeout(BrowserError):
    """The browser did not answer a command in time: it is hung (or paused), or the tab
    the command went to is (a script running without end)."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"the browser did not answer {method} in {timeout:g} s (hung)")
        self.method, self.timeout = method, timeout


class CdpClosed(BrowserError):
    """The browser's end of the pipe closed: it exited or was killed."""


class _Reader(asyncio.Protocol):
    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\0")
            if end < 0:
                return
            raw = bytes(self.buffer[:end])
            del self.buffer[: end + 1]
            self.connection._received(raw)

    def connection_lost(self, exc: Exception | None) -> None:
        self.connection._lost()


class Connection:
    """Commands sent and answered by ``id``; events handed to the listener of their
    session. Made with :meth:`open` from the two pipe ends the browser was given."""

    def __init__(self) -> None:
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._listeners: dict[str | None, Listener] = {}
        self._write: asyncio.WriteTransport | None = None
        self._read: asyncio.ReadTransport | None = None
        self.closed = asyncio.Event()

    @classmethod
    async def open(cls, read_fd: int, write_fd: int) -> Connection:
        """``read_fd``: the end the browser writes to (its fd 4); ``write_fd``: the end it
        reads (its fd 3). The connection owns both from then on."""
        loop = asyncio.get_running_loop()
        connection = cls()
        read, _ = await loop.connect_read_pipe(
            lambda: _Reader(connection), os.fdopen(read_fd, "rb", buffering=0)
        )
        write, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(write_fd, "wb", buffering=0)
        )
        connection._read, connection._write = read, write
        return connection

    def listen(self, session: str | None, listener: Listener | None) -> None:
        """Events of ``session`` (None: the browser's own) go to ``listener`` (None: dropped)."""
        if listener is None:
            self._listeners.pop(session, None)
        else:
            self._listeners[session] = listener

    async def send(
        self,
        method: str,
        params: Message | None = None,
        session: str | None = None,
        timeout: float = CALL_TIMEOUT,
    ) -> Message:
        """The command's result; raises :class:`CdpError`, :class:`CdpTimeout` (after
        ``timeout`` seconds) or :class:`CdpClosed`."""
        if self.closed.is_set() or self._write is None:
            raise CdpClosed("the browser has exited")
        self._next_id += 1
        ident = self._next_id
        message: Message = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            self._write.write(json.dumps(message).encode() + b"\0")
            # shield: a timeout leaves the future for _received to drop quietly
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            raise CdpTimeout(method, timeout) from None
        finally:
            self._pending.pop(ident, None)

    def _received(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            return
        ident = message.get("id")
        if ident is not None:
            future = self._pending.get(ident)
            if future is None or future.done():
                return
            if "error" in message:
                error = message["error"]
                future.set_exception(
                    CdpError(f"{error.get('message', 'error')} ({error.get('code', '?')})")
                )
            else:
                future.set_result(message.get("result", {}))
            return
        listener = self._listeners.get(message.get("sessionId"))
        if listener is not None:
            listener(message.get("method", ""), message.get("params", {}))

    def _lost(self) -> None:
        self.closed.set()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(CdpClosed("the browser has exited"))
                # retrieved by send; a send already timed out leaves nobody to
                future.exception()
        closed = self._listeners.get(None)
        if closed is not None:
            closed("Connection.closed", {})

    def close(self) -> None:
        for transport in (self._write, self._read):
            if transport is not None:
                with contextlib.suppress(Exception):
                    transport.close()
        self._lost()
