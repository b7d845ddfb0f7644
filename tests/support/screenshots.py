"""Browser captures with screenshots, written as the engine writes them, without a browser.

:func:`png` makes a real PNG (zlib and struct: no Qt, no Pillow), and
:func:`browser_captures` archives a page's captures through the segment writer, each
response followed by its rendering (``SegmentWriter.write_rendering``) and committed
to the store with a fetch event, as a round does: the app's Pages panel lists the page
and its history, and finds the screenshots where a browser round puts them.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from recrawl.core import store
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.segments import allocate_name
from recrawl.core.archive.warc import IDENTICAL_PAYLOAD, payload_digest
from recrawl.core.engine import inject
from recrawl.core.net.http import HttpRequest, HttpResponse
from recrawl.core.store.models import PageStatus

Pixel = tuple[int, int, int, int]


def png(
    width: int, height: int, fill: Pixel, marks: Sequence[tuple[int, int, Pixel]] = ()
) -> bytes:
    """An RGBA PNG of ``fill`` with the pixels ``marks`` (x, y, colour) set."""
    rows = [bytearray(bytes(fill) * width) for _ in range(height)]
    for x, y, colour in marks:
        rows[y][4 * x : 4 * x + 4] = bytes(colour)
    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 on every row

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@dataclass(frozen=True)
class Capture:
    at: datetime  # naive UTC
    html: str
    #: The capture's screenshot; None: a capture without one (fetched over HTTP).
    screenshot: bytes | None


def browser_captures(project_dir: Path, url: str, captures: Sequence[Capture]) -> None:
    """Archive ``captures`` of ``url`` (oldest first), one round's segment each; a capture
    of the same bytes as the one before is a revisit, as the engine writes it."""
    inject([url], captures[0].at)
    parts = urlsplit(url)
    previous: str | None = None
    response_at: tuple[datetime, str] | None = None  # the response a revisit refers to
    for capture in captures:
        page = store.page_by_url(url)
        assert page is not None
        body = capture.html.encode()
        digest = payload_digest(body)
        name = allocate_name(project_dir, capture.at)
        writer = SegmentWriter(project_dir, name, capture.at)
        request = HttpRequest("GET", parts.path or "/", "HTTP/1.1", [("Host", parts.netloc)])
        headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))]
        response = HttpResponse("HTTP/1.1", 200, "OK", headers, body)
        if previous == digest and response_at is not None:  # unchanged: a revisit
            written = writer.write_revisit(
                url,
                capture.at,
                request,
                response,
                profile=IDENTICAL_PAYLOAD,
                digest=digest,
                refers_to_uri=url,
                refers_to_date=response_at[0],
                refers_to_id=response_at[1],
            )
        else:
            written = writer.write_response(
                url, capture.at, request, response, digest=digest, mime="text/html"
            )
            response_at = (capture.at, written.record_id)
        if capture.screenshot is not None:
            writer.write_rendering(url, capture.at, written.record_id, body, capture.screenshot)
        size = writer.flush()
        relpath = str(writer.relpath)
        fields = {
            "status": PageStatus.FETCHED,
            "last_fetched": capture.at,
            "content_type": "text/html; charset=utf-8",
            "segment": name,
            "capture_file": relpath,
            "capture_offset": written.offset,
            "capture_length": written.length,
        }
        if response_at is not None and response_at[1] == written.record_id:
            # a response is the page's payload now; a revisit leaves it where it was
            fields.update(
                payload_segment=name,
                payload_file=relpath,
                payload_offset=written.offset,
                payload_length=written.length,
                payload_record_id=written.record_id,
                payload_date=capture.at,
                payload_digest=digest,
            )
        change = (
            "unknown" if previous is None else ("unchanged" if previous == digest else "changed")
        )
        event = {
            "page": page.id,
            "fetched_at": capture.at,
            "http_status": 200,
            "change": change,
            "interval_before": page.fetch_interval,
            "interval_after": page.fetch_interval,
            "segment": name,
            "bytes": len(body),
        }
        batch = store.CommitBatch(
            segment=name,
            committed_bytes=size,
            records=1,
            page_updates=[(page.id, fields)],
            events=[event],
        )
        store.commit_batch(batch, capture.at)
        writer.close(capture.at, size)
        previous = digest
