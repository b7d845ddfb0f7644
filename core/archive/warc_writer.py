"""Writing WARC records (warcio), one gzip member per record.

The writer knows nothing of pages or rounds: it appends records to one file and returns
where each landed. :mod:`.segment_writer` decides names, temp files and indexes.

Revisits, and why they look as they do
--------------------------------------
A revisit stands for a response archived before; replay tools resolve it to that
record. pywb 2.x does it in ``pywb/warcserver/resource/resolvingloader.py``:
``ResolvingLoader.load_headers_and_payload`` loads the revisit ("headers record") and,
for an index line of mime ``warc/revisit``, ``_load_different_url_payload`` looks the
original up in the index by ``WARC-Refers-To-Target-URI`` (required: without it the
revisit is "Original for revisit record could not be loaded"), closest to
``WARC-Refers-To-Date`` (else the revisit's own date), filtered on the index line's
``digest`` (our ``WARC-Payload-Digest``); ``WARC-Refers-To`` and ``WARC-Profile`` are not
read. ``WARCPathLoader.load_resource`` (``responseloader.py``) then replays the revisit's
own HTTP status and headers when it has any (``headers.http_headers or
payload.http_headers``) over the original's payload. Since pywb 2.6.8 (commit c1211981,
"revisit of redirect optimization") a revisit whose HTTP status starts with ``3`` is
answered with its own headers and an empty body, without loading the original: meant
for redirects, it catches 304s too, so a revisit that carries the 304 it was written for
replays as an empty 304, a blank page. warcio itself resolves nothing; its record loader
gives a revisit with an empty block no HTTP headers (``load_http_headers``).

What WARC 1.1 (§6.7.2, §6.7.3) allows, and what we write:

- identical-payload-digest: the block is the response's status line and headers with
  the payload left off, which the spec says "shall" be marked ``WARC-Truncated: length``;
  ``WARC-Payload-Digest`` is the digest of that (unchanged) payload.
- server-not-modified: the spec's payload is "the original payload content from which a
  'Last-Modified' and/or 'ETag' value was taken", so ``WARC-Payload-Digest`` is the
  original's digest; the record "may have no content body, in which case a
  Content-Length of zero shall be written". We write it so: no block, no Content-Type.
  A block would have to be the 304 itself ("interpreted the same as a 'response'
  record", as in the spec's example B.6), and any other status line would be untrue.
  With no HTTP headers of its own, pywb replays the original response, headers and
  payload, at the revisit's date.
- Both carry ``WARC-Refers-To`` (the original's record id), ``WARC-Refers-To-Target-URI``
  and ``WARC-Refers-To-Date`` (its URI and date, as the spec recommends).

Nothing the server said is lost: the 304's status line and headers go into a ``metadata``
record beside the revisit (``WARC-Concurrent-To`` it, as the request record is), as
``application/warc-fields``, which pywb's indexer and cdxj-indexer both skip (a
``message/http`` block would be indexed as a capture and replayed in its place).
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from recrawl.core.archive.warc import SERVER_NOT_MODIFIED, warc_date
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


class _Writer(WARCWriter):
    # A metadata record's block is named fields, not an HTTP message: it has no payload
    # (WARC 1.1 §5.9: no WARC-Payload-Digest on records without a well-defined one).
    NO_PAYLOAD_DIGEST_TYPES = (*WARCWriter.NO_PAYLOAD_DIGEST_TYPES, "metadata")


@dataclass(frozen=True)
class Members:
    """A response record and its request record as gzip members, built ahead of writing
    (by a crawl's analysis process: serialising, digesting and compressing them is CPU
    work the crawl's own process is spared); :meth:`RecordWriter.write_members` writes
    them as :meth:`RecordWriter.write_response` would have."""

    response: bytes
    response_id: str
    request: bytes
    #: The response's WARC-Payload-Digest (``sha1:`` + base32), as the record says it.
    payload_digest: str


class RecordBuilder:
    """Serialises WARC/1.1 records into gzip members, one member a record.

    warcio serialises each record into a buffer and we compress it in one call: the
    same format as warcio's own gzip mode, at level 6 instead of 9 and in one piece.
    """

    def __init__(self) -> None:
        self._buffer = io.BytesIO()
        self.warcio = _Writer(self._buffer, gzip=False, warc_version="1.1")

    def member(self, record: ArcWarcRecord) -> bytes:
        self._buffer.seek(0)
        self._buffer.truncate()
        self.warcio.write_record(record)
        compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return compressor.compress(self._buffer.getvalue()) + compressor.flush()

    def response_record(
        self,
        url: str,
        instant: datetime,
        response: HttpResponse,
        truncated: str | None,
        ip: str | None,
    ) -> ArcWarcRecord:
        headers = {"WARC-Date": warc_date(instant)}
        if truncated:
            headers["WARC-Truncated"] = truncated
        if ip:
            headers["WARC-IP-Address"] = ip
        return self.warcio.create_warc_record(
            url,
            "response",
            payload=io.BytesIO(response.body),
            length=len(response.body),
            http_headers=_response_headers(response),
            warc_headers_dict=headers,
        )

    def request_record(
        self, url: str, instant: datetime, request: HttpRequest, concurrent_to: str | None
    ) -> ArcWarcRecord:
        http_headers = _ReceivedHeaders(
            f"{request.method} {request.target} {request.version}",
            request.headers,
            is_http_request=True,
        )
        headers = {"WARC-Date": warc_date(instant)}
        if concurrent_to:
            headers["WARC-Concurrent-To"] = concurrent_to
        return self.warcio.create_warc_record(
            url,
            "request",
            payload=io.BytesIO(b""),
            length=0,
            http_headers=http_headers,
            warc_headers_dict=headers,
        )

    def response_members(
        self,
        url: str,
        instant: datetime,
        request: HttpRequest,
        response: HttpResponse,
        truncated: str | None = None,
        ip: str | None = None,
    ) -> Members:
        record = self.response_record(url, instant, response, truncated, ip)
        record_id = record.rec_headers.get_header("WARC-Record-ID")
        request_record = self.request_record(url, instant, request, record_id)
        response_member = self.member(record)  # digests the payload
        digest = record.rec_headers.get_header("WARC-Payload-Digest")
        return Members(response_member, record_id, self.member(request_record), digest)


class RecordWriter:
    """Appends gzipped WARC/1.1 records to one open binary file, one gzip member each."""

    def __init__(self, out: BinaryIO, filename: str) -> None:
        self._out = out
        # the position is kept here, not asked of the file: a buffered file's tell() is
        # a system call, which a crawl would make several times a page
        self._position = out.tell()
        #: The write that failed, if one did: the file takes no more (:meth:`_check`).
        self._broken: OSError | None = None
        self._builder = RecordBuilder()
        self._writer = self._builder.warcio
        self.filename = filename

    def tell(self) -> int:
        return self._position

    def rewind(self, offset: int) -> None:
        """Take back everything written from ``offset`` on."""
        self._check()
        try:
            self._out.seek(offset)
            self._out.truncate(offset)
        except OSError as exc:
            self._broken = exc
            raise
        self._position = offset

    def flush(self) -> None:
        """Hand what is buffered to the OS."""
        self._check()
        try:
            self._out.flush()
        except OSError as exc:
            self._broken = exc
            raise

    def _append(self, data: bytes) -> None:
        self._check()
        try:
            self._out.write(data)
        except OSError as exc:
            self._broken = exc
            raise
        self._position += len(data)

    def _check(self) -> None:
        # after a failed write (a full disk) part of a record may be in the file or the
        # buffer: a record written after it would not be where tell() says, so none is
        if self._broken is not None:
            raise OSError(
                self._broken.errno, f"{self.filename} failed earlier: {self._broken.strerror}"
            )

    def _write(self, record: ArcWarcRecord) -> Written:
        member = self._builder.member(record)
        start = self._position
        self._append(member)
        return Written(
            start,
            len(member),
            record.rec_headers.get_header("WARC-Record-ID"),
            record.rec_type,
        )

    def write_members(self, members: Members) -> Written:
        """The response and request records of :class:`Members`; where the response landed."""
        start = self._position
        self._append(members.response)
        self._append(members.request)
        return Written(start, len(members.response), members.response_id, "response")

    def write_warcinfo(self, instant: datetime, info: dict[str, str]) -> Written:
        fields = {"software": f"Recrawl/{__version__} (warcio)", "format": "WARC File Format 1.1"}
        fields.update(info)
        record = self._writer.create_warcinfo_record(self.filename, fields)
        record.rec_headers.replace_header("WARC-Date", warc_date(instant))
        return self._write(record)

    def write_request(
        self, url: str, instant: datetime, request: HttpRequest, concurrent_to: str | None = None
    ) -> Written:
        return self._write(self._builder.request_record(url, instant, request, concurrent_to))

    def write_response(
        self,
        url: str,
        instant: datetime,
        response: HttpResponse,
        truncated: str | None = None,
        ip: str | None = None,
    ) -> Written:
        return self._write(self._builder.response_record(url, instant, response, truncated, ip))

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
        """A revisit of the response ``refers_to_id`` (see the module docstring for its form).

        identical-payload: the response's status line and headers, its payload left off
        (``WARC-Truncated: length``). server-not-modified: no block at all; the 304's
        head goes into :meth:`write_not_modified_head` instead.
        """
        headers = {"WARC-Date": warc_date(instant), "WARC-Refers-To": refers_to_id}
        http_headers: StatusAndHeaders | None = None
        if profile != SERVER_NOT_MODIFIED:
            headers["WARC-Truncated"] = "length"
            bare = HttpResponse(
                response.version, response.status, response.reason, response.headers, b""
            )
            http_headers = _response_headers(bare)
        record = self._writer.create_revisit_record(
            url,
            digest,
            refers_to_uri,
            warc_date(refers_to_date),
            http_headers=http_headers,
            warc_headers_dict=headers,
        )
        record.rec_headers.replace_header("WARC-Profile", profile)
        if http_headers is None:
            record.content_type = None  # an empty block has no media type
        return self._write(record)

    def write_not_modified_head(
        self, url: str, instant: datetime, response: HttpResponse, revisit_id: str
    ) -> Written:
        """The head of a 304 as received, beside the block-less revisit written for it.

        A ``metadata`` record (``application/warc-fields``: replay tools and indexers
        leave those alone), one field per line: ``http-status-line``, then
        ``http-header`` per header in the order received.
        """
        lines = [f"http-status-line: {response.version} {response.status} {response.reason}"]
        lines += [f"http-header: {name}: {value}" for name, value in response.headers]
        block = ("\r\n".join(line.rstrip() for line in lines) + "\r\n").encode("utf-8")
        record = self._writer.create_warc_record(
            url,
            "metadata",
            payload=io.BytesIO(block),
            length=len(block),
            warc_content_type="application/warc-fields",
            warc_headers_dict={"WARC-Date": warc_date(instant), "WARC-Concurrent-To": revisit_id},
        )
        return self._write(record)

    def write_rendering(
        self, url: str, instant: datetime, concurrent_to: str, kind: str, mime: str, body: bytes
    ) -> Written:
        """A browser capture's rendering (:mod:`..rendering`): a ``resource`` record named
        ``urn:KIND:URL`` beside the capture it was rendered from (``WARC-Concurrent-To``),
        as Browsertrix names its ``urn:screenshot:`` records."""
        record = self._writer.create_warc_record(
            f"urn:{kind}:{url}",
            "resource",
            payload=io.BytesIO(body),
            length=len(body),
            warc_content_type=mime,
            warc_headers_dict={
                "WARC-Date": warc_date(instant),
                "WARC-Concurrent-To": concurrent_to,
            },
        )
        return self._write(record)
