"""A browser capture's rendering: its DOM after the scripts ran, and a screenshot.

Both are WARC ``resource`` records written right after the capture's own records
(``urn:dom:URL``, ``text/html``; ``urn:screenshot:URL``, ``image/png``, as Browsertrix
names its screenshots), each ``WARC-Concurrent-To`` the capture's response or revisit.
They are not in the segment's index: a capture's bytes run to the next indexed record,
so compaction and export copy them with it, and they are found from the capture
itself (:func:`rendering_at`). A capture without them was fetched over HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from recrawl.core.archive.warc import StoredRecord, iter_records_from
from recrawl.core.errors import WarcError

DOM = "dom"
SCREENSHOT = "screenshot"
DOM_MIME = "text/html; charset=utf-8"
SCREENSHOT_MIME = "image/png"
#: Records after a capture that may stand between it and its rendering (its request,
#: a 304's head): past these, none is looked for.
_LOOK_AHEAD = 4


@dataclass(frozen=True)
class Rendered:
    """What the browser kept of one capture (each None when it kept none)."""

    dom: bytes | None
    screenshot: bytes | None


def rendering_at(path: Path, offset: int) -> Rendered:
    """The rendering kept beside the capture record at ``offset`` of ``path``; both None
    for an HTTP capture. Raises what :func:`~.warc.read_record` raises."""
    return _read(path, offset)[1]


def capture_at(path: Path, offset: int) -> tuple[StoredRecord, Rendered]:
    """The capture record at ``offset`` of ``path`` and its rendering, read at once (a
    reader that needs both: the change preview)."""
    capture, rendered = _read(path, offset)
    if capture is None:
        raise WarcError(f"no WARC record in {path} at offset {offset}")
    return capture, rendered


def _read(path: Path, offset: int) -> tuple[StoredRecord | None, Rendered]:
    dom = screenshot = None
    capture: StoredRecord | None = None
    capture_id = None
    for number, item in enumerate(iter_records_from(path, offset)):
        record = item.record
        if number == 0:
            capture, capture_id = record, record.record_id
            continue
        if record.record_type in ("response", "revisit", "warcinfo") or number > _LOOK_AHEAD:
            break
        if record.record_type != "resource":
            continue
        if record.warc_headers.get("WARC-Concurrent-To") != capture_id:
            break
        if record.url.startswith(f"urn:{DOM}:"):
            dom = record.body
        elif record.url.startswith(f"urn:{SCREENSHOT}:"):
            screenshot = record.body
    return capture, Rendered(dom, screenshot)
