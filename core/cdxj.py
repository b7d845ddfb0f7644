"""CDXJ index lines: ``<SURT> <14-digit timestamp> <JSON>``, sorted bytewise."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


def surt(url: str) -> str:
    """Sort-friendly URL key: ``com,example)/path?query`` (host reversed, no scheme, no www)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").strip(".")
    labels = host.split(".")
    if labels and labels[0] == "www":
        labels = labels[1:]
    key = ",".join(reversed(labels))
    if parts.port and parts.port not in (80, 443):
        key += f":{parts.port}"
    path = parts.path or "/"
    key += ")" + path.lower()
    if parts.query:
        key += "?" + parts.query.lower()
    return key


def cdxj_line(url: str, date: datetime, fields: dict[str, Any]) -> str:
    return _line(surt(url), date.strftime("%Y%m%d%H%M%S"), {"url": url, **fields})


def _line(key: str, stamp: str, fields: dict[str, Any]) -> str:
    return f"{key} {stamp} {json.dumps(fields, separators=(', ', ': '), ensure_ascii=False)}"


@dataclass(frozen=True)
class IndexEntry:
    """One parsed CDXJ line: a capture, where its record sits, and the line as stored."""

    line: str
    url: str
    stamp: str  # 14 digits
    offset: int
    length: int
    mime: str
    digest: str

    @property
    def is_revisit(self) -> bool:
        return self.mime == "warc/revisit"


def parse_line(line: str) -> IndexEntry:
    _, stamp, payload = line.rstrip("\n").split(" ", 2)
    fields = json.loads(payload)
    return IndexEntry(
        line=line.rstrip("\n"),
        url=fields["url"],
        stamp=stamp,
        offset=int(fields["offset"]),
        length=int(fields["length"]),
        mime=str(fields.get("mime", "")),
        digest=str(fields.get("digest", "")),
    )


def read_index(path: Path) -> list[IndexEntry]:
    with open(path, encoding="utf-8") as fh:
        return [parse_line(line) for line in fh if line.strip()]


def relocated(entry: IndexEntry, offset: int, filename: str) -> str:
    """The entry's line for the same record copied to ``offset`` of ``filename``."""
    key, stamp, payload = entry.line.split(" ", 2)
    fields = json.loads(payload)
    fields["offset"] = offset
    fields["filename"] = filename
    return _line(key, stamp, fields)


def write_index(path: Path, lines: list[str]) -> None:
    """Write sorted lines to ``path`` and make them durable (the caller renames)."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in sorted(lines)))
        fh.flush()
        os.fsync(fh.fileno())
