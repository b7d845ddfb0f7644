"""Finding a page's captures through the segments' CDXJ indexes (``show --at``).

The indexes, not the store, are the lookup: they travel with the WARCs, so whatever
rewrites segments (compaction) keeps this working by rewriting them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from recrawl.core import store
from recrawl.core.archive.cdxj import surt
from recrawl.core.archive.segments import index_files, read_payload
from recrawl.core.archive.warc import StoredRecord, read_record
from recrawl.core.errors import MissingFile, NotFound

T = TypeVar("T")


@dataclass(frozen=True)
class CaptureRef:
    date: datetime
    path: Path
    offset: int
    mime: str
    status: str


# A compaction in another process renames new indexes into place and then deletes old
# segments; a reader caught in between finds a file gone, and simply looks again.
_ATTEMPTS = 5


def _again(read: Callable[[], T]) -> T:
    for attempt in range(_ATTEMPTS):
        try:
            return read()
        except (FileNotFoundError, MissingFile) as exc:
            if attempt == _ATTEMPTS - 1:
                if isinstance(exc, MissingFile):
                    raise
                raise MissingFile(f"file missing: {exc.filename}") from None
            time.sleep(0.02 * 2**attempt)  # the other process is deleting folders
    raise AssertionError("unreachable")


def find_captures(project_dir: Path, url: str) -> list[CaptureRef]:
    """Every indexed capture of ``url``, oldest first."""
    return _again(lambda: _find_captures(project_dir, url))


def _find_captures(project_dir: Path, url: str) -> list[CaptureRef]:
    key = surt(url) + " "
    found = []
    for index in index_files(project_dir):
        with open(index, encoding="utf-8", newline="\n") as fh:
            for line in fh:
                if not line.startswith(key):
                    continue
                _, stamp, fields = line.split(" ", 2)
                data = json.loads(fields)
                if data.get("url") != url:
                    continue
                found.append(
                    CaptureRef(
                        datetime.strptime(stamp, "%Y%m%d%H%M%S"),
                        index.parent / data["filename"],
                        int(data["offset"]),
                        data.get("mime", ""),
                        str(data.get("status", "")),
                    )
                )
    return sorted(found, key=lambda c: (c.date, c.path.name, c.offset))


def latest_payload(project_dir: Path, url: str) -> StoredRecord:
    """The payload of the page's latest capture, through the store's pointer."""

    def read() -> StoredRecord:
        page = store.page_by_url(url)
        if page is None:
            raise NotFound(f"no page {url} in this project")
        if page.payload_file is None or page.payload_offset is None:
            raise NotFound(f"{page.url} has no capture yet (status {page.status})")
        return read_payload(project_dir, page.payload_file, page.payload_offset)

    return _again(read)


def payload_at(project_dir: Path, url: str, at: datetime) -> StoredRecord:
    """The payload of the capture of ``url`` closest before ``at``, revisits resolved."""
    return _again(lambda: _payload_at(project_dir, url, at))


def _payload_at(project_dir: Path, url: str, at: datetime) -> StoredRecord:
    captures = _find_captures(project_dir, url)
    before = [c for c in captures if c.date <= at]
    if not before:
        raise NotFound(f"no capture of {url} at or before {at.isoformat()}Z")
    chosen = before[-1]
    record = read_record(chosen.path, chosen.offset)
    if record.record_type != "revisit":
        return record
    # a revisit stands for the response it refers to: same target, that date
    target = record.warc_headers.get("WARC-Refers-To-Target-URI", url)
    refers = record.warc_headers.get("WARC-Refers-To-Date", "")
    when = datetime.fromisoformat(refers.replace("Z", "+00:00")).replace(tzinfo=None)
    for capture in _find_captures(project_dir, target):
        if capture.mime != "warc/revisit" and capture.date == when.replace(microsecond=0):
            return read_record(capture.path, capture.offset)
    raise NotFound(f"the response {url}'s revisit refers to ({refers}) is not in the project")
