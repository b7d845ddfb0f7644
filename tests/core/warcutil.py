"""Helpers for the crawl-behaviour tests: reading WARCs independently of recrawl.core.archive.warc,
collecting events, and building settings and clocks.

WARC records are read with warcio directly (not through recrawl.core.archive.warc) so the tests check
what is on disk, not what our own reader makes of it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from recrawl.core.clock import Clock, parse_iso
from recrawl.core.engine import Event, LogMessage, PageFetched
from recrawl.core.store.models import FetchEvent, Page
from warcio.archiveiterator import ArchiveIterator

from tests.conftest import fast_settings

T0 = parse_iso("2027-01-01T00:00:00Z")
DAY = timedelta(days=1)


def clock_at(offset: timedelta = timedelta(0)) -> Clock:
    """A clock running from T0 + offset (it still advances in real time)."""
    return Clock(T0 + offset)


def settings(
    *,
    read_timeout: float = 0.5,
    total_timeout: float = 2.0,
    max_body_bytes: int | None = None,
    politeness: dict | None = None,
    **overrides: object,
):
    """fast_settings with short timeouts; ``politeness`` overrides PolitenessSettings fields."""
    base = fast_settings()
    fetch = replace(
        base.fetch,
        read_timeout=read_timeout,
        connect_timeout=0.5,
        total_timeout=total_timeout,
    )
    if max_body_bytes is not None:
        fetch = replace(fetch, max_body_bytes=max_body_bytes)
    pol = base.politeness
    if politeness:
        pol = replace(pol, **politeness)
    return replace(base, fetch=fetch, politeness=pol, **overrides)


class Events(list):
    """An observer that keeps every event of every batch."""

    def __call__(self, batch) -> None:
        self.extend(batch)

    def of(self, kind: type) -> list[Event]:
        return [e for e in self if isinstance(e, kind)]

    def logs(self, level: str | None = None) -> list[LogMessage]:
        return [e for e in self.of(LogMessage) if level is None or e.level == level]

    def fetched(self, url: str) -> list[PageFetched]:
        return [e for e in self.of(PageFetched) if e.url == url]


def page(url: str) -> Page:
    found = Page.get_or_none(Page.url == url)
    assert found is not None, f"no page {url}"
    return found


def events_of(url: str) -> list[FetchEvent]:
    return list(
        FetchEvent.select()
        .join(Page)
        .where(Page.url == url)
        .order_by(FetchEvent.fetched_at, FetchEvent.id)
    )


# -- WARC reading ----------------------------------------------------------------------


@dataclass
class Rec:
    path: Path
    offset: int
    length: int
    type: str
    url: str | None
    warc: dict[str, str]
    http_status: int | None
    http_headers: dict[str, str]
    payload: bytes  # as stored: content-encoding kept

    def header(self, name: str) -> str | None:
        for key, value in self.http_headers.items():
            if key.lower() == name.lower():
                return value
        return None


def warc_files(project_dir: Path) -> list[Path]:
    return sorted((project_dir / "segments").glob("*/*.warc.gz"))


def read_warc(path: Path) -> list[Rec]:
    out: list[Rec] = []
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        for record in it:
            http = record.http_headers
            status = None
            if http is not None and record.rec_type in ("response", "revisit"):
                status = int(http.get_statuscode())
            payload = record.raw_stream.read()
            it.read_to_end()
            out.append(
                Rec(
                    path=path,
                    offset=it.get_record_offset(),
                    length=it.get_record_length(),
                    type=record.rec_type,
                    url=record.rec_headers.get_header("WARC-Target-URI"),
                    warc=dict(record.rec_headers.headers),
                    http_status=status,
                    http_headers=dict(http.headers) if http is not None else {},
                    payload=payload,
                )
            )
    return out


def all_records(project_dir: Path) -> list[Rec]:
    return [rec for path in warc_files(project_dir) for rec in read_warc(path)]


def records_for(project_dir: Path, url: str, kind: str | None = None) -> list[Rec]:
    return [
        r for r in all_records(project_dir) if r.url == url and (kind is None or r.type == kind)
    ]


def record_at(path: Path, offset: int) -> Rec:
    for rec in read_warc(path):
        if rec.offset == offset:
            return rec
    raise AssertionError(f"no record starts at offset {offset} of {path}")


def warcio_check(path: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "warcio"
    return subprocess.run(
        [str(exe), "check", str(path)], capture_output=True, text=True, timeout=60
    )


def cdxj_lines(index: Path) -> Iterator[tuple[str, str, dict]]:
    for line in index.read_text(encoding="utf-8").splitlines():
        key, stamp, payload = line.split(" ", 2)
        yield key, stamp, json.loads(payload)


def as_dt(value: str) -> datetime:
    return parse_iso(value)
