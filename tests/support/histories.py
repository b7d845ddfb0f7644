"""A page's history archived as a crawl archives it, without a crawl: one round's segment
per capture (real WARC records and CDXJ index through the segment writer), the store's
pointers and a fetch event committed as a round commits them. A capture of the same
bytes as the page's previous response is a revisit record; a capture may keep a rendered
DOM beside it, as a browser capture does (docs/design.md §16).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from recrawl.core import store
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.segments import allocate_name
from recrawl.core.archive.warc import IDENTICAL_PAYLOAD, payload_digest
from recrawl.core.engine import inject
from recrawl.core.net.http import HttpRequest, HttpResponse
from recrawl.core.store.models import PageStatus

T0 = datetime(2027, 1, 1)


@dataclass(frozen=True)
class Version:
    html: str
    #: The DOM a browser rendered from it (None: fetched over HTTP).
    dom: str | None = None


def archive_round(project_dir: Path, pages: dict[str, str], at: datetime = T0) -> None:
    """One round's segment holding a first capture of each of ``pages`` (URL: HTML)."""
    inject(list(pages), at)
    name = allocate_name(project_dir, at)
    writer = SegmentWriter(project_dir, name, at)
    updates = []
    for url, html in pages.items():
        page = store.page_by_url(url)
        assert page is not None
        body = html.encode()
        digest = payload_digest(body)
        request = HttpRequest("GET", urlsplit(url).path or "/", "HTTP/1.1", [])
        headers = [("Content-Type", "text/html; charset=utf-8")]
        response = HttpResponse("HTTP/1.1", 200, "OK", headers, body)
        written = writer.write_response(url, at, request, response, digest=digest, mime="text/html")
        where = {"segment": name, "file": str(writer.relpath), "offset": written.offset}
        updates.append(
            (
                page.id,
                {
                    "status": PageStatus.FETCHED,
                    "last_fetched": at,
                    "content_type": "text/html; charset=utf-8",
                    "segment": where["segment"],
                    "capture_file": where["file"],
                    "capture_offset": written.offset,
                    "capture_length": written.length,
                    "payload_segment": where["segment"],
                    "payload_file": where["file"],
                    "payload_offset": written.offset,
                    "payload_length": written.length,
                    "payload_record_id": written.record_id,
                    "payload_date": at,
                    "payload_digest": digest,
                },
            )
        )
    size = writer.flush()
    batch = store.CommitBatch(
        segment=name, committed_bytes=size, records=len(pages), page_updates=updates
    )
    store.commit_batch(batch, at)
    writer.close(at, size)


def archive_history(
    project_dir: Path,
    url: str,
    versions: Sequence[Version | str],
    start: datetime = T0,
    step: timedelta = timedelta(days=1),
) -> list[datetime]:
    """Archive ``versions`` of ``url``, oldest first, a ``step`` apart; their instants."""
    inject([url], start)
    parts = urlsplit(url)
    response_at: tuple[datetime, str, str] | None = None  # the payload a revisit refers to
    instants = []
    for number, given in enumerate(versions):
        version = Version(given) if isinstance(given, str) else given
        at = start + number * step
        instants.append(at)
        page = store.page_by_url(url)
        assert page is not None
        body = version.html.encode()
        digest = payload_digest(body)
        name = allocate_name(project_dir, at)
        writer = SegmentWriter(project_dir, name, at)
        request = HttpRequest("GET", parts.path or "/", "HTTP/1.1", [("Host", parts.netloc)])
        headers = [("Content-Type", "text/html; charset=utf-8")]
        response = HttpResponse("HTTP/1.1", 200, "OK", headers, body)
        if response_at is not None and response_at[2] == digest:
            written = writer.write_revisit(
                url,
                at,
                request,
                HttpResponse("HTTP/1.1", 200, "OK", headers, b""),
                profile=IDENTICAL_PAYLOAD,
                digest=digest,
                refers_to_uri=url,
                refers_to_date=response_at[0],
                refers_to_id=response_at[1],
            )
        else:
            written = writer.write_response(
                url, at, request, response, digest=digest, mime="text/html"
            )
            response_at = (at, written.record_id, digest)
        if version.dom is not None:
            writer.write_rendering(url, at, written.record_id, version.dom.encode(), None)
        size = writer.flush()
        fields: dict[str, object] = {
            "status": PageStatus.FETCHED,
            "last_fetched": at,
            "content_type": "text/html; charset=utf-8",
            "segment": name,
            "capture_file": str(writer.relpath),
            "capture_offset": written.offset,
            "capture_length": written.length,
        }
        if response_at[1] == written.record_id:
            fields.update(
                payload_segment=name,
                payload_file=str(writer.relpath),
                payload_offset=written.offset,
                payload_length=written.length,
                payload_record_id=written.record_id,
                payload_date=at,
                payload_digest=digest,
            )
        event = {
            "page": page.id,
            "fetched_at": at,
            "http_status": 200,
            "change": "unknown",
            "interval_before": page.fetch_interval,
            "interval_after": page.fetch_interval,
            "segment": name,
            "bytes": len(body),
        }
        store.commit_batch(
            store.CommitBatch(
                segment=name,
                committed_bytes=size,
                records=1,
                page_updates=[(page.id, fields)],
                events=[event],
            ),
            at,
        )
        writer.close(at, size)
    return instants
