"""A TCP relay between the code under test and a database server whose cable can be cut.

:meth:`CutProxy.cut` stops relaying without closing anything, as a cut cable does: the
bytes each side sends meanwhile wait (TCP would retransmit them), a new connection is
accepted but gets no answer, and nobody is told. :meth:`CutProxy.restore` relays again
what waited; ``drop=True`` instead ends the connections that lived through the cut, as
the TCP keepalives and user timeouts of both ends (core/store/postgres.py CLIENT_TCP,
SESSION_SETUP) end them on a real network: a relay's own kernel acknowledges every byte,
so those timers never fire through it.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class CutProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.target = (host, target_port)
        self._listener = socket.create_server((host, 0))
        self.port: int = self._listener.getsockname()[1]
        self._flowing = threading.Event()
        self._flowing.set()
        self._lock = threading.Lock()
        #: Every connection's pair of sockets (client side, server side).
        self._pairs: list[tuple[socket.socket, socket.socket | None]] = []
        #: Connections open while the cable was cut (restore(drop=True) ends them).
        self._through_cut: list[tuple[socket.socket, socket.socket | None]] = []
        self._closed = False
        self._end_at: tuple[bytes, bool] | None = None
        threading.Thread(target=self._accept, daemon=True, name="cut-proxy").start()

    def url(self, database_url: str) -> str:
        """``database_url`` (of the target server) through this relay."""
        return database_url.replace(f":{self.target[1]}/", f":{self.port}/")

    # -- the cable ---------------------------------------------------------------------

    def cut(self) -> None:
        with self._lock:
            self._flowing.clear()
            self._through_cut = list(self._pairs)

    def restore(self, *, drop: bool = False) -> None:
        with self._lock:
            doomed, self._through_cut = self._through_cut, []
        if drop:
            for pair in doomed:
                self._end(pair)
        self._flowing.set()

    def end_at(self, marker: bytes, *, deliver: bool) -> None:
        """End the connection whose client next sends bytes holding ``marker`` (once):
        after handing them to the server (``deliver``: a cut just after a ``COMMIT``
        left, its answer never back), or before (the ``COMMIT`` never arrived)."""
        self._end_at = (marker, deliver)

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # else accept() keeps it listening
        with contextlib.suppress(OSError):
            self._listener.close()
        with self._lock:
            pairs = list(self._pairs)
        for pair in pairs:
            self._end(pair)

    # -- relaying ----------------------------------------------------------------------

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        pair: tuple[socket.socket, socket.socket | None] = (client, None)
        with self._lock:
            self._pairs.append(pair)
        self._flowing.wait()  # a connection made during the cut gets no answer
        if pair not in self._pairs:  # ended meanwhile
            return
        try:
            upstream = socket.create_connection(self.target)
        except OSError:
            self._end(pair)
            return
        for sock in (client, upstream):  # relay each message at once, as a cable does
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._pairs.remove(pair)
            pair = (client, upstream)
            self._pairs.append(pair)
        threading.Thread(target=self._pump, args=(client, upstream, pair), daemon=True).start()
        self._pump(upstream, client, pair)

    def _pump(
        self,
        source: socket.socket,
        sink: socket.socket,
        pair: tuple[socket.socket, socket.socket | None],
    ) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            if data:
                self._flowing.wait()  # read during a cut: held until the cable is back
            if not data or pair not in self._pairs:
                self._end(pair)
                return
            end_at = self._end_at if source is pair[0] else None
            ending = end_at is not None and end_at[0] in data
            if ending:
                self._end_at = None
            try:
                if not ending or (end_at is not None and end_at[1]):
                    sink.sendall(data)
            except OSError:
                ending = True
            if ending:
                self._end(pair)
                return

    def _end(self, pair: tuple[socket.socket, socket.socket | None]) -> None:
        with self._lock:
            if pair in self._pairs:
                self._pairs.remove(pair)
        for sock in pair:
            if sock is None:
                continue
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the pump blocked reading it
            with contextlib.suppress(OSError):
                sock.close()
