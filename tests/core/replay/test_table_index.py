"""pywb's index over the capture table (docs/design.md §13): the lines the CDXJ files give,
for every range pywb asks (exact, prefix, host, domain), and the server answering from it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.archive.captures import find_captures
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.archive.segments import index_files
from recrawl.core.project import Project
from recrawl.core.replay.table_index import TableLookup
from recrawl.core.store.captures import COMPLETE, STALE

from tests.support.histories import T0, archive_round
from tests.support.replayserver import fetch

pywb = pytest.importorskip("pywb")
from pywb.utils.binsearch import iter_range  # noqa: E402
from pywb.utils.canonicalize import calc_search_range  # noqa: E402

# keys that sort next to one another: a path, its children, a longer sibling, queries,
# another host of the domain, a host that shares the domain's first letters
ROUNDS = [
    {
        "http://example.org/a": "a0",
        "http://example.org/a/b": "ab0",
        "http://example.org/ab": "ab",
        "http://example.org/a?x=1": "ax",
        "http://www.example.org/": "root",
        "http://sub.example.org/a": "sub",
        "http://example.organic.test/a": "other",
    },
    {
        "http://example.org/a": "a1",
        "http://example.org/a/b": "ab1",
        "http://example.org/%C3%A9": "e",
    },
    {"http://example.org/a": "a2", "http://sub.example.org/a": "sub2"},
]


@pytest.fixture
def project(tmp_path) -> Iterator[Project]:
    project = Project.init(tmp_path / "proj")
    for r, pages in enumerate(ROUNDS):
        archive_round(project.path, pages, T0.replace(month=r + 1))
    yield project
    project.close()


def _file_lines(project_dir: Path, start: bytes, end: bytes) -> list[bytes]:
    lines = []
    for index in index_files(project_dir):
        with open(index, "rb") as fh:
            lines += [line.rstrip(b"\n") for line in iter_range(fh, start, end)]
    return sorted(lines)


def test_the_table_gives_every_range_the_lines_the_index_files_give(project):
    urls = sorted({url for pages in ROUNDS for url in pages})
    lookup = TableLookup(project.layout.store_file)
    try:
        assert lookup.ready()
        asked = 0
        for url, match in itertools.product(urls, ("exact", "prefix", "host", "domain")):
            start, end = (k.encode() for k in calc_search_range(url, match))
            lines = [line for line, _ in lookup.lines(start, end)]
            assert lines == _file_lines(project.path, start, end), (url, match)
            asked += bool(lines)
        assert asked == len(urls) * 4  # every range found something
        # each line names the index beside its WARC, which the server's resolver reads
        (line, index), *_ = lookup.lines(b"org,example)/a", b"org,example)/a!")
        assert (project.path / index).is_file() and line.endswith(b'.warc.gz"}')
        store.mark_captures(STALE)
        assert not lookup.ready()
        store.mark_captures(COMPLETE)
    finally:
        lookup.close()


@pytest.mark.slow
def test_the_server_answers_from_the_table_and_from_the_folders_until_it_is_built(project):
    from recrawl.core.replay.server import ReplayServer

    url = "http://example.org/a"
    captures = find_captures(project.path, url)
    assert len(captures) == 3
    # the index files moved away: only the table can find the captures
    hidden = {index: index.with_name(index.name + ".hidden") for index in index_files(project.path)}
    for index, away in hidden.items():
        index.rename(away)
    replay = ReplayServer(project.path)
    try:
        for capture, body in zip(captures, (b"a0", b"a1", b"a2"), strict=True):
            answer = fetch(replay.url(capture_stamp(capture.date), url, raw=True))
            assert answer.status == 200 and body in answer.body
        # the closest capture to a moment between two: pywb's choice, as from the files
        between = fetch(replay.url("20270205", url, raw=True))
        assert between.status == 200 and b"a1" in between.body
        # a table not built: the folders answer (here: none, they are hidden)
        store.mark_captures(STALE)
        assert fetch(replay.url(capture_stamp(captures[0].date), url, raw=True)).status == 404
        for index, away in hidden.items():
            away.rename(index)
        answer = fetch(replay.url(capture_stamp(captures[0].date), url, raw=True))
        assert answer.status == 200 and b"a0" in answer.body
    finally:
        replay.stop()
        store.mark_captures(COMPLETE)
