"""WACZ export of a project built by real crawls (docs/design.md §13), checked by the standard
tools: ``wacz validate``, cdxj-indexer over the exported WARCs, and pywb replaying a page
out of the package (``wb-manager add --unpack-wacz``).

The project: three crawls a month apart over two hosts (127.0.0.1 and localhost, one
server), then the first two crawls' segments compacted: first captures, 304 revisits,
identical-payload revisits, a changed page, a compacted segment and ``history/``.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from recrawl.core.archive.captures import find_captures
from recrawl.core.archive.compaction import compact
from recrawl.core.archive.segments import index_files
from recrawl.core.archive.wacz import (
    ALL,
    ExportOptions,
    ExportProgress,
    ExportStopped,
    export_wacz,
)
from recrawl.core.engine import inject
from recrawl.core.errors import InvalidArgument, MissingFile, NotFound
from recrawl.core.layout import STORE_FILE
from recrawl.core.project import Project
from recrawl.core.store.models import Segment
from warcio.archiveiterator import ArchiveIterator

from tests.support import httpserver
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.httpserver import Reply
from tests.support.replayserver import Replay

pytestmark = pytest.mark.slow

HOME = b'<html><head><title>Home</title></head><body><a href="/static">s</a> <a href="/cond">c</a> <a href="/changing">x</a></body></html>'
STATIC = b"<html><body><p>This page never changes.</p></body></html>"
COND = gzip.compress(b"<html><body><p>Served with an ETag.</p></body></html>", mtime=0)
VERSIONS = [
    f"<html><head><title>Version {n}</title></head><body><p>Version {n}.</p></body></html>".encode()
    for n in (1, 2, 3)
]
OTHER = b"<html><head><title>Elsewhere</title></head><body><p>Another host.</p></body></html>"
PLAIN = b"Not a page: plain text."
BIN = Path(sys.executable).parent


@dataclass
class Built:
    project: Path
    server: httpserver.TestServer

    def url(self, path: str) -> str:
        return self.server.url(path)

    def other(self, path: str = "/") -> str:
        return f"http://localhost:{self.server.port}{path}"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[Built]:
    server = httpserver.TestServer().start()
    server.routes["/"] = Reply(200, HOME, {"Content-Type": "text/html"})
    server.routes["/static"] = Reply(200, STATIC, {"Content-Type": "text/html"})
    server.routes["/cond"] = httpserver.gzip_with_etag(COND)
    server.routes["/plain"] = Reply(200, PLAIN, {"Content-Type": "text/plain"})
    server.routes["/elsewhere"] = Reply(200, OTHER, {"Content-Type": "text/html"})
    project = Project.init(tmp_path_factory.mktemp("wacz") / "proj")
    try:
        other = f"http://localhost:{server.port}/elsewhere"
        inject([server.url("/"), server.url("/plain"), other], T0)
        for n, body in enumerate(VERSIONS):
            server.routes["/changing"] = Reply(200, body, {"Content-Type": "text/html"})
            if n == 2:
                first_two = sorted(s.name for s in Segment.select())
            crawl(project, clock=clock_at(n * 31 * DAY))
        summary = compact(project, names=first_two)
        assert summary.new_segment and summary.history_file
        yield Built(project.path, server)
    finally:
        project.close()
        server.stop()


def export(built: Built, out: Path, **options) -> tuple[Path, list[ExportProgress]]:
    seen: list[ExportProgress] = []
    export_wacz(built.project, out, ExportOptions(**options), progress=seen.append)
    return out, seen


@pytest.fixture(scope="module")
def everything(built, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out") / "all.wacz"
    export(built, out, pages=ALL)
    return out


@pytest.fixture(scope="module")
def latest(built, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out") / "latest.wacz"
    export(built, out)
    return out


# -- reading a package ---------------------------------------------------------------------


@dataclass
class Record:
    warc: str
    offset: int
    length: int
    type: str
    id: str
    url: str
    headers: dict[str, str]
    raw: bytes


def records(data: bytes, name: str) -> list[Record]:
    out = []
    it = ArchiveIterator(io.BytesIO(data))
    for record in it:
        it.read_to_end()
        offset, length = it.get_record_offset(), it.get_record_length()
        headers = dict(record.rec_headers.headers)
        out.append(
            Record(
                name,
                offset,
                length,
                record.rec_type,
                headers.get("WARC-Record-ID", ""),
                headers.get("WARC-Target-URI", ""),
                headers,
                data[offset : offset + length],
            )
        )
    return out


def package_records(wacz: Path) -> list[Record]:
    with zipfile.ZipFile(wacz) as zf:
        return [
            rec
            for name in zf.namelist()
            if name.startswith("archive/")
            for rec in records(zf.read(name), name.removeprefix("archive/"))
        ]


def project_records(project: Path) -> list[Record]:
    warcs = sorted(project.glob("segments/*/*.warc.gz")) + sorted(project.glob("history/*.warc.gz"))
    return [rec for path in warcs for rec in records(path.read_bytes(), path.name)]


def index_lines(wacz: Path) -> list[str]:
    with zipfile.ZipFile(wacz) as zf:
        return gzip.decompress(zf.read("indexes/index.cdx.gz")).decode().splitlines()


def pages_of(wacz: Path) -> list[dict]:
    with zipfile.ZipFile(wacz) as zf:
        return [json.loads(line) for line in zf.read("pages/pages.jsonl").decode().splitlines()]


def captures(wacz: Path) -> list[Record]:
    return [r for r in package_records(wacz) if r.type in ("response", "revisit")]


# -- tests -----------------------------------------------------------------------------------


def validate(wacz: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "wacz"), "validate", "-f", str(wacz)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("which", ["everything", "latest"])
def test_wacz_validate_accepts_the_package(which, request):
    wacz = request.getfixturevalue(which)
    result = validate(wacz)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Validation succeeded, the passed WACZ is valid" in result.stdout
    with zipfile.ZipFile(wacz) as zf:
        infos = {info.filename: info for info in zf.infolist()}
        package = json.loads(zf.read("datapackage.json"))
    assert package["wacz_version"] == "1.1.1"
    assert package["software"].startswith("Recrawl ")
    # stored, not deflated: replay tools read records and index blocks at their offsets
    for name, info in infos.items():
        if name.startswith("archive/") or name.endswith(".cdx.gz"):
            assert info.compress_type == zipfile.ZIP_STORED, name
    assert {r["path"] for r in package["resources"]} == set(infos) - {
        "datapackage.json",
        "datapackage-digest.json",
    }


def test_every_record_is_copied_byte_for_byte(everything, built):
    source = {r.id: r for r in project_records(built.project)}
    exported = package_records(everything)
    assert exported
    for record in exported:
        assert record.raw == source[record.id].raw, record
    # every record of the project's WARCs is in a full export (and no record twice)
    assert sorted(r.id for r in exported) == sorted(source)
    # one package WARC per source WARC, under the same names
    assert {r.warc for r in exported} == {r.warc for r in source.values()}


def test_each_capture_brings_its_request_and_each_warc_its_warcinfo(latest):
    exported = package_records(latest)
    ids = {r.id for r in exported}
    by_warc: dict[str, list[Record]] = {}
    for record in exported:
        by_warc.setdefault(record.warc, []).append(record)
    for warc, recs in by_warc.items():
        assert recs[0].type == "warcinfo", warc
        assert recs[0].headers["WARC-Filename"] == warc
        assert [r.type for r in recs].count("warcinfo") == 1
    responses = [r for r in exported if r.type in ("response", "revisit")]
    requests = {r.headers.get("WARC-Concurrent-To") for r in exported if r.type == "request"}
    for capture in responses:
        assert capture.id in requests, capture.url
    for record in exported:
        if record.type in ("request", "metadata"):
            assert record.headers["WARC-Concurrent-To"] in ids, record


def test_revisits_bring_the_responses_they_refer_to(built, latest, tmp_path):
    # the latest capture of /static is a revisit of the first crawl's response, which is
    # older than --since and not the page's latest: it comes along all the same
    since = T0 + 62 * DAY
    out, _ = export(built, tmp_path / "since.wacz", since=since)
    for wacz in (latest, out):
        caps = captures(wacz)
        revisits = [r for r in caps if r.type == "revisit"]
        assert {r.url for r in revisits} >= {built.url("/static"), built.url("/cond")}
        for revisit in revisits:
            target = revisit.headers["WARC-Refers-To-Target-URI"]
            when = revisit.headers["WARC-Refers-To-Date"]
            (found,) = [
                r
                for r in caps
                if r.type == "response" and r.url == target and r.headers["WARC-Date"] == when
            ]
            assert found.headers["WARC-Date"] < since.isoformat() or wacz == latest
    assert validate(out).returncode == 0


def test_pages_latest_all_since_and_site(built, everything, latest, tmp_path):
    def urls_and_stamps(wacz: Path) -> list[tuple[str, str]]:
        return sorted((p["url"], p["ts"]) for p in pages_of(wacz)[1:])

    html = [built.url(p) for p in ("/", "/static", "/cond", "/changing")] + [
        built.other("/elsewhere")
    ]
    # latest: one entry per HTML page, at its latest capture
    entries = urls_and_stamps(latest)
    assert [url for url, _ in entries] == sorted(html)
    for url, ts in entries:
        newest = find_captures(built.project, url)[-1].date
        assert ts == newest.isoformat() + "Z"
    # all: every capture of every HTML page (three crawls each)
    assert len(urls_and_stamps(everything)) == 3 * len(html)
    assert built.url("/plain") not in {url for url, _ in urls_and_stamps(everything)}
    assert built.url("/plain") in {r.url for r in captures(everything)}
    # titles the store knows name the latest captures
    titled = {p["url"]: p.get("title") for p in pages_of(latest)[1:]}
    assert titled[built.url("/")] == "Home"
    assert titled[built.url("/changing")] == "Version 3"
    header = pages_of(latest)[0]
    assert header["format"] == "json-pages-1.0" and header["id"] == "pages"
    # since: only captures at or after it (here: the third crawl's), revisit targets aside
    since = T0 + 62 * DAY
    out, _ = export(built, tmp_path / "since.wacz", pages=ALL, since=since)
    assert {ts for _, ts in urls_and_stamps(out)} == {
        find_captures(built.project, built.url("/changing"))[-1].date.isoformat() + "Z"
    }
    # site: one host's pages only (and what their revisits need, from that host)
    out, _ = export(built, tmp_path / "site.wacz", pages=ALL, site="localhost")
    assert {url for url, _ in urls_and_stamps(out)} == {built.other("/elsewhere")}
    assert {r.url for r in captures(out)} == {built.other("/elsewhere")}
    assert validate(out).returncode == 0
    with zipfile.ZipFile(out) as zf:
        package = json.loads(zf.read("datapackage.json"))
    assert "localhost" in package["description"]


def test_the_index_is_what_cdxj_indexer_makes_of_the_exported_warcs(everything, latest, tmp_path):
    for wacz in (everything, latest):
        folder = tmp_path / wacz.stem
        with zipfile.ZipFile(wacz) as zf:
            names = [n for n in zf.namelist() if n.startswith("archive/")]
            zf.extractall(folder, names)
            ours_cdx, ours_idx = zf.read("indexes/index.cdx.gz"), zf.read("indexes/index.idx")
        warcs = sorted(str(p) for p in (folder / "archive").iterdir())
        result = subprocess.run(
            [str(BIN / "cdxj-indexer"), "--sort", *warcs],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert index_lines(wacz) == result.stdout.splitlines()
        # and the compressed form py-wacz writes: the same blocks, the same .idx
        result = subprocess.run(
            [str(BIN / "cdxj-indexer"), "--sort", "-c", "index.cdx.gz", "-l", "1024", "-d", *warcs],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=folder,
        )
        assert result.returncode == 0, result.stderr
        assert (folder / "index.cdx.gz").read_bytes() == ours_cdx
        assert result.stdout.encode() == ours_idx


def test_a_page_replays_out_of_the_package_through_pywb(built, latest, tmp_path):
    root = tmp_path / "pywb"
    root.mkdir()
    for args in (["init", "project"], ["add", "--unpack-wacz", "project", str(latest)]):
        result = subprocess.run(
            [str(BIN / "wb-manager"), *args], capture_output=True, text=True, timeout=120, cwd=root
        )
        assert result.returncode == 0, result.stderr
    (root / "config.yaml").write_text("collections_root: collections\n", encoding="utf-8")
    replay = Replay(root)
    try:
        for path, body in (("/changing", VERSIONS[2]), ("/static", STATIC), ("/cond", COND)):
            capture = find_captures(built.project, built.url(path))[-1]
            answer = replay.raw(capture.date.strftime("%Y%m%d%H%M%S"), built.url(path))
            assert answer.status == 200, (path, answer)
            assert answer.body == body, path
            assert answer.header("Memento-Datetime") == capture.date.strftime(
                "%a, %d %b %Y %H:%M:%S GMT"
            )
    finally:
        replay.stop()


def test_progress_is_reported_up_to_every_byte(built, tmp_path):
    _, seen = export(built, tmp_path / "p.wacz", pages=ALL)
    assert seen[0].done == 0 and seen[-1].done == seen[-1].total > 0
    assert seen[-1].captures_done == seen[-1].captures_total > 0
    assert [p.done for p in seen] == sorted(p.done for p in seen)


def _open_warcs() -> set[str]:
    """The names of the WARC files this process has open."""
    names = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if target.endswith(".warc.gz"):
            names.add(Path(target).name)
    return names


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")
def test_only_the_warcs_copied_from_are_opened(built, tmp_path):
    # a long watch leaves thousands of segments: an export of a few opens only theirs
    assert _open_warcs() == set()
    seen: list[set[str]] = []
    out = tmp_path / "since.wacz"
    options = ExportOptions(pages=ALL, since=T0 + 62 * DAY)
    export_wacz(built.project, out, options, progress=lambda _: seen.append(_open_warcs()))
    with zipfile.ZipFile(out) as zf:
        packaged = {n.removeprefix("archive/") for n in zf.namelist() if n.startswith("archive/")}
    project = {p.name for p in built.project.rglob("*.warc.gz")}
    assert packaged < project  # the test means something only if some are left out
    assert seen and all(names == packaged for names in seen)
    assert _open_warcs() == set()


def test_an_existing_file_is_replaced_only_on_success(built, tmp_path):
    out = tmp_path / "x.wacz"
    out.write_bytes(b"before")
    with pytest.raises(ExportStopped):
        export_wacz(built.project, out, ExportOptions(pages=ALL), stop=lambda: True)
    assert out.read_bytes() == b"before"
    seen: list[ExportProgress] = []
    with pytest.raises(ExportStopped):  # midway through the copy
        export_wacz(
            built.project,
            out,
            ExportOptions(pages=ALL),
            progress=seen.append,
            stop=lambda: any(p.done for p in seen),
        )
    assert out.read_bytes() == b"before"
    calls = []

    def stop_at_the_second_index() -> bool:
        calls.append(1)
        return len(calls) > 1

    reading: list[ExportProgress] = []
    with pytest.raises(ExportStopped):  # while the indexes are read: nothing copied yet
        export_wacz(
            built.project,
            out,
            ExportOptions(),
            progress=reading.append,
            stop=stop_at_the_second_index,
        )
    assert len(index_files(built.project)) > 1
    assert reading == [] and len(calls) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.wacz"]  # no .part left
    with pytest.raises(NotFound, match=r"nothing to export: no captures of site nowhere\.example"):
        export_wacz(built.project, out, ExportOptions(site="nowhere.example"))
    with pytest.raises(InvalidArgument, match="is a folder"):
        export_wacz(built.project, tmp_path, ExportOptions())
    with pytest.raises(InvalidArgument, match="no folder"):
        export_wacz(built.project, tmp_path / "missing" / "x.wacz", ExportOptions())
    export_wacz(built.project, out, ExportOptions())
    assert zipfile.is_zipfile(out)


def small_project(project, server) -> None:
    server.routes["/"] = Reply(200, HOME, {"Content-Type": "text/html"})
    server.routes["/static"] = Reply(200, STATIC, {"Content-Type": "text/html"})
    server.routes["/cond"] = httpserver.gzip_with_etag(COND)
    server.routes["/changing"] = Reply(200, VERSIONS[0], {"Content-Type": "text/html"})
    inject([server.url("/")], T0)
    for n in range(2):
        crawl(project, clock=clock_at(n * 31 * DAY))


def test_a_compaction_while_the_export_copies_changes_nothing_in_it(project, server, tmp_path):
    """The export's WARCs are open before it copies: a compaction that folds and deletes
    them meanwhile (another process's, here run at the export's first report) leaves the
    package what it would have been."""
    small_project(project, server)
    before = tmp_path / "before.wacz"
    export_wacz(project.path, before, ExportOptions(pages=ALL))
    names = sorted(s.name for s in Segment.select())
    compacted = []

    def compact_now(_: ExportProgress) -> None:
        if not compacted:
            compacted.append(compact(project, names=names))

    during = tmp_path / "during.wacz"
    export_wacz(project.path, during, ExportOptions(pages=ALL), progress=compact_now)
    assert compacted[0].compacted == names
    assert not any((project.path / "segments" / name).exists() for name in names)
    assert [(r.warc, r.raw) for r in package_records(during)] == [
        (r.warc, r.raw) for r in package_records(before)
    ]
    assert index_lines(during) == index_lines(before)
    assert validate(during).returncode == 0
    # after it, an export reads the compacted segment: the same records
    after = tmp_path / "after.wacz"
    export_wacz(project.path, after, ExportOptions(pages=ALL))
    assert sorted(r.raw for r in package_records(after) if r.type != "warcinfo") == sorted(
        r.raw for r in package_records(before) if r.type != "warcinfo"
    )


def test_a_warc_gone_for_good_is_one_clear_error(project, server, tmp_path):
    small_project(project, server)
    (warc,) = list(project.path.glob("segments/*/*.warc.gz"))[:1]
    warc.unlink()
    with pytest.raises(MissingFile, match=r"is missing, though an index lists captures in it"):
        export_wacz(project.path, tmp_path / "x.wacz", ExportOptions())
    assert list(tmp_path.glob("x.wacz*")) == []


def test_the_package_never_takes_the_place_of_a_project_file(project, server, tmp_path):
    """An OUT inside the project's segments, history or store files is refused before
    anything is written: the package would replace a WARC, an index or the store."""
    small_project(project, server)
    warc = sorted(project.path.glob("segments/*/*.warc.gz"))[0]
    targets = [
        warc,
        warc.with_suffix("").with_suffix(".cdxj"),
        project.path / STORE_FILE,
        project.path / "segments" / "export.wacz",
        warc.parent / "export.wacz",  # a compaction deletes the segment's folder
    ]
    for target in targets:
        before = target.read_bytes() if target.exists() else None
        with pytest.raises(InvalidArgument, match="is inside the project folder"):
            export_wacz(project.path, target, ExportOptions())
        assert (target.read_bytes() if target.exists() else None) == before, target
    assert not list(project.path.rglob("*.part"))
    # through a link to the project too
    link = tmp_path / "link"
    link.symlink_to(project.path)
    with pytest.raises(InvalidArgument, match="is inside the project folder"):
        export_wacz(project.path, link / warc.relative_to(project.path), ExportOptions())
    # a package of its own beside the project's files is fine
    out = project.path / "export.wacz"
    export_wacz(project.path, out, ExportOptions())
    assert validate(out).returncode == 0


def test_two_exports_to_one_file_at_once_each_write_a_whole_package(built, tmp_path):
    """Another export to the same OUT meanwhile (the app's and a command's, run here at
    the first's first report) writes a file of its own: the first never writes into it,
    and OUT is whichever package finished last, whole."""
    out = tmp_path / "x.wacz"
    other = []

    def export_another(_: ExportProgress) -> None:
        if not other:
            other.append(export_wacz(built.project, out, ExportOptions(site="localhost")))
            assert validate(out).returncode == 0

    summary = export_wacz(built.project, out, ExportOptions(pages=ALL), progress=export_another)
    assert other and other[0].bytes < summary.bytes == out.stat().st_size
    assert validate(out).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.wacz"]


KILL_MIDWAY = """
import os, signal, sys
from pathlib import Path
from recrawl.core.archive.wacz import ALL, ExportOptions, export_wacz
from recrawl.core.project import Project

project = Project.open(sys.argv[1])

def kill_midway(progress):
    if progress.done:
        os.kill(os.getpid(), signal.SIGKILL)

export_wacz(project.path, Path(sys.argv[2]), ExportOptions(pages=ALL), progress=kill_midway)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="part files are locked with flock")
def test_the_next_export_removes_what_a_killed_one_left(built, tmp_path):
    out = tmp_path / "x.wacz"
    child = subprocess.run(
        [sys.executable, "-c", KILL_MIDWAY, str(built.project), str(out)],
        capture_output=True,
        timeout=120,
    )
    assert child.returncode == -9, child.stderr
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith("x.wacz.") and left[0].endswith(".part")
    export(built, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.wacz"]
    assert validate(out).returncode == 0


def entries_as_replaywebpage_reads_them(wacz: Path) -> dict[str, bytes]:
    """Each entry's stored bytes where ReplayWeb.page (wabac.js's zip reader) looks for
    them: at its local header + 30 + its name's length when its central directory entry
    has no extra field (the local header is not read then), else past the local header's
    own name and extra fields."""
    found = {}
    data = wacz.read_bytes()
    with zipfile.ZipFile(wacz) as zf:
        for info in zf.infolist():
            local = info.header_offset
            assert data[local : local + 4] == b"PK\x03\x04", info.filename
            name_length = int.from_bytes(data[local + 26 : local + 28], "little")
            extra_length = int.from_bytes(data[local + 28 : local + 30], "little")
            start = local + 30 + name_length + (extra_length if info.extra else 0)
            found[info.filename] = data[start : start + info.compress_size]
    return found


def stored_entries(wacz: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wacz) as zf:
        return {
            info.filename: zf.read(info)
            for info in zf.infolist()
            if info.compress_type == zipfile.ZIP_STORED
        }


@pytest.mark.parametrize("which", ["everything", "latest"])
def test_replaywebpage_finds_every_entry_where_the_zip_says(which, request):
    """A zip64 field in a local header that its central directory entry lacks shifted
    every WARC by 20 bytes for ReplayWeb.page: each page said 'Archived Page Not Found'
    (seen in Chromium; bench/replayweb_check.py)."""
    wacz = request.getfixturevalue(which)
    where = entries_as_replaywebpage_reads_them(wacz)
    stored = stored_entries(wacz)
    assert any(name.startswith("archive/") for name in stored)
    for name, data in stored.items():
        assert where[name] == data, name
    with zipfile.ZipFile(wacz) as zf:
        for info in zf.infolist():
            assert not info.extra, info.filename  # small entries: no zip64 field anywhere
            local = info.header_offset
            raw = wacz.read_bytes()[local + 28 : local + 30]
            assert raw == b"\x00\x00", info.filename


def test_a_warc_past_the_zip64_limit_has_the_field_in_both_headers(built, tmp_path, monkeypatch):
    """A WARC past zipfile's 2 GiB limit (the limit lowered here, the sizes not) gets a
    zip64 field in its local header and its central directory entry both; a smaller
    entry none in its local header (its central one has an offset field once the zip
    passes the limit: ReplayWeb.page then reads the local header, as it should)."""
    limit = 5000
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", limit)
    out, _ = export(built, tmp_path / "big.wacz", pages=ALL)
    monkeypatch.undo()
    with zipfile.ZipFile(out) as zf:
        infos = zf.infolist()
        assert zf.testzip() is None
    raw = out.read_bytes()

    def local_extra(info: zipfile.ZipInfo) -> int:
        return int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")

    large = [i for i in infos if i.file_size > limit]
    small = [i for i in infos if i.file_size <= limit]
    assert large and any(i.filename.startswith("archive/") for i in small)
    for info in large:
        assert info.extra[:2] == b"\x01\x00", info.filename  # the zip64 field's tag
        assert local_extra(info) > 0, info.filename
    for info in small:
        assert local_extra(info) == 0, info.filename
    where = entries_as_replaywebpage_reads_them(out)
    for name, data in stored_entries(out).items():
        assert where[name] == data, name
    assert validate(out).returncode == 0
