"""Segments' rows (docs/design.md §7): created open by a round, closed when renamed, and how
live each one is; and the pointers pages hold into them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from peewee import SQL
from recrawl.core.store.models import DB, Page, Segment
from recrawl.core.store.sql import chunks, is_server_store


def create_segment(
    name: str, created_at: datetime, warc_file: str, worker: str | None = None
) -> Segment:
    return Segment.create(
        name=name, created_at=created_at, warc_file=warc_file, state="open", worker=worker
    )


def committed_bytes(name: str) -> int:
    """How much of segment ``name``'s WARC the store has committed pointers into."""
    size = Segment.select(Segment.committed_bytes).where(Segment.name == name).scalar()
    return int(size or 0)


def segment_names() -> set[str]:
    return {name for (name,) in Segment.select(Segment.name).tuples().iterator()}


def segment_states() -> list[tuple[str, bool]]:
    """(name, closed) of every segment: what compaction by policy reads at each crawl's end."""
    query = Segment.select(Segment.name, Segment.state).tuples().iterator()
    return [(name, state == "closed") for name, state in query]


def open_segments() -> list[Segment]:
    return list(Segment.select().where(Segment.state == "open").order_by(Segment.name))


def close_segment(name: str, records: int, size: int, closed_at: datetime) -> None:
    Segment.update(
        state="closed", records=records, bytes=size, committed_bytes=size, closed_at=closed_at
    ).where(Segment.name == name).execute()


def delete_segment(name: str) -> None:
    Segment.delete().where(Segment.name == name).execute()


class SegmentSummary(TypedDict):
    """One segment as ``recrawl segments`` and the Segments panel show it."""

    name: str
    created_at: datetime
    records: int
    live_records: int
    liveness: float  # live_records / records, 0..1
    bytes: int
    state: str  # "open" while a round writes it, else "closed"


def segment_summaries() -> list[SegmentSummary]:
    """Per segment: records, live records (docs/design.md §7), liveness, bytes.

    A record is live when it is a page's latest capture or the response that a page's
    latest revisit refers to. Each capture belongs to one page, and a revisit refers to
    its own page's earlier response, so the two counts never overlap: counting them per
    segment over the indexed pointer columns needs no de-duplication. A segment has one
    WARC, so (segment, offset) names a record; one covering index answers the payload
    half without touching the table (a tenth of a second on a million pages).
    """
    # null-safe equality: SQLite's IS (older SQLites lack the standard's spelling)
    same = "IS NOT DISTINCT FROM" if is_server_store() else "IS"
    live_sql = SQL(
        "SELECT seg, SUM(n) FROM ("
        " SELECT segment AS seg, COUNT(*) AS n FROM page WHERE segment IS NOT NULL"
        "  GROUP BY segment"
        " UNION ALL"
        " SELECT payload_segment, COUNT(*) FROM page WHERE payload_segment IS NOT NULL"
        f"  AND NOT (payload_segment {same} segment AND payload_offset {same} capture_offset)"
        "  GROUP BY payload_segment"
        ") AS pointers GROUP BY seg"
    )
    live: dict[str, int] = dict(DB.execute_sql(live_sql.sql).fetchall())
    out: list[SegmentSummary] = []
    for seg in Segment.select().order_by(Segment.name):
        live_records = int(live.get(seg.name, 0))
        out.append(
            {
                "name": seg.name,
                "created_at": seg.created_at,
                "records": seg.records,
                "live_records": live_records,
                "liveness": (live_records / seg.records) if seg.records else 0.0,
                "bytes": seg.bytes,
                "state": seg.state,
            }
        )
    return out


@dataclass(frozen=True)
class Pointer:
    """A page's pointers into segments: its latest capture and the payload it stands for."""

    page_id: int
    segment: str | None
    offset: int | None
    payload_segment: str | None
    payload_offset: int | None


def pointers_into(segments: Sequence[str]) -> list[Pointer]:
    """Every page whose capture or payload lies in one of ``segments``."""
    out: dict[int, Pointer] = {}
    for chunk in chunks(list(segments)):
        query = Page.select(
            Page.id,
            Page.segment,
            Page.capture_offset,
            Page.payload_segment,
            Page.payload_offset,
        ).where(Page.segment.in_(chunk) | Page.payload_segment.in_(chunk))
        sql, params = query.sql()
        # thousands of rows of plain values: the driver's tuples, not peewee's iteration
        for row in DB.execute_sql(sql, params).fetchall():
            out[row[0]] = Pointer(*row)
    return list(out.values())


def live_offsets() -> dict[str, set[int]]:
    """Each segment's live records (docs/design.md §7), by offset: every page's latest
    capture and the payload it stands for (one query over the pointer columns)."""
    table = Page._meta.table_name
    columns = (Page.segment, Page.capture_offset, Page.payload_segment, Page.payload_offset)
    names = ", ".join(f'"{c.column_name}"' for c in columns)
    sql = (
        f'SELECT {names} FROM "{table}" WHERE "{Page.segment.column_name}" IS NOT NULL'
        f' OR "{Page.payload_segment.column_name}" IS NOT NULL'
    )
    live: dict[str, set[int]] = {}
    for segment, offset, payload_segment, payload_offset in DB.execute_sql(sql).fetchall():
        if segment is not None and offset is not None:
            live.setdefault(segment, set()).add(offset)
        if payload_segment is not None and payload_offset is not None:
            live.setdefault(payload_segment, set()).add(payload_offset)
    return live
