"""Reading WARCs and CDXJ indexes independently of recrawl.core.archive.warc.

Records are read with warcio directly (not through our own reader), so the tests check
what is on disk, not what our reader makes of it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recrawl.core.clock import parse_iso
from warcio.archiveiterator import ArchiveIterator


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


def warcio_check(*paths: Path) -> subprocess.CompletedProcess:
    """``warcio check`` of every file in one process (its exit status is 1 if any file
    fails; its output names each failing file): one start of warcio, not one per file."""
    exe = Path(sys.executable).parent / "warcio"
    return subprocess.run(
        [str(exe), "check", *map(str, paths)], capture_output=True, text=True, timeout=300
    )


def cdxj_lines(index: Path) -> Iterator[tuple[str, str, dict]]:
    for line in index.read_text(encoding="utf-8").splitlines():
        key, stamp, payload = line.split(" ", 2)
        yield key, stamp, json.loads(payload)


def as_dt(value: str) -> datetime:
    return parse_iso(value)
