"""A page's visual history: the screenshots its browser captures kept (issue 27, point 5).

A capture's screenshot is a ``resource`` record after the capture's own records
(:mod:`.rendering`). Listing a page's screenshots reads the records' headers only, never
a PNG, and steps over the capture's own body by its index line's length: a timeline of
hundreds of captures costs their headers, and each image is read when it is shown
(:func:`read_screenshot`). The latest :data:`TIMELINE_CAPTURES`
captures are looked at, so a page fetched hourly for years lists in bounded time.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recrawl.core.archive.captures import CaptureRef, all_captures
from recrawl.core.archive.rendering import SCREENSHOT, SCREENSHOT_MIME
from recrawl.core.archive.warc import read_record
from recrawl.core.errors import MissingFile, NotFound, WarcError
from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

#: The latest captures of a page a timeline looks at.
TIMELINE_CAPTURES = 500
#: Records after a capture that may stand before its screenshot (its request, a 304's
#: head, its DOM): the bound :func:`~.rendering.rendering_at` looks within.
_LOOK_AHEAD = 4
_PREFIX = f"urn:{SCREENSHOT}:"


@dataclass(frozen=True)
class CaptureShot:
    """One capture of a page, and where its screenshot is (if it kept one)."""

    date: datetime  # naive UTC, to the second, as the indexes keep it
    path: Path
    offset: int  # the capture's record
    #: Where the screenshot's record starts in ``path``; None: the capture kept none
    #: (it was fetched over HTTP).
    screenshot_offset: int | None

    @property
    def has_screenshot(self) -> bool:
        return self.screenshot_offset is not None


@dataclass(frozen=True)
class Timeline:
    """A page's captures (the latest :data:`TIMELINE_CAPTURES`), oldest first."""

    url: str
    captures: tuple[CaptureShot, ...]
    #: Every capture of the page (more than ``captures`` holds past the bound).
    total: int
    #: Captures that could not be read (a file gone, a corrupt record), said as such.
    problems: tuple[str, ...] = ()

    @property
    def shots(self) -> tuple[CaptureShot, ...]:
        """The captures with a screenshot, oldest first."""
        return tuple(c for c in self.captures if c.has_screenshot)


def timeline(project_dir: Path, url: str, limit: int = TIMELINE_CAPTURES) -> Timeline:
    """The latest ``limit`` captures of ``url`` with where each one's screenshot is."""
    captures = all_captures(project_dir, url)
    shown: list[CaptureShot] = []
    problems: list[str] = []
    for capture in captures[-limit:] if limit > 0 else []:
        try:
            at = screenshot_offset(capture.path, capture.offset, capture.length)
        except (MissingFile, WarcError) as exc:
            problems.append(str(exc))
            at = None
        shown.append(CaptureShot(capture.date, capture.path, capture.offset, at))
    return Timeline(url, tuple(shown), len(captures), tuple(problems))


def shot_of(capture: CaptureRef) -> CaptureShot:
    """Where ``capture``'s screenshot is (a diff's two captures)."""
    at = screenshot_offset(capture.path, capture.offset, capture.length)
    return CaptureShot(capture.date, capture.path, capture.offset, at)


def screenshot_offset(path: Path, offset: int, length: int | None = None) -> int | None:
    """Where the screenshot of the capture at ``offset`` of ``path`` starts, by the rule
    of :func:`~.rendering.rendering_at`, from the records' headers alone; None: none.
    ``length``, the capture record's (its index line's), steps over the capture's body
    unread: a page of megabytes costs its headers."""
    if length is not None:
        try:
            return _screenshot_offset(path, offset, length)
        except WarcError:  # a length that is not the record's: read it through
            pass
    return _screenshot_offset(path, offset, None)


def _screenshot_offset(path: Path, offset: int, length: int | None) -> int | None:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            records = ArchiveIterator(fh)
            capture = next(records, None)
            if capture is None:
                raise WarcError(f"no WARC record in {path} at offset {offset}")
            capture_id = capture.rec_headers.get_header("WARC-Record-ID")
            if length is None:
                records.read_to_end()
                # warcio counts from the file's start (it asks the file where it is)
                length = records.get_record_offset() + records.get_record_length() - offset
            start = offset + length
            fh.seek(start)
            head = fh.read(2)
            # a record starts with a gzip member or "WARC/": anything else is a length
            # that is not the record's, which warcio may read as no record at all
            if head and head not in (b"\x1f\x8b", b"WA"):
                raise WarcError(f"no WARC record in {path} at offset {start}")
            fh.seek(start)
            records = ArchiveIterator(fh)
            for number, record in enumerate(records, start=1):
                if record.rec_type in ("response", "revisit", "warcinfo") or number > _LOOK_AHEAD:
                    return None
                if record.rec_type == "resource":
                    headers = record.rec_headers
                    if headers.get_header("WARC-Concurrent-To") != capture_id:
                        return None
                    if (headers.get_header("WARC-Target-URI") or "").startswith(_PREFIX):
                        return start
                # the next record starts where this one ends; its body skipped, not kept
                records.read_to_end()
                start = records.get_record_offset() + records.get_record_length()
    except FileNotFoundError:
        raise MissingFile(f"WARC file missing: {path}") from None
    except (ArchiveLoadFailed, OSError, zlib.error, EOFError, ValueError) as exc:
        raise WarcError(f"corrupt WARC record in {path} after offset {offset}: {exc}") from None
    return None


def read_screenshot(path: Path, offset: int) -> bytes:
    """The PNG of the screenshot record at ``offset`` of ``path``."""
    record = read_record(path, offset)
    mime = record.warc_headers.get("Content-Type", "")
    if record.record_type != "resource" or not record.url.startswith(_PREFIX):
        raise WarcError(f"no screenshot record in {path} at offset {offset}")
    if mime.split(";")[0].strip().lower() != SCREENSHOT_MIME:
        raise WarcError(f"the screenshot in {path} at offset {offset} is {mime}, not a PNG")
    return record.body


def screenshot_at(
    project_dir: Path, url: str, at: datetime | None = None
) -> tuple[datetime, bytes]:
    """The date and PNG of the latest capture of ``url`` at or before ``at`` (None: of
    its latest capture) that kept a screenshot (``recrawl show --screenshot``)."""
    captures = [c for c in all_captures(project_dir, url) if at is None or c.date <= at]
    if not captures:
        when = f" at or before {at.isoformat()}Z" if at is not None else ""
        raise NotFound(f"no capture of {url}{when}")
    for capture in reversed(captures[-TIMELINE_CAPTURES:]):  # bounded as a timeline is
        where = screenshot_offset(capture.path, capture.offset, capture.length)
        if where is not None:
            return capture.date, read_screenshot(capture.path, where)
    raise NotFound(f"no capture of {url} has a screenshot (they were fetched over HTTP)")
