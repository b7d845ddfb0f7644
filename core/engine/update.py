"""The update stage: what one fetch outcome does to a page record (docs/design.md §2–§5).

Pure functions from the page as it was, the fetch outcome and the schedule to the new
column values and the fetch-event row; the engine applies them in batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from recrawl.core.net.fetch import FetchResult
from recrawl.core.net.http import parse_http_date
from recrawl.core.policy.schedule import Change, FetchSchedule, ScheduleInput
from recrawl.core.store.models import Page, PageStatus


class Outcome(Enum):
    OK = "ok"
    NOT_MODIFIED = "not-modified"
    REDIRECT_PERM = "redirect-perm"
    REDIRECT_TEMP = "redirect-temp"
    GONE = "gone"
    THROTTLED = "throttled"  # 429/503: back off the host, maybe retry in this round
    FAILED = "failed"  # network error, 5xx: try again another day
    ROBOTS_DENIED = "robots-denied"


def classify(result: FetchResult) -> Outcome:
    status = result.status
    if result.error is not None or status is None:
        return Outcome.FAILED
    if status == 304:
        return Outcome.NOT_MODIFIED
    if status in (301, 308) and result.header("location"):
        return Outcome.REDIRECT_PERM
    if status in (302, 303, 307) and result.header("location"):
        return Outcome.REDIRECT_TEMP
    if status in (429, 503):
        return Outcome.THROTTLED
    if status >= 500:
        return Outcome.FAILED
    if status >= 400:
        return Outcome.GONE
    return Outcome.OK


@dataclass(frozen=True)
class Capture:
    """Where the fetch's capture landed, and the payload record it stands for."""

    segment: str
    file: str
    offset: int
    length: int
    payload_offset: int
    payload_length: int
    payload_file: str
    payload_segment: str
    payload_record_id: str
    payload_date: datetime
    payload_digest: str

    @property
    def refers_back(self) -> bool:
        """A revisit: its payload is the page's stored one, whose pointer the page keeps
        as the store has it (a compaction may have moved that record since the round
        read the page: docs/design.md §12)."""
        return (self.payload_segment, self.payload_offset) != (self.segment, self.offset)


def never_fetched(page: Page) -> bool:
    """No fetch of ``page`` has succeeded yet (the first 2xx sets ``content_changed_at``):
    its next 2xx is its first, the one its publication date is read from (docs/design.md §11:
    the date a page states does not move, and reading it costs a third of a parse)."""
    return page.content_changed_at is None


def schedule_input(page: Page, now: datetime, new_links: int | None = None) -> ScheduleInput:
    return ScheduleInput(
        url=page.url,
        host=page.host,
        interval=page.fetch_interval,
        fetched_at=now,
        last_fetched=page.last_fetched,
        content_changed_at=page.content_changed_at,
        prev_content_changed_at=page.prev_content_changed_at,
        score=page.score,
        metadata=page.metadata or {},
        new_links=new_links,
    )


@dataclass
class PageUpdate:
    fields: dict[str, Any]
    event: dict[str, Any]
    status: str


def update_page(
    page: Page,
    outcome: Outcome,
    result: FetchResult | None,
    now: datetime,
    schedule: FetchSchedule,
    *,
    change: Change = Change.UNKNOWN,
    capture: Capture | None = None,
    signature: tuple[bytes, str] | None = None,
    segment: str | None = None,
    max_retries: int = 3,
    note: str | None = None,
    new_links: int | None = None,
) -> PageUpdate:
    before = page.fetch_interval
    sched = schedule_input(page, now, new_links)
    fields: dict[str, Any] = {}

    if outcome in (Outcome.FAILED, Outcome.THROTTLED):
        retries = page.retries + 1
        if retries >= max_retries:
            status = PageStatus.GONE
            decision = schedule.after_gone(sched)
        else:
            status = PageStatus.RETRY
            decision = schedule.after_retry(sched)
        fields["retries"] = retries
    elif outcome is Outcome.ROBOTS_DENIED:
        status = PageStatus.ROBOTS_DENIED
        decision = schedule.after_fetch(sched, Change.UNKNOWN)
    elif outcome is Outcome.GONE:
        status = PageStatus.GONE
        decision = schedule.after_gone(sched)
        fields["retries"] = 0
    else:
        status = {
            Outcome.OK: PageStatus.FETCHED,
            Outcome.NOT_MODIFIED: PageStatus.NOTMODIFIED,
            Outcome.REDIRECT_PERM: PageStatus.REDIRECT_PERM,
            Outcome.REDIRECT_TEMP: PageStatus.REDIRECT_TEMP,
        }[outcome]
        decision = schedule.after_fetch(sched, change)
        fields["retries"] = 0
        first_capture = page.content_changed_at is None and outcome is Outcome.OK
        if change is Change.CHANGED or first_capture:
            fields["prev_content_changed_at"] = page.content_changed_at
            fields["content_changed_at"] = now
    interval = decision.interval
    next_fetch = max(decision.next_fetch, now)  # never in the past (NUTCH-1564)
    if decision.metadata:
        fields["metadata"] = {**(page.metadata or {}), **decision.metadata}
    if decision.change_rate is not None:
        fields["change_rate"] = decision.change_rate
    if decision.link_rate is not None:
        fields["link_rate"] = decision.link_rate

    fields.update(status=status, fetch_interval=interval, next_fetch=next_fetch)
    if outcome is not Outcome.ROBOTS_DENIED:
        fields["last_fetched"] = now
        if page.first_fetched is None:
            fields["first_fetched"] = now
    if result is not None and result.response is not None and outcome is not Outcome.FAILED:
        etag = result.header("etag")
        last_modified = result.header("last-modified")
        if outcome in (Outcome.OK, Outcome.NOT_MODIFIED):
            if etag or outcome is Outcome.OK:
                fields["etag"] = etag
            if last_modified or outcome is Outcome.OK:
                fields["server_last_modified"] = parse_http_date(last_modified)
        elif capture is not None:
            # A 404 or redirect is now the latest payload: validators of an older 200
            # would let a 304 make a revisit point at that error page.
            fields["etag"] = None
            fields["server_last_modified"] = None
        if outcome is not Outcome.NOT_MODIFIED:
            fields["content_type"] = result.header("content-type")
    if signature is not None:
        fields["signature"], fields["signature_kind"] = signature
    if capture is not None:
        fields.update(
            segment=capture.segment,
            capture_file=capture.file,
            capture_offset=capture.offset,
            capture_length=capture.length,
        )
    if capture is not None and not capture.refers_back:
        fields.update(
            payload_segment=capture.payload_segment,
            payload_file=capture.payload_file,
            payload_offset=capture.payload_offset,
            payload_length=capture.payload_length,
            payload_record_id=capture.payload_record_id,
            payload_date=capture.payload_date,
            payload_digest=capture.payload_digest,
        )

    error = note
    if result is not None and result.error:
        error = result.error
    elif outcome in (Outcome.FAILED, Outcome.THROTTLED) and result is not None and result.status:
        error = f"HTTP {result.status}"  # a 429/503 given up on is a failure with a reason
    event = {
        "page": page.id,
        "fetched_at": now,
        "http_status": result.status if result is not None else None,
        "change": change.value,
        "interval_before": before,
        "interval_after": interval,
        "segment": segment if capture is not None else None,
        "bytes": len(result.response.body) if result is not None and result.response else 0,
        "elapsed_ms": round(result.elapsed_ms, 2) if result is not None else None,
        "error": error,
        # what the capture embeds, set by the recorder when it differs from the last's
        "embed_refs": None,
    }
    return PageUpdate(fields, event, status)
