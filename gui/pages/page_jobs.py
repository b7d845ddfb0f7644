"""What the Pages panel asks of the store thread: plain functions returning plain values.

Each runs inside ``context.jobs.submit`` (never on the GUI thread); the core does the
work, these only gather its answers into frozen values that may cross threads.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from recrawl.core import store
from recrawl.core.archive.captures import CaptureRef, all_captures, capture_payload
from recrawl.core.archive.page_diff import capture_of_fetch
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.archive.segments import OPEN_SUFFIX
from recrawl.core.clock import to_iso
from recrawl.core.config import VIEW
from recrawl.core.errors import NotFound
from recrawl.core.net.decoding import PayloadDecoder
from recrawl.core.policy import choices
from recrawl.core.store.models import PageKind
from recrawl.gui.common.formatting import local_time


@dataclass(frozen=True)
class PageDetail:
    url: str
    host: str
    status: str
    fetch_interval: float
    next_fetch: datetime
    #: ``metadata.fixed_interval``: the interval the user pinned, if any.
    fixed_interval: float | None
    #: store.history as tuples of recrawl.gui.pages.pages_model.HISTORY_FIELDS, oldest first
    #: (the missing embeds as a tuple of (url, reason)).
    events: tuple[tuple[Any, ...], ...]
    schedule: str
    #: The schedule's interval bounds for this page's host (min 0 = none; max None = none).
    bounds: tuple[float, float | None]
    #: ``page`` or ``embed`` (:class:`~recrawl.core.store.models.PageKind`).
    kind: str = PageKind.PAGE
    #: Where it was first found: for an embed, the page (or stylesheet) that embeds it.
    discovered_from: str | None = None


def page_detail(url: str) -> PageDetail:
    page = store.page_by_url(url)
    if page is None:
        raise NotFound(f"no page {url} in this project")
    events = tuple(
        (
            e.fetched_at,
            e.http_status,
            e.error,
            e.change,
            e.embeds,
            e.interval_before,
            e.interval_after,
            e.segment,
            e.embeds_missing_count,
            tuple((url, reason) for url, reason in e.embeds_missing or ()),
        )
        for e in store.history(page)
    )
    name, _ = choices.schedule_spec()
    low, high = choices.project_schedule().bounds(page.host)
    fixed = (page.metadata or {}).get("fixed_interval")
    return PageDetail(
        url=page.url,
        host=page.host,
        status=page.status,
        fetch_interval=page.fetch_interval,
        next_fetch=page.next_fetch,
        fixed_interval=float(fixed) if fixed is not None else None,
        events=events,
        schedule=name,
        bounds=(float(low or 0.0), float(high) if high is not None else None),
        kind=page.kind,
        discovered_from=page.discovered_from,
    )


@dataclass(frozen=True)
class Content:
    url: str
    content_type: str
    text: str
    #: Something the reader should know (an undecodable encoding, a truncated body).
    note: str | None
    #: When the capture shown was made (to the second).
    date: datetime | None = None


def _capture(project_dir: Path, url: str, fetched_at: datetime | None) -> CaptureRef:
    """The capture made by the fetch at ``fetched_at`` (None: the latest capture)."""
    captures = all_captures(project_dir, url)
    capture = captures[-1] if captures and fetched_at is None else None
    if fetched_at is not None:
        capture = capture_of_fetch(captures, fetched_at)
    if capture is None:
        when = f"at {_local(fetched_at)} " if fetched_at is not None else ""
        raise NotFound(f"the fetch of {url} {when}archived no capture")
    return capture


def _local(instant: datetime) -> str:
    return f"{local_time(instant, seconds=True)} (local time)"


def page_content(project_dir: Path, url: str, fetched_at: datetime | None = None) -> Content:
    """The payload of the capture made by the fetch at ``fetched_at`` (None: of the
    latest capture) as text (``recrawl show``); a revisit shows the payload it stands for."""
    capture = _capture(project_dir, url, fetched_at)
    record = capture_payload(project_dir, capture)
    headers = {k.lower(): v for k, v in record.http_headers}
    # decoded a piece at a time and cut at view.content_cap, as `recrawl show` does: a
    # decompression bomb costs this dialog 2 MiB, not gigabytes
    decoder = PayloadDecoder(record.body, headers.get("content-encoding"), VIEW.content_cap)
    body = b"".join(decoder)
    content_type = headers.get("content-type", "")
    charset = "utf-8"
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"'")
    try:
        text = body.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        text = body.decode("utf-8", errors="replace")
    problem = decoder.note
    if decoder.error is not None:
        problem = f"{decoder.error}; `recrawl show --raw` gives the payload as archived"
    elif decoder.cut:
        problem = f"only the first {VIEW.content_cap >> 20} MiB are shown"
    return Content(url, content_type, text, problem, capture.date)


def replay_stamp(project_dir: Path, url: str, fetched_at: datetime | None = None) -> str:
    """The 14-digit stamp of the capture made by the fetch at ``fetched_at`` (None: of
    the latest capture), to open it in the browser."""
    capture = _capture(project_dir, url, fetched_at)
    if capture.path.name.endswith(OPEN_SUFFIX):  # not indexed before its round ends
        raise NotFound(
            f"the capture of {url} at {_local(capture.date)} is in the round being "
            "crawled: it opens in the browser once that round ends"
        )
    return capture_stamp(capture.date)


def export_csv(query: store.PageQuery, path: Path) -> int:
    """Write the pages of ``query`` (filtered and sorted) to ``path``, as ``recrawl urls --csv``.

    Rows are streamed from the store, so a million pages never sit in memory; times are
    ISO 8601 UTC like the command line's, so the file reads the same anywhere.
    """
    count = 0
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(store.LISTING_COLUMNS)
        for row in store.iter_listing(query):
            writer.writerow([to_iso(v) if isinstance(v, datetime) else v for v in row])
            count += 1
    return count
