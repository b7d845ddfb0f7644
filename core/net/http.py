"""HTTP messages as plain values, and the parts of HTTP that need no network.

A fetch produces :class:`HttpRequest` / :class:`HttpResponse` (:mod:`.fetch`), the WARC
writer archives them (:mod:`recrawl.core.archive.warc`), and anything that reads an
archived payload decodes it with :func:`decode_body`. No httpx here: reading commands
stay quick to start.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime


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
    """Undo Content-Encoding, stopping at ``cap`` decoded bytes; returns (body, problem)."""
    codings = [c.strip().lower() for c in (encoding or "").split(",") if c.strip()]
    body = raw
    for coding in reversed(codings):
        if coding in ("identity", ""):
            continue
        if coding in ("gzip", "x-gzip"):
            decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            # servers send both zlib-wrapped and raw deflate under this name
            wbits = zlib.MAX_WBITS if body[:1] == b"\x78" else -zlib.MAX_WBITS
            decoder = zlib.decompressobj(wbits)
        else:
            return body[:cap], f"unsupported Content-Encoding {coding!r}; body kept encoded"
        try:
            out = decoder.decompress(body, cap + 1)
        except zlib.error as exc:
            return b"", f"cannot decode {coding} body: {exc}"
        if len(out) > cap:
            return out[:cap], f"decoded body larger than {cap} bytes (decompression bomb?); cut"
        body = out
    return body[:cap], None
