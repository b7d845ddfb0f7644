"""The project's WARCs replayed through ``recrawl replay`` (pywb), one page per record type.

pywb's raw mode (``id_``) answers with the archived response as the server sent it, so
each capture's replayed status and body are compared with what the test server sent: a
first capture, a 304 (server-not-modified) revisit, an identical-payload revisit, the old
and the new capture of a changed page, each where a crawl wrote it, in a compacted
segment, or moved into ``history/``. The page at each capture's rewritten URL (what the
browser shows) answers too, with that capture's text.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from recrawl.core.archive.captures import CaptureRef, find_captures
from recrawl.core.archive.compaction import compact
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.archive.segments import index_path
from recrawl.core.archive.warc import SERVER_NOT_MODIFIED
from recrawl.core.engine import inject
from recrawl.core.project import Project
from recrawl.core.replay.server import ReplayServer
from recrawl.core.store.models import Segment

from tests.support import httpserver
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.httpserver import Reply
from tests.support.replayserver import Replayed, fetch, shown
from tests.support.warcs import read_warc, record_at, warcio_check

pytestmark = pytest.mark.slow

HOME = b'<html><body><a href="/static">s</a> <a href="/cond">c</a> <a href="/changing">x</a></body></html>'
STATIC = b"<html><body><p>This page never changes.</p></body></html>"
COND = gzip.compress(b"<html><body><p>Served with an ETag.</p></body></html>", mtime=0)
VERSIONS = [
    f"<html><body><p>Version {n} of a changing page.</p></body></html>".encode() for n in (1, 2, 3)
]
FRESH = b"<html><body><p>First seen in the second crawl.</p></body></html>"
LATE = b"<html><body><p>First seen in the third crawl.</p></body></html>"
#: The text each page shows in a browser (a replayed page's links are rewritten).
TEXTS = {
    HOME: ">x</a></body>",
    STATIC: "This page never changes.",
    COND: "Served with an ETag.",
    **{v: f"Version {n} of a changing page." for n, v in enumerate(VERSIONS, 1)},
    FRESH: "First seen in the second crawl.",
    LATE: "First seen in the third crawl.",
}


@dataclass
class Archive:
    project: Path
    server: httpserver.TestServer
    compacted: str  # the compacted segment's name
    history: str  # the history file's name

    def captures(self, path: str) -> list[CaptureRef]:
        return find_captures(self.project, self.server.url(path))

    def where(self, capture: CaptureRef) -> str:
        """``crawl``, ``compacted`` or ``history``: where the capture's record sits."""
        if capture.path.parent.name == "history":
            assert capture.path.name == self.history
            return "history"
        return "compacted" if capture.path.parent.name == self.compacted else "crawl"


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Iterator[Archive]:
    """Three crawls a month apart, then the first two crawls' segments compacted.

    The first crawl's responses are what later revisits refer to (kept, in the compacted
    segment); the second crawl's revisits and the first version of the changing page are
    superseded (moved to history); the third crawl's records stay where it wrote them.
    """
    server = httpserver.TestServer().start()
    server.routes["/"] = Reply(200, HOME, {"Content-Type": "text/html"})
    server.routes["/static"] = Reply(200, STATIC, {"Content-Type": "text/html"})
    server.routes["/cond"] = httpserver.gzip_with_etag(COND)
    server.routes["/fresh"] = Reply(200, FRESH, {"Content-Type": "text/html"})
    server.routes["/late"] = Reply(200, LATE, {"Content-Type": "text/html"})
    project = Project.init(tmp_path_factory.mktemp("replay") / "proj")
    try:
        inject([server.url("/")], T0)
        for n, body in enumerate(VERSIONS):
            server.routes["/changing"] = Reply(200, body, {"Content-Type": "text/html"})
            if n:
                inject([server.url(("/fresh", "/late")[n - 1])], T0 + n * 31 * DAY)
            if n == 2:
                first_two = sorted(s.name for s in Segment.select())
            crawl(project, clock=clock_at(n * 31 * DAY))
        summary = compact(project, names=first_two)
        assert summary.new_segment and summary.history_file
        yield Archive(project.path, server, summary.new_segment, Path(summary.history_file).name)
    finally:
        project.close()
        server.stop()


@pytest.fixture(scope="module")
def pywb(archive) -> Iterator[ReplayServer]:
    """The product's replay server over the project, started as the app starts it."""
    server = ReplayServer(archive.project)
    yield server
    server.stop()


def stamp(capture: CaptureRef) -> str:
    return capture_stamp(capture.date)


def raw(pywb: ReplayServer, stamp: str, url: str) -> Replayed:
    return fetch(pywb.url(stamp, url, raw=True))


def replayed(pywb: ReplayServer, archive: Archive, path: str, capture: CaptureRef) -> bytes:
    """The body pywb replays for ``capture`` of ``path``, checked to be that capture, and
    its rewritten page (as a browser opens it) checked to show that capture's text."""
    answer = raw(pywb, stamp(capture), archive.server.url(path))
    assert answer.status == 200, (path, capture, answer)
    memento = answer.header("Memento-Datetime")
    assert memento == capture.date.strftime("%a, %d %b %Y %H:%M:%S GMT")
    page = shown(pywb, stamp(capture), archive.server.url(path))
    assert page.status == 200, (path, capture, page)
    assert page.header("Memento-Datetime") == memento
    assert TEXTS[answer.body] in page.body.decode("utf-8")
    return answer.body


def kinds(archive: Archive, path: str) -> list[tuple[str, str]]:
    """Each capture of ``path``, oldest first: (response or revisit, where it sits)."""
    return [
        ("revisit" if c.mime == "warc/revisit" else "response", archive.where(c))
        for c in archive.captures(path)
    ]


def test_first_captures(pywb, archive):
    (first, _, _) = archive.captures("/static")
    assert archive.where(first) == "compacted"
    assert replayed(pywb, archive, "/static", first) == STATIC
    (late,) = archive.captures("/late")
    assert archive.where(late) == "crawl"
    assert replayed(pywb, archive, "/late", late) == LATE


def test_identical_payload_revisits(pywb, archive):
    assert kinds(archive, "/static") == [
        ("response", "compacted"),
        ("revisit", "history"),
        ("revisit", "crawl"),
    ]
    for capture in archive.captures("/static")[1:]:
        assert replayed(pywb, archive, "/static", capture) == STATIC
    # a revisit of a first capture that was itself written in the second crawl
    assert kinds(archive, "/fresh") == [("response", "compacted"), ("revisit", "crawl")]
    for capture in archive.captures("/fresh"):
        assert replayed(pywb, archive, "/fresh", capture) == FRESH


def test_server_not_modified_revisits_replay_the_archived_payload(pywb, archive):
    assert kinds(archive, "/cond") == [
        ("response", "compacted"),
        ("revisit", "history"),
        ("revisit", "crawl"),
    ]
    for capture in archive.captures("/cond")[1:]:
        answer = raw(pywb, stamp(capture), archive.server.url("/cond"))
        assert answer.status == 200, answer  # not the 304 the revisit was written for
        assert answer.body == COND  # content-encoded, as the server sent it
        assert answer.header("Content-Encoding") == "gzip"
        # the archived response's headers (pywb renames those a browser would act on)
        assert answer.header("X-Archive-Orig-ETag") == '"v1"'
        assert replayed(pywb, archive, "/cond", capture) == COND
        # the 304's own head travels with its revisit, into history too
        revisit = record_at(capture.path, capture.offset)
        assert revisit.warc["WARC-Profile"] == SERVER_NOT_MODIFIED
        (head,) = [
            r
            for r in read_warc(capture.path)
            if r.warc.get("WARC-Concurrent-To") == revisit.warc["WARC-Record-ID"]
            and r.type == "metadata"
        ]
        assert head.payload.startswith(b"http-status-line: HTTP/1.1 304 Not Modified\r\n")
        assert b'http-header: ETag: "v1"\r\n' in head.payload


def test_the_old_and_new_captures_of_a_changed_page(pywb, archive):
    # the first two versions are superseded: both moved to history
    assert kinds(archive, "/changing") == [
        ("response", "history"),
        ("response", "history"),
        ("response", "crawl"),
    ]
    for capture, body in zip(archive.captures("/changing"), VERSIONS, strict=True):
        assert replayed(pywb, archive, "/changing", capture) == body


def test_the_home_page_at_every_date(pywb, archive):
    captures = archive.captures("/")
    assert [c.mime == "warc/revisit" for c in captures] == [False, True, True]
    for capture in captures:
        assert replayed(pywb, archive, "/", capture) == HOME


def test_pywbs_own_indexer_agrees_with_our_indexes(archive):
    """pywb's indexer (``cdx-indexer``, what ``wb-manager`` runs) over every WARC, record
    types of all kinds, lists the same captures where ours does, field for field."""
    warcs = sorted(archive.project.glob("segments/*/*.warc.gz")) + sorted(
        archive.project.glob("history/*.warc.gz")
    )
    assert len(warcs) >= 3 and any(w.parent.name == "history" for w in warcs)
    exe = Path(sys.executable).parent / "cdx-indexer"
    for warc in warcs:
        result = subprocess.run(
            [str(exe), "-j", "-s", str(warc)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        theirs = [_fields(line, strip_digest=True) for line in result.stdout.splitlines()]
        lines = index_path(warc).read_text(encoding="utf-8").splitlines()
        assert lines == sorted(lines)
        ours = [_fields(line) for line in lines]
        assert theirs == ours, warc
        assert len(ours) == sum(1 for r in read_warc(warc) if r.type in ("response", "revisit"))


def _fields(line: str, strip_digest: bool = False) -> tuple:
    key, stamp, payload = line.split(" ", 2)
    fields = json.loads(payload)
    digest = fields["digest"]
    if strip_digest:  # pywb's indexer writes sha1 digests without their label
        digest = "sha1:" + digest
    # pywb's indexer gives revisits no status by convention; responses agree on theirs
    status = fields.get("status") if fields["mime"] != "warc/revisit" else None
    offset, length = int(fields["offset"]), int(fields["length"])
    return (
        key,
        stamp,
        fields["url"],
        fields["mime"],
        status,
        digest,
        offset,
        length,
        fields["filename"],
    )


def test_every_warc_passes_warcio_check_and_index(archive):
    warcs = sorted(archive.project.glob("segments/*/*.warc.gz")) + sorted(
        archive.project.glob("history/*.warc.gz")
    )
    checked = warcio_check(*warcs)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    exe = Path(sys.executable).parent / "warcio"
    for warc in warcs:
        result = subprocess.run(
            [str(exe), "index", str(warc)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.count("\n") == len(read_warc(warc))
