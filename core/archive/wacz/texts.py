"""Each exported page's text, for ``pages/pages.jsonl`` (ReplayWeb.page searches it).

The text is the one search indexes (docs/design.md §19): a version's visible text, a
paragraph a line, a browser capture's from its rendered DOM. It is read from the search
index when the version, (URL, payload digest), is there; else it is made from the
capture's records, read through the WARC the export holds open (a compaction deleting the
file meanwhile cannot take them), so a project whose index is not built yet exports its
texts all the same. A revisit's text is that of the response it repeats, unless the
capture kept a rendering of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recrawl.core.archive.rendering import DOM
from recrawl.core.archive.wacz.snapshot import Capture
from recrawl.core.archive.warc import StoredRecord, records_in
from recrawl.core.config import VIEW
from recrawl.core.content.search_text import SearchDocument, document_of, html_document
from recrawl.core.errors import RecrawlError
from recrawl.core.net.decoding import PayloadDecoder
from recrawl.core.store.search import version_texts


@dataclass(frozen=True)
class PageCapture:
    """A capture of pages.jsonl and the response whose payload it shows (itself, or the
    one a revisit repeats)."""

    capture: Capture
    shown: Capture


def page_texts(pages: Sequence[PageCapture]) -> list[SearchDocument | None]:
    """The text of each of ``pages`` (None: it has none, or it cannot be read)."""
    stored = version_texts((page.capture.url, page.capture.digest) for page in pages)
    out: list[SearchDocument | None] = []
    for page in pages:
        found = stored.get((page.capture.url, page.capture.digest))
        out.append(found if found is not None else _read_text(page))
    return out


def _read_text(page: PageCapture) -> SearchDocument | None:
    try:
        own = _records(page.capture)
        dom = _dom(own)
        if dom is not None:  # a browser capture: what the page showed
            return html_document(_decoded_text(dom))
        records = own if page.shown is page.capture else _records(page.shown)
        if not records or records[0].record_type != "response":
            return None
        response = records[0]
        dom = _dom(records)
        if dom is not None:
            return html_document(_decoded_text(dom))
        headers = {name.lower(): value for name, value in response.http_headers}
        decoder = PayloadDecoder(response.body, headers.get("content-encoding"), VIEW.content_cap)
        body = b"".join(decoder)
        if decoder.error is not None:
            return None
        return document_of(body, headers.get("content-type"), page.capture.url)
    except RecrawlError:  # a damaged record: the page is exported without its text
        return None


def _records(capture: Capture) -> list[StoredRecord]:
    """The capture's records: its own, then those that travel with it (its request, a
    rendering) up to the next capture."""
    data = capture.warc.read(capture.offset, capture.end - capture.offset)
    return list(records_in(data, f"{capture.warc.path} at offset {capture.offset}"))


def _dom(records: list[StoredRecord]) -> bytes | None:
    if not records:
        return None
    capture_id = records[0].record_id
    for record in records[1:]:
        if (
            record.record_type == "resource"
            and record.url.startswith(f"urn:{DOM}:")
            and record.warc_headers.get("WARC-Concurrent-To") == capture_id
        ):
            return record.body
    return None


def _decoded_text(dom: bytes) -> str:
    return dom[: VIEW.content_cap].decode("utf-8", "replace")
