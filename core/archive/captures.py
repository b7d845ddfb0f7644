"""Finding a page's captures (``show --at``, ``diff``): the capture table, or the indexes.

The store's capture table (:mod:`recrawl.core.store.captures`) lists what the CDXJ
indexes list, by URL: a lookup costs the same in a project of 3 segments or 3,000. The
indexes stay the record (they travel with the WARCs; whatever rewrites segments, a
compaction, rewrites them and moves the table's rows in its commit). Until the table is
built (a store from before it, built by the next recovery) the indexes are read, each
line of each: the segments' and history's alike, so captures a compaction moved into
``history/`` are found either way. The table also lists the captures a round still
writing has committed; the indexes have none until it closes, and its latest capture of
a page is the store's pointer (:func:`all_captures`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from recrawl.core import store
from recrawl.core.archive.cdxj import legacy_surt, surt
from recrawl.core.archive.rendering import Rendered, rendering_at
from recrawl.core.archive.segments import index_files, read_payload, resolve
from recrawl.core.archive.warc import StoredRecord, read_record
from recrawl.core.errors import MissingFile, NoActiveStore, NotFound

T = TypeVar("T")


@dataclass(frozen=True)
class CaptureRef:
    """One capture of a page: a response or revisit record, as its index line says."""

    date: datetime  # to the second, as indexes keep it
    path: Path
    offset: int
    mime: str  # ``warc/revisit`` for a revisit
    status: str  # the HTTP status, ``-`` for a revisit of a 304
    digest: str = ""  # the payload's digest (a revisit's: the payload it refers to)
    #: The record's length in the file (None: not known), to step over its body unread.
    length: int | None = None

    @property
    def record_type(self) -> str:
        return "revisit" if self.mime == REVISIT_MIME else "response"


REVISIT_MIME = "warc/revisit"


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
    return _find_all(project_dir, [url]).get(url, [])


def _find_all(project_dir: Path, urls: Iterable[str]) -> dict[str, list[CaptureRef]]:
    if _table_ready():
        return _from_table(project_dir, list(urls))
    return scan_indexes(project_dir, urls)


def _table_ready() -> bool:
    try:
        return store.captures_ready()
    except NoActiveStore:  # the folder's files alone (no project open here): read them
        return False


def _from_table(project_dir: Path, urls: list[str]) -> dict[str, list[CaptureRef]]:
    found: dict[str, list[CaptureRef]] = {}
    paths: dict[str, Path] = {}  # one Path a WARC, found (maybe still .open) once
    for row in store.captures_by_url(urls):
        path = paths.get(row.file)
        if path is None:
            path = paths[row.file] = resolve(project_dir, row.file)
        found.setdefault(row.url, []).append(
            CaptureRef(
                _date(row.stamp),
                path,
                row.offset,
                row.mime,
                row.status,
                row.digest,
                row.length,
            )
        )
    return {
        url: sorted(refs, key=lambda c: (c.date, c.path.name, c.offset))
        for url, refs in found.items()
    }


def _date(stamp: str) -> datetime:
    # a hundred captures of a page: strptime would be a third of the lookup
    s = stamp
    return datetime(
        int(s[:4]), int(s[4:6]), int(s[6:8]), int(s[8:10]), int(s[10:12]), int(s[12:14])
    )


def scan_indexes(project_dir: Path, urls: Iterable[str]) -> dict[str, list[CaptureRef]]:
    """Every indexed capture of ``urls``, read from each line of each index (before the
    capture table, and what it is checked against)."""
    # Two URLs may share a key (the standard SURT sorts queries and drops session ids):
    # the line's own "url" decides. An index a failed upgrade left with the old keys
    # (index_keys) is still searched by them until the next writer re-keys it.
    wanted: dict[str, set[str]] = {}
    for url in urls:
        for key in (surt(url), legacy_surt(url)):
            wanted.setdefault(key, set()).add(url)
    found: dict[str, list[CaptureRef]] = {}
    paths: dict[tuple[Path, str], Path] = {}  # one Path a WARC, however many captures
    for index in index_files(project_dir):
        with open(index, encoding="utf-8", newline="\n") as fh:
            for line in fh:
                key, _, rest = line.partition(" ")
                if key not in wanted:
                    continue
                stamp, _, fields = rest.partition(" ")
                data = json.loads(fields)
                url = data.get("url")
                if url not in wanted[key]:
                    continue
                found.setdefault(url, []).append(
                    CaptureRef(
                        datetime.strptime(stamp, "%Y%m%d%H%M%S"),
                        _path(paths, index.parent, data["filename"]),
                        int(data["offset"]),
                        data.get("mime", ""),
                        str(data.get("status", "")),
                        data.get("digest", ""),
                        int(data["length"]) if "length" in data else None,
                    )
                )
    return {
        url: sorted(refs, key=lambda c: (c.date, c.path.name, c.offset))
        for url, refs in found.items()
    }


def _path(paths: dict[tuple[Path, str], Path], folder: Path, name: str) -> Path:
    path = paths.get((folder, name))
    if path is None:
        path = paths[(folder, name)] = folder / name
    return path


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
    return _payload_of(project_dir, before[-1])


def all_captures(project_dir: Path, url: str) -> list[CaptureRef]:
    """Every capture of ``url``, oldest first: the indexed ones, and the latest one
    while the round that wrote it is still writing (not indexed until it closes)."""
    return _again(lambda: _all_captures(project_dir, url))


def _all_captures(project_dir: Path, url: str) -> list[CaptureRef]:
    return _with_latest(project_dir, url, _find_captures(project_dir, url))


def captures_of(project_dir: Path, urls: Sequence[str]) -> dict[str, list[CaptureRef]]:
    """:func:`all_captures` of many URLs at once (the indexes read once, not once a URL);
    a URL without a capture has an empty list."""

    def read() -> dict[str, list[CaptureRef]]:
        found = _find_all(project_dir, urls)
        return {url: _with_latest(project_dir, url, found.get(url, [])) for url in urls}

    return _again(read)


def _with_latest(project_dir: Path, url: str, found: list[CaptureRef]) -> list[CaptureRef]:
    page = store.page_by_url(url)
    if page is None or page.capture_file is None or page.capture_offset is None:
        return found
    path = resolve(project_dir, page.capture_file)
    final = project_dir / page.capture_file
    if any(c.offset == page.capture_offset and c.path in (path, final) for c in found):
        return found
    record = read_record(path, page.capture_offset)
    date = datetime.fromisoformat(record.date.replace("Z", "+00:00")).replace(tzinfo=None)
    latest = CaptureRef(
        date.replace(microsecond=0),
        path,
        page.capture_offset,
        REVISIT_MIME
        if record.record_type == "revisit"
        else (page.content_type or "").split(";")[0].strip().lower(),
        str(record.http_status) if record.http_status is not None else "-",
        record.warc_headers.get("WARC-Payload-Digest", ""),
        page.capture_length,
    )
    return sorted([*found, latest], key=lambda c: (c.date, c.path.name, c.offset))


def capture_payload(project_dir: Path, capture: CaptureRef) -> StoredRecord:
    """The record holding ``capture``'s payload: itself, or the response its revisit
    refers to."""
    return _again(lambda: _payload_of(project_dir, capture))


def _payload_of(project_dir: Path, capture: CaptureRef) -> StoredRecord:
    record = read_record(capture.path, capture.offset)
    if record.record_type != "revisit":
        return record
    # a revisit stands for the response it refers to: same target, that date (or, from
    # a tool that wrote no date, the same payload digest)
    url = record.url
    target = record.warc_headers.get("WARC-Refers-To-Target-URI", url)
    refers = record.warc_headers.get("WARC-Refers-To-Date", "")
    digest = record.warc_headers.get("WARC-Payload-Digest", capture.digest)
    when = None
    if refers:
        instant = datetime.fromisoformat(refers.replace("Z", "+00:00")).replace(tzinfo=None)
        when = instant.replace(microsecond=0)
    responses = [c for c in _find_captures(project_dir, target) if c.mime != REVISIT_MIME]
    for candidate in [c for c in responses if c.date == when] or [
        c for c in reversed(responses) if digest and c.digest == digest and c.date <= capture.date
    ]:
        return read_record(candidate.path, candidate.offset)
    raise NotFound(
        f"the response {url}'s revisit refers to ({refers or digest}) is not in the project"
    )


def latest_rendering(project_dir: Path, url: str) -> Rendered:
    """What the browser kept of the page's latest capture, through the store's pointer
    (both None: it was fetched over HTTP); NotFound when it has no capture."""

    def read() -> Rendered:
        page = store.page_by_url(url)
        if page is None:
            raise NotFound(f"no page {url} in this project")
        if page.capture_file is None or page.capture_offset is None:
            raise NotFound(f"{page.url} has no capture yet (status {page.status})")
        return rendering_at(resolve(project_dir, page.capture_file), page.capture_offset)

    return _again(read)


def rendering_before(project_dir: Path, url: str, at: datetime) -> tuple[CaptureRef, Rendered]:
    """The capture of ``url`` at or before ``at`` (the latest such) and what the browser
    kept of it; NotFound when there is none that early."""

    def read() -> tuple[CaptureRef, Rendered]:
        before = [c for c in _all_captures(project_dir, url) if c.date <= at]
        if not before:
            raise NotFound(f"no capture of {url} at or before {at.isoformat()}Z")
        return before[-1], rendering_at(before[-1].path, before[-1].offset)

    return _again(read)
