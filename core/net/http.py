"""HTTP messages as plain values, and the parts of HTTP that need no network.

A fetch produces :class:`HttpRequest` / :class:`HttpResponse` (:mod:`.fetch`), the WARC
writer archives them (:mod:`recrawl.core.archive.warc`), and anything that reads an
archived payload decodes it with :func:`decode_body` (whole, up to a cap) or a
:class:`~recrawl.core.net.decoding.PayloadDecoder` (in pieces). No httpx here: reading
commands stay quick to start.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime

from recrawl.core.net.decoding import PayloadDecoder


@dataclass(frozen=True)
class HttpRequest:
    method: str
    target: str  # path and query as sent
    version: str  # "HTTP/1.1"
    headers: list[tuple[str, str]]


@dataclass(frozen=True)
class HttpResponse:
    version: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes  # exactly as received: Content-Encoding kept, chunking removed


def http_date(value: datetime) -> str:
    return format_datetime(value.replace(tzinfo=UTC), usegmt=True)


def parse_http_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None  # a date no calendar holds is no date
    return parsed


def decode_body(raw: bytes, encoding: str | None, cap: int) -> tuple[bytes, str | None]:
    """Undo Content-Encoding, stopping at ``cap`` decoded bytes; returns (body, problem).

    An encoding it cannot undo leaves the body as received (with the problem said); one
    it cannot decode gives what decoded before the fault. Streams: see :mod:`.decoding`.
    """
    decoder = PayloadDecoder(raw, encoding, cap)
    body = b"".join(decoder)
    if decoder.unsupported is not None:
        return raw[:cap], f"{decoder.error}; body kept encoded"
    return body, decoder.problem
