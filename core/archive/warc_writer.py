"""Writing WARC records (warcio), one gzip member per record.

The writer knows nothing of pages or rounds: it appends records to one file and returns
where each landed. :mod:`.segment_writer` decides names, temp files and indexes.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from recrawl.core.archive.warc import warc_date
from recrawl.core.net.http import HttpRequest, HttpResponse
from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from recrawl import __version__


@dataclass(frozen=True)
class Written:
    """Where one record landed: offset and length in the file, and its identity."""

    offset: int
    length: int
    record_id: str
    record_type: str


class _ReceivedHeaders(StatusAndHeaders):
    """HTTP headers written back as the bytes they came as.

    Header values arrive as bytes and are kept as latin-1 text, which maps each byte to
    one character and back. warcio would percent-encode any value that is not ASCII (an
    ETag or filename with an accent); encoding latin-1 instead writes the bytes received.
    """

    def compute_headers_buffer(self, header_filter=None) -> None:  # type: ignore[no-untyped-def]
        self.headers_buff = self.to_bytes(header_filter, encoding="latin-1")


def _response_headers(response: HttpResponse) -> StatusAndHeaders:
    # The body is stored de-chunked, so a Transfer-Encoding header would lie about it;
    # it is kept under another name so nothing the server said is lost.
    headers = [
        ("X-Recrawl-Transfer-Encoding", value)
        if name.lower() == "transfer-encoding"
        else (name, value)
        for name, value in response.headers
    ]
    return _ReceivedHeaders(
        f"{response.status} {response.reason}".strip(), headers, protocol=response.version
    )


class RecordWriter:
    """Appends gzipped WARC/1.1 records to one open binary file, one gzip member each.

    warcio serialises each record into a buffer and we compress it in one call: the
    same format as warcio's own gzip mode, at level 6 instead of 9 and in one piece.
    """

    def __init__(self, out: BinaryIO, filename: str) -> None:
        self._out = out
        self._buffer = io.BytesIO()
        self._writer = WARCWriter(self._buffer, gzip=False, warc_version="1.1")
        self.filename = filename

    def tell(self) -> int:
        return self._out.tell()

    def _write(self, record: ArcWarcRecord) -> Written:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._writer.write_record(record)
        compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        member = compressor.compress(self._buffer.getvalue()) + compressor.flush()
        start = self._out.tell()
        self._out.write(member)
        return Written(
            start,
            len(member),
            record.rec_headers.get_header("WARC-Record-ID"),
            record.rec_type,
        )

    def write_warcinfo(self, instant: datetime, info: dict[str, str]) -> Written:
        fields = {"software": f"Recrawl/{__version__} (warcio)", "format": "WARC File Format 1.1"}
        fields.update(info)
        record = self._writer.create_warcinfo_record(self.filename, fields)
        record.rec_headers.replace_header("WARC-Date", warc_date(instant))
        return self._write(record)

    def write_request(
        self, url: str, instant: datetime, request: HttpRequest, concurrent_to: str | None = None
    ) -> Written:
        http_headers = _ReceivedHeaders(
            f"{request.method} {request.target} {request.version}",
            request.headers,
            is_http_request=True,
        )
        headers = {"WARC-Date": warc_date(instant)}
        if concurrent_to:
            headers["WARC-Concurrent-To"] = concurrent_to
        record = self._writer.create_warc_record(
            url,
            "request",
            payload=io.BytesIO(b""),
            length=0,
            http_headers=http_headers,
            warc_headers_dict=headers,
        )
        return self._write(record)

    def write_response(
        self,
        url: str,
        instant: datetime,
        response: HttpResponse,
        truncated: str | None = None,
        ip: str | None = None,
    ) -> Written:
        headers = {"WARC-Date": warc_date(instant)}
        if truncated:
            headers["WARC-Truncated"] = truncated
        if ip:
            headers["WARC-IP-Address"] = ip
        record = self._writer.create_warc_record(
            url,
            "response",
            payload=io.BytesIO(response.body),
            length=len(response.body),
            http_headers=_response_headers(response),
            warc_headers_dict=headers,
        )
        return self._write(record)

    def write_revisit(
        self,
        url: str,
        instant: datetime,
        response: HttpResponse,
        *,
        profile: str,
        digest: str,
        refers_to_uri: str,
        refers_to_date: datetime,
        refers_to_id: str,
    ) -> Written:
        headers = {"WARC-Date": warc_date(instant), "WARC-Refers-To": refers_to_id}
        bare = HttpResponse(
            response.version, response.status, response.reason, response.headers, b""
        )
        record = self._writer.create_revisit_record(
            url,
            digest,
            refers_to_uri,
            warc_date(refers_to_date),
            http_headers=_response_headers(bare),
            warc_headers_dict=headers,
        )
        record.rec_headers.replace_header("WARC-Profile", profile)
        return self._write(record)
