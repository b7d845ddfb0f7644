"""The capture table checked against the indexes it is derived from (docs/design.md §7)."""

from __future__ import annotations

from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.capture_table import rows_of_index
from recrawl.core.archive.captures import captures_of, find_captures, scan_indexes
from recrawl.core.archive.segments import index_files
from recrawl.core.store.captures import COLUMNS
from recrawl.core.store.models import Capture


def table_rows() -> list[tuple[object, ...]]:
    fields = [getattr(Capture, name) for name in COLUMNS]
    return sorted(tuple(row) for row in Capture.select(*fields).tuples())


def check_table_matches_indexes(proj: Path, lookups: bool = True) -> None:
    """The table lists what the indexes list, row for line, and (``lookups``) every
    lookup through it finds what reading each line of each index finds (the project
    open, its rounds closed)."""
    assert store.captures_ready()
    indexed = sorted(
        tuple(row)
        for index in index_files(proj)
        for row in rows_of_index(proj, index, standard_keys=True)
    )
    assert table_rows() == indexed
    if not lookups:
        return
    urls = sorted({str(row[0]) for row in indexed})
    scanned = {url: scan_indexes(proj, [url]).get(url, []) for url in urls}
    assert captures_of(proj, urls) == scanned
    for url in urls:
        assert find_captures(proj, url) == scanned[url]
    assert find_captures(proj, "http://nowhere.invalid/") == []
