"""What an export is asked for, what it reports as it goes, and what it did."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from recrawl.core.errors import RecrawlError

WACZ_VERSION = "1.1.1"
LATEST, ALL = "latest", "all"
PAGE_CHOICES = (LATEST, ALL)
HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Lines per compressed block of ``index.cdx.gz`` (py-wacz's choice, ArchiveWeb.page's).
INDEX_BLOCK_LINES = 1024
#: Pages whose texts are read at a time for pages.jsonl.
PAGE_BATCH = 200
#: Bytes read and written at a time while copying records.
CHUNK = 1 << 20
#: How often the snapshot is taken again when compactions keep moving records.
ATTEMPTS = 8
PART_SUFFIX = ".part"


class ExportStopped(RecrawlError):
    """Asked to stop: the partial file is gone, and an existing OUT is untouched."""

    def __init__(self) -> None:
        super().__init__("the export stopped; no file was written")


@dataclass(frozen=True)
class ExportOptions:
    #: Only captures of pages on this host (as the Sites list names hosts; with a port,
    #: only that port's; a URL names its host and port).
    site: str | None = None
    #: Only captures at or after this instant (naive UTC).
    since: datetime | None = None
    #: ``latest``: each page's latest capture; ``all``: every capture.
    pages: str = LATEST
    #: The package's title (default: the project folder's name).
    title: str | None = None


@dataclass(frozen=True)
class ExportProgress:
    """Bytes of WARC records copied of those planned, and captures copied of those planned."""

    done: int
    total: int
    captures_done: int
    captures_total: int


@dataclass(frozen=True)
class ExportSummary:
    path: Path
    #: The package's size in bytes.
    bytes: int
    #: Captures in the package: those chosen, and the responses their revisits need.
    captures: int
    chosen: int
    #: Responses added because a chosen revisit refers to them.
    revisit_targets: int
    #: Revisits whose response is nowhere in the project (they will not replay).
    unresolved_revisits: int
    #: Entries of pages/pages.jsonl (the chosen HTML captures).
    pages: int
    warcs: int
    #: Bytes of WARC records copied.
    warc_bytes: int
    #: Segments still being written by a round (no index yet): left out.
    open_segments: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "bytes": self.bytes,
            "captures": self.captures,
            "chosen": self.chosen,
            "revisit_targets": self.revisit_targets,
            "unresolved_revisits": self.unresolved_revisits,
            "pages": self.pages,
            "warcs": self.warcs,
            "warc_bytes": self.warc_bytes,
            "open_segments": self.open_segments,
            "elapsed_s": round(self.elapsed_s, 3),
        }


Progress = Callable[[ExportProgress], None]


def never() -> bool:
    return False


def quiet(_: ExportProgress) -> None:
    pass
