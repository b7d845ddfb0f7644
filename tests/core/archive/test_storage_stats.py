"""Each WARC's figures: spans that cover the file, tallies by site, month and kind."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from recrawl.core.archive.cdxj import cdxj_line, write_index
from recrawl.core.archive.storage_stats import FileFigures, WarcFile, closed_warcs, measure
from recrawl.core.errors import RecrawlError

#: (url, capture time, offset) of the records, and the file's size: spans are known.
RECORDS = [
    ("https://a.example/1", datetime(2027, 1, 31, 23, 59, 59), 300),
    ("https://a.example/logo.png", datetime(2027, 2, 1), 1_300),
    ('https://b.example/x?q="quoted"', datetime(2027, 2, 2), 1_800),
]
SIZE = 5_000


def write_warc(folder: Path, relpath: str, records=RECORDS, size=SIZE) -> WarcFile:
    warc = folder / relpath
    warc.parent.mkdir(parents=True, exist_ok=True)
    with open(warc, "wb") as fh:
        fh.truncate(size)
    lines = [
        cdxj_line(
            url, when, {"mime": "text/html", "length": 100, "offset": offset, "filename": warc.name}
        )
        for url, when, offset in records
    ]
    write_index(warc.with_suffix("").with_suffix(".cdxj"), lines)
    (found,) = [w for w in closed_warcs(folder) if w.relpath == relpath]
    return found


def test_a_segments_captures_cover_its_file(tmp_path):
    warc = write_warc(tmp_path, "segments/20270131000000/20270131000000.warc.gz")
    figures = measure(warc, lambda urls: {u for u in urls if u.endswith(".png")})
    # the warcinfo before the first capture counts with it; the last runs to the end
    assert figures.spans == (1_300, 500, 3_200)
    assert sum(figures.spans) == SIZE == figures.size
    assert figures.offsets == (300, 1_300, 1_800)
    assert {(t.host, t.month, t.embed, t.captures, t.bytes) for t in figures.tallies} == {
        ("a.example", "2027-01", False, 1, 1_300),
        ("a.example", "2027-02", True, 1, 500),
        ("b.example", "2027-02", False, 1, 3_200),
    }
    assert (figures.earliest, figures.latest) == ("20270131235959", "20270202000000")
    assert not figures.history
    # the store's cache keeps exactly this
    assert FileFigures.from_json(figures.relpath, figures.to_json()) == figures


def test_history_is_one_kind_and_asks_the_store_nothing(tmp_path):
    warc = write_warc(tmp_path, "history/20270301000000-history.warc.gz")

    def no_store(urls):
        raise AssertionError("history needs no kinds")

    figures = measure(warc, no_store)
    assert figures.history and figures.offsets == () and figures.spans == ()
    assert sum(t.bytes for t in figures.tallies) == SIZE
    assert FileFigures.from_json(figures.relpath, figures.to_json()) == figures


def test_an_index_that_does_not_fit_its_warc_is_refused(tmp_path):
    warc = write_warc(tmp_path, "segments/20270131000000/20270131000000.warc.gz", size=1_500)
    with pytest.raises(RecrawlError, match="does not fit"):
        measure(warc, lambda urls: set())


def test_open_warcs_and_stray_files_are_not_closed_warcs(tmp_path):
    write_warc(tmp_path, "segments/20270131000000/20270131000000.warc.gz")
    (tmp_path / "segments/20270201000000").mkdir()
    (tmp_path / "segments/20270201000000/20270201000000.warc.gz.open").write_bytes(b"x" * 10)
    (tmp_path / "history").mkdir()
    (tmp_path / "history/20270101000000-history.warc.gz").write_bytes(b"x")  # no index
    assert [w.relpath for w in closed_warcs(tmp_path)] == [
        "segments/20270131000000/20270131000000.warc.gz"
    ]
