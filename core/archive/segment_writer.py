"""Writing a segment (docs/design.md §7): one round's WARC and its sorted CDXJ index.

While a round writes, the WARC is ``<name>.warc.gz.open``; closing writes the sorted
index under a temporary name, renames it, then renames the WARC. The store's
``committed_bytes`` says how much of an open WARC its pages point into: after a kill,
:func:`recover_open_segments` cuts the file there (dropping records no page refers to)
and closes the segment.
"""

from __future__ import annotations

import os
import shutil
from datetime import datetime
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.capture_table import row_of_line
from recrawl.core.archive.cdxj import cdxj_line, write_index
from recrawl.core.archive.rendering import DOM, DOM_MIME, SCREENSHOT, SCREENSHOT_MIME
from recrawl.core.archive.segments import OPEN_SUFFIX, index_path, warc_relpath
from recrawl.core.archive.warc import SERVER_NOT_MODIFIED, fsync_dir, iter_records
from recrawl.core.archive.warc_writer import Members, RecordWriter, Written
from recrawl.core.errors import WarcError
from recrawl.core.layout import Layout
from recrawl.core.net.http import HttpRequest, HttpResponse

#: Bytes of records held before they are handed to the OS (also at each commit).
WRITE_BUFFER = 1 << 20


class SegmentWriter:
    """Writes one round's WARC; every record a page will point at is indexed on close."""

    def __init__(
        self,
        project_dir: Path,
        name: str,
        created_at: datetime,
        info: dict[str, str] | None = None,
        worker: str | None = None,
    ) -> None:
        self.project_dir = project_dir
        self.name = name
        self.relpath = warc_relpath(name)
        self.dir = Layout(project_dir).segment(name)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.final_path = project_dir / self.relpath
        self.open_path = self.final_path.with_name(self.final_path.name + OPEN_SUFFIX)
        # A large buffer: the records reach the OS in few writes (each a system call that
        # hands the interpreter lock to another thread), all by the next commit, which
        # flushes it (written()): nothing is durable before that in any case.
        self._fh = open(self.open_path, "wb", buffering=WRITE_BUFFER)  # noqa: SIM115 - lives as long as the writer
        self.records = RecordWriter(self._fh, self.final_path.name)
        self._index: list[tuple[int, str]] = []
        self._taken = 0  # the captures of _index handed to a commit (take_captures)
        self.captures = 0
        self.records.write_warcinfo(
            created_at, {"isPartOf": f"recrawl-segment-{name}", **(info or {})}
        )
        self.flush()
        store.create_segment(name, created_at, self.relpath, worker)
        store.commit_batch(store.CommitBatch(segment=name, committed_bytes=self.tell()), created_at)

    def tell(self) -> int:
        return self.records.tell()

    def flush(self) -> int:
        """Make everything written so far durable; returns the durable size."""
        size = self.written()
        self.sync()
        return size

    def written(self) -> int:
        """Hand everything written so far to the OS; returns the size (not yet durable)."""
        self.records.flush()
        return self.tell()

    def sync(self) -> None:
        """Make what was handed to the OS durable (safe from another thread)."""
        os.fsync(self._fh.fileno())

    def _index_capture(
        self, url: str, instant: datetime, written: Written, fields: dict[str, str]
    ) -> None:
        where = {"length": written.length, "offset": written.offset}
        line = cdxj_line(url, instant, {**fields, **where, "filename": self.final_path.name})
        self._index.append((written.offset, line))
        self.captures += 1

    def write_response(
        self,
        url: str,
        instant: datetime,
        request: HttpRequest,
        response: HttpResponse,
        *,
        digest: str,
        mime: str | None,
        truncated: str | None = None,
        ip: str | None = None,
        members: Members | None = None,
    ) -> Written:
        """The response and its request (``members``: built already, the same records)."""
        if members is not None:
            written = self.records.write_members(members)
        else:
            written = self.records.write_response(url, instant, response, truncated, ip)
            self.records.write_request(url, instant, request, concurrent_to=written.record_id)
        self._index_capture(
            url,
            instant,
            written,
            {
                "mime": mime or "unk",
                "status": str(response.status),
                "digest": digest,
            },
        )
        return written

    def write_revisit(
        self,
        url: str,
        instant: datetime,
        request: HttpRequest,
        response: HttpResponse,
        *,
        profile: str,
        digest: str,
        refers_to_uri: str,
        refers_to_date: datetime,
        refers_to_id: str,
    ) -> Written:
        written = self.records.write_revisit(
            url,
            instant,
            response,
            profile=profile,
            digest=digest,
            refers_to_uri=refers_to_uri,
            refers_to_date=refers_to_date,
            refers_to_id=refers_to_id,
        )
        self.records.write_request(url, instant, request, concurrent_to=written.record_id)
        status = str(response.status)
        if profile == SERVER_NOT_MODIFIED:
            self.records.write_not_modified_head(url, instant, response, written.record_id)
            status = "-"  # the revisit has no HTTP block, hence no status of its own
        self._index_capture(
            url, instant, written, {"mime": "warc/revisit", "status": status, "digest": digest}
        )
        return written

    def write_rendering(
        self,
        url: str,
        instant: datetime,
        concurrent_to: str,
        dom: bytes | None,
        screenshot: bytes | None,
    ) -> None:
        """A browser capture's rendered DOM and screenshot, right after its records: not
        indexed, they travel with the capture wherever it is copied (compaction, export).
        ``dom`` None: the page is not judged by one (a PDF in the browser's viewer)."""
        if dom is not None:
            self.records.write_rendering(url, instant, concurrent_to, DOM, DOM_MIME, dom)
        if screenshot is not None:
            self.records.write_rendering(
                url, instant, concurrent_to, SCREENSHOT, SCREENSHOT_MIME, screenshot
            )

    def take_captures(self) -> list[store.CaptureRow]:
        """The capture table's rows of the captures written since the last call: the
        commit of the bytes written so far makes them findable (docs/design.md §7)."""
        new = self._index[self._taken :]
        self._taken = len(self._index)
        return [row_of_line(line, self.relpath) for _, line in new]

    def rollback(self, offset: int) -> None:
        """Take back every record written from ``offset`` on (none of it is committed)."""
        self.records.rewind(offset)
        while self._index and self._index[-1][0] >= offset:
            self._index.pop()
            self.captures -= 1
        self._taken = min(self._taken, len(self._index))

    def close(self, closed_at: datetime, committed_bytes: int) -> None:
        """Finish the segment: cut anything uncommitted, write the index, rename."""
        self._fh.flush()
        self._fh.truncate(committed_bytes)
        self._fh.close()
        lines = [line for offset, line in self._index if offset < committed_bytes]
        # committed by a batch that did not carry them (a writer other than a round's):
        # findable from the close on
        late = [line for offset, line in self._index[self._taken :] if offset < committed_bytes]
        _finish(self.project_dir, self.name, closed_at, lines, late)


def _finish(
    project_dir: Path,
    name: str,
    closed_at: datetime,
    lines: list[str] | None = None,
    late: list[str] | None = None,
) -> None:
    """Index and rename a segment whose WARC holds exactly its committed records."""
    final = project_dir / warc_relpath(name)
    pending = final.with_name(final.name + OPEN_SUFFIX)
    source = pending if pending.exists() else final
    reindexed = lines is None
    if lines is None:
        lines = _index_file(source, final.name)
    if not lines:
        shutil.rmtree(final.parent, ignore_errors=True)
        with store.transaction():
            store.drop_file_captures([warc_relpath(name)])
            store.delete_segment(name)
        return
    index = index_path(final)
    tmp = index.with_name(index.name + ".tmp")
    try:
        write_index(tmp, lines)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk: what was written of it frees its space
        raise
    os.replace(tmp, index)
    if source is pending:
        os.replace(pending, final)
    fsync_dir(final.parent)
    with store.transaction():
        if reindexed:  # a killed round's: its rows become its new index's, exactly
            store.drop_file_captures([warc_relpath(name)])
        if reindexed or late:
            added = lines if reindexed else late or []
            store.add_captures([row_of_line(line, warc_relpath(name)) for line in added])
        store.close_segment(name, len(lines), final.stat().st_size, closed_at)


def _index_file(source: Path, filename: str) -> list[str]:
    """CDXJ lines for the captures (responses and revisits) of a WARC file."""
    lines: list[str] = []
    try:
        for item in iter_records(source):
            rec = item.record
            if rec.record_type not in ("response", "revisit"):
                continue
            fields = {
                "mime": "warc/revisit"
                if rec.record_type == "revisit"
                else _header(rec.http_headers, "content-type") or "unk",
                "status": str(rec.http_status or "-"),
                "digest": rec.warc_headers.get("WARC-Payload-Digest", "-"),
                "length": item.length,
                "offset": item.offset,
                "filename": filename,
            }
            lines.append(cdxj_line(rec.url, _parse_warc_date(rec.date), fields))
    except Exception as exc:
        raise WarcError(f"{source} is corrupt: {exc}") from None
    return lines


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.split(";")[0].strip()
    return None


def _parse_warc_date(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)


def recover_open_segments(project_dir: Path, now: datetime, worker: str | None = None) -> list[str]:
    """Close segments left open by a killed crawl; returns their names.

    The WARC is cut at the last committed byte first, so records written after the
    store's last commit (pages it never learned about) vanish and are fetched again.
    On a shared store only those of dead workers, or ``worker``'s own (docs/design.md §12).
    """
    recovered = []
    for segment in store.recoverable_segments(worker):
        final = project_dir / segment.warc_file
        pending = final.with_name(final.name + OPEN_SUFFIX)
        if pending.exists():
            with open(pending, "r+b") as fh:
                fh.truncate(segment.committed_bytes)
                fh.flush()
                os.fsync(fh.fileno())
        elif not final.exists():
            store.delete_segment(segment.name)
            shutil.rmtree(final.parent, ignore_errors=True)
            continue
        _finish(project_dir, segment.name, now)
        recovered.append(segment.name)
    return recovered
