"""The capture writer: a fetch's WARC records in the round's segment, as :class:`Capture`s.

A new payload is archived whole (response + request records); a payload the page already
has in the archive becomes a revisit record that refers to it: identical-payload when
the body's digest is unchanged, server-not-modified after a 304 (docs/design.md §5). How each
is written, so that replay tools resolve it to the payload, is
:mod:`recrawl.core.archive.warc_writer`'s.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.warc import IDENTICAL_PAYLOAD, SERVER_NOT_MODIFIED, payload_digest
from recrawl.core.archive.warc_writer import Members
from recrawl.core.engine.parse import media_type
from recrawl.core.engine.update import Capture
from recrawl.core.net.fetch import FetchResult
from recrawl.core.store.models import Page


def stored_payload(page: Page) -> Capture | None:
    """The response record holding the page's latest payload, if it has one to refer to."""
    segment, file, offset, length = (
        page.payload_segment, page.payload_file, page.payload_offset, page.payload_length,
    )  # fmt: skip
    record_id, date, digest = page.payload_record_id, page.payload_date, page.payload_digest
    if (
        not record_id
        or segment is None
        or file is None
        or offset is None
        or length is None
        or date is None
        or digest is None
    ):
        return None
    return Capture(
        segment, file, offset, length, offset, length, file, segment, record_id, date, digest
    )


def archived_whole(page: Page, result: FetchResult) -> bool:
    """Whether :meth:`CaptureWriter.page` will archive this 2xx whole (not a revisit)."""
    assert result.response is not None
    earlier = stored_payload(page)
    if earlier is None or result.truncated:
        return True
    return earlier.payload_digest != payload_digest(result.response.body)


class CaptureWriter:
    """Writes captures into one round's segment."""

    def __init__(self, writer: SegmentWriter) -> None:
        self.writer = writer
        #: The record id of the latest capture written (what its rendering is beside).
        self.last_id = ""

    @property
    def segment(self) -> str:
        return self.writer.name

    def tell(self) -> int:
        """A mark to :meth:`rollback` to."""
        return self.writer.tell()

    def rollback(self, mark: int) -> None:
        """Take back the records written since ``mark`` (none of them committed)."""
        self.writer.rollback(mark)

    def page(
        self, page: Page, result: FetchResult, now: datetime, members: Members | None = None
    ) -> Capture:
        """A 2xx: the whole response, or a revisit when the payload is the one archived.

        ``members``: the response's records, built already (:func:`archived_whole`)."""
        assert result.response is not None
        earlier = stored_payload(page)
        # the analysis process digested the payload when it built the records
        digest = payload_digest(result.response.body) if members is None else members.payload_digest
        if earlier is not None and earlier.payload_digest == digest and not result.truncated:
            return self._revisit(page, result, now, IDENTICAL_PAYLOAD, earlier)
        return self.response(page, result, now, digest, members)

    def rendering(
        self, url: str, now: datetime, dom: bytes | None, screenshot: bytes | None
    ) -> None:
        """A browser capture's DOM and screenshot, beside the capture just written."""
        self.writer.write_rendering(url, now, self.last_id, dom, screenshot)

    def not_modified(self, page: Page, result: FetchResult, now: datetime) -> Capture:
        """A 304: a revisit of the payload archived before (whole if there is none)."""
        earlier = stored_payload(page)
        if earlier is None:
            return self.response(page, result, now)
        return self._revisit(page, result, now, SERVER_NOT_MODIFIED, earlier)

    def response(
        self,
        page: Page,
        result: FetchResult,
        now: datetime,
        digest: str | None = None,
        members: Members | None = None,
    ) -> Capture:
        """The response as received: it is both the capture and the payload."""
        assert result.response is not None and result.request is not None
        digest = digest or payload_digest(result.response.body)
        written = self.writer.write_response(
            page.url,
            now,
            result.request,
            result.response,
            digest=digest,
            mime=media_type(result.header("content-type")) or None,
            truncated=result.truncated,
            ip=result.ip,
            members=members,
        )
        seg, rel = self.writer.name, self.writer.relpath
        self.last_id = written.record_id
        return Capture(
            seg, rel, written.offset, written.length,
            written.offset, written.length, rel, seg, written.record_id, now, digest,
        )  # fmt: skip

    def _revisit(
        self, page: Page, result: FetchResult, now: datetime, profile: str, earlier: Capture
    ) -> Capture:
        """A revisit record: the payload stays the response it refers to."""
        assert result.response is not None and result.request is not None
        written = self.writer.write_revisit(
            page.url,
            now,
            result.request,
            result.response,
            profile=profile,
            digest=earlier.payload_digest,
            refers_to_uri=page.url,
            refers_to_date=earlier.payload_date,
            refers_to_id=earlier.payload_record_id,
        )
        self.last_id = written.record_id
        return replace(
            earlier,
            segment=self.writer.name,
            file=self.writer.relpath,
            offset=written.offset,
            length=written.length,
        )
