"""Reading WARC records (warcio), and what readers and writers share.

Writing is :mod:`.warc_writer`'s (and a segment's, :mod:`.segment_writer`'s).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from recrawl.core.errors import MissingFile, WarcError
from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord

SERVER_NOT_MODIFIED = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
IDENTICAL_PAYLOAD = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"


def payload_digest(body: bytes) -> str:
    """The WARC payload digest of a body as received: ``sha1:`` + base32."""
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode("ascii")


def warc_date(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class StoredRecord:
    record_type: str
    url: str
    date: str
    record_id: str
    http_status: int | None
    http_headers: list[tuple[str, str]]
    body: bytes  # the HTTP payload as stored (still content-encoded)
    warc_headers: dict[str, str]


def read_record(path: Path, offset: int) -> StoredRecord:
    """Read the one record at ``offset`` of a WARC file."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            for record in ArchiveIterator(fh):
                return _stored(record)
    except FileNotFoundError:
        raise MissingFile(f"WARC file missing: {path}") from None
    except (ArchiveLoadFailed, OSError, zlib.error, EOFError, ValueError) as exc:
        raise WarcError(f"corrupt WARC record in {path} at offset {offset}: {exc}") from None
    raise WarcError(f"no WARC record in {path} at offset {offset}")


def _stored(record: ArcWarcRecord) -> StoredRecord:
    http = record.http_headers
    status = None
    if http is not None and record.rec_type in ("response", "revisit"):
        try:
            status = int(http.get_statuscode())
        except (TypeError, ValueError):
            status = None
    return StoredRecord(
        record_type=record.rec_type,
        url=record.rec_headers.get_header("WARC-Target-URI") or "",
        date=record.rec_headers.get_header("WARC-Date") or "",
        record_id=record.rec_headers.get_header("WARC-Record-ID") or "",
        http_status=status,
        http_headers=list(http.headers) if http is not None else [],
        body=record.raw_stream.read(),
        warc_headers=dict(record.rec_headers.headers),
    )


@dataclass(frozen=True)
class IndexedRecord:
    offset: int
    length: int
    record: StoredRecord


def iter_records(path: Path, limit: int | None = None) -> Iterator[IndexedRecord]:
    """Every record of a file with its offset and length (stops at ``limit`` bytes)."""
    with open(path, "rb") as fh:
        stream: BinaryIO = fh
        if limit is not None:
            stream = io.BytesIO(fh.read(limit))
        iterator = ArchiveIterator(stream)
        for record in iterator:
            stored = _stored(record)
            iterator.read_to_end()
            yield IndexedRecord(iterator.get_record_offset(), iterator.get_record_length(), stored)


def iter_records_from(path: Path, offset: int) -> Iterator[IndexedRecord]:
    """The records of a file from the one at ``offset`` on (offsets in the file)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            iterator = ArchiveIterator(fh)
            for record in iterator:
                stored = _stored(record)
                iterator.read_to_end()
                # warcio counts from where the file was, not from where it began reading
                yield IndexedRecord(
                    iterator.get_record_offset(), iterator.get_record_length(), stored
                )
    except FileNotFoundError:
        raise MissingFile(f"WARC file missing: {path}") from None
    except (ArchiveLoadFailed, OSError, zlib.error, EOFError, ValueError) as exc:
        raise WarcError(f"corrupt WARC record in {path} after offset {offset}: {exc}") from None


def records_in(data: bytes, where: str) -> Iterator[StoredRecord]:
    """The records of ``data``, bytes of a WARC read already (``where`` names them in an
    error): a reader holding the file open reads what a compaction may delete meanwhile."""
    try:
        for record in ArchiveIterator(io.BytesIO(data)):
            yield _stored(record)
    except (ArchiveLoadFailed, zlib.error, EOFError, ValueError) as exc:
        raise WarcError(f"corrupt WARC record in {where}: {exc}") from None


def fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
