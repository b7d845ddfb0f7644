"""Undoing an HTTP Content-Encoding in bounded pieces, never the whole body at once.

A payload is archived as received, still encoded (docs/design.md §7), and a server may send
a decompression bomb: a megabyte of gzip that inflates to gigabytes. Whatever decodes a
payload (the crawl, ``recrawl show``, the app's content view) reads it through
:class:`PayloadDecoder`: each layer of encoding inflates at most one piece at a time, and
the whole stops at a cap, so a bomb costs a piece of memory and is cut at the cap.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from typing import Protocol

#: Decoded bytes are produced (and may be written out) this many at a time.
PIECE = 64 * 1024

_GZIP = ("gzip", "x-gzip")
_IDENTITY = ("identity", "")


class _Inflater(Protocol):
    """The part of :func:`zlib.decompressobj` that decoding uses."""

    @property
    def unconsumed_tail(self) -> bytes: ...
    @property
    def eof(self) -> bool: ...
    def decompress(self, data: bytes, /, max_length: int = ...) -> bytes: ...
    def flush(self, length: int = ..., /) -> bytes: ...


class _Undecodable(Exception):
    """A layer of encoding that cannot be undone; the message says why, in words."""


def codings(content_encoding: str | None) -> list[str]:
    """The codings of a Content-Encoding header, in the order the server applied them."""
    return [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]


def unsupported_coding(content_encoding: str | None) -> str | None:
    """The first coding of ``content_encoding`` this module cannot undo (None: all can)."""
    return next(
        (c for c in codings(content_encoding) if c not in (*_GZIP, "deflate", *_IDENTITY)),
        None,
    )


class PayloadDecoder:
    """The decoded bytes of ``raw``, in pieces of at most ``piece`` bytes, ``cap`` in all.

    Iterate once. Afterwards :attr:`cut` says whether the decoded body was longer than
    ``cap`` (it was stopped there), :attr:`error` why it could not be decoded (the
    pieces read so far are all there is), and :attr:`note` something short of failure
    (the encoded stream ends before its end marker: the body was cut when received).
    """

    def __init__(
        self, raw: bytes, content_encoding: str | None, cap: int, piece: int = PIECE
    ) -> None:
        self.raw = raw
        self.codings = codings(content_encoding)
        self.cap = cap
        self.piece = max(1, piece)
        self.cut = False
        self.error: str | None = None
        self.note: str | None = None
        self.decoded_bytes = 0
        self.unsupported = unsupported_coding(content_encoding)

    def __iter__(self) -> Iterator[bytes]:
        if self.unsupported is not None:
            self.error = f"unsupported Content-Encoding {self.unsupported!r}"
            return
        stream: Iterable[bytes] = _pieces(self.raw, self.piece)
        for coding in reversed(self.codings):
            if coding not in _IDENTITY:
                stream = self._inflated(stream, coding)
        try:
            for chunk in stream:
                room = self.cap - self.decoded_bytes
                if len(chunk) > room:
                    self.cut = True
                    chunk = chunk[:room]
                if chunk:
                    self.decoded_bytes += len(chunk)
                    yield chunk
                if self.cut:
                    return  # the layers below stop with us: nothing more is inflated
        except _Undecodable as exc:
            self.error = str(exc)

    @property
    def problem(self) -> str | None:
        """One line on what went wrong or was left out (None: the whole body, decoded)."""
        if self.error is not None:
            return self.error
        if self.cut:
            return f"decoded body larger than {self.cap} bytes (decompression bomb?); cut"
        return self.note

    def _inflated(self, stream: Iterable[bytes], coding: str) -> Iterator[bytes]:
        inflater: _Inflater | None = None
        try:
            for data in stream:
                if inflater is None:
                    inflater = _inflater(coding, data)
                while data:
                    out = inflater.decompress(data, self.piece)
                    data = inflater.unconsumed_tail  # input held back: output was full
                    if out:
                        yield out
                    if inflater.eof:
                        return  # anything after the end marker is not part of the body
            if inflater is None:
                return  # an empty body
            # what inflate held back at the end of the input: at most one match long
            rest = inflater.flush()
            if rest:
                yield rest
            if not inflater.eof:
                self.note = f"the {coding} data ends early (cut when received?)"
        except zlib.error as exc:
            raise _Undecodable(f"cannot decode the {coding} body: {exc}") from None


def _inflater(coding: str, first: bytes) -> _Inflater:
    if coding in _GZIP:
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    # servers send both zlib-wrapped and raw deflate under this name
    return zlib.decompressobj(zlib.MAX_WBITS if first[:1] == b"\x78" else -zlib.MAX_WBITS)


def _pieces(raw: bytes, size: int) -> Iterator[bytes]:
    view = memoryview(raw)
    for start in range(0, len(raw), size):
        yield bytes(view[start : start + size])
