"""The capture table (docs/design.md §7): written by a crawl's commits, built from the
indexes for a project made before it, rebuilt when it disagrees, on SQLite and PostgreSQL.

A project crawled over four rounds: pages that change every round, every other round or
never (so revisits refer to older rounds), one with a query, and one linked from the
others (found in the first round's fetches).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from recrawl.core import store
from recrawl.core.archive.capture_table import check_captures
from recrawl.core.archive.captures import find_captures, payload_at
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.segments import allocate_name, index_files
from recrawl.core.archive.warc import payload_digest
from recrawl.core.engine import inject
from recrawl.core.net.http import HttpRequest, HttpResponse
from recrawl.core.project import Project
from recrawl.core.store.captures import STALE
from recrawl.core.store.models import Capture

from recrawl.main import main
from tests.support import httpserver
from tests.support.capture_table import check_table_matches_indexes, table_rows
from tests.support.crawling import DAY, T0, clock_at, crawl

ROUNDS = 4
PATHS = ["/every", "/second", "/never", "/q?a=1&b=2"]


def _body(path: str, r: int) -> str:
    version = {"/every": r, "/second": r // 2}.get(path, 0)
    return f"<html><body><h1>{path}</h1><p>version {version}</p><a href='/late'>l</a></body></html>"


def _stamp(r: int) -> str:
    return (T0 + r * 100 * DAY).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def site() -> Iterator[httpserver.TestServer]:
    server = httpserver.TestServer().start()
    yield server
    server.stop()


def _crawl(folder: Path, site: httpserver.TestServer, db_url: str | None = None) -> None:
    project = Project.init(folder, db_url=db_url)
    try:
        inject([site.url(p) for p in PATHS], T0)
        for r in range(ROUNDS):
            for path in PATHS:
                site.html(path, _body(path, r))
            site.html("/late", f"<html><body>late {r}</body></html>")
            crawl(project, clock=clock_at(r * 100 * DAY))
    finally:
        project.close()


@pytest.fixture(scope="module")
def template(tmp_path_factory, site) -> Path:
    folder = tmp_path_factory.mktemp("captures") / "template"
    _crawl(folder, site)
    return folder


@pytest.fixture
def proj(template, tmp_path) -> Path:
    target = tmp_path / "proj"
    shutil.copytree(template, target)
    return target


def _urls(site: httpserver.TestServer) -> list[str]:
    return [site.url(p) for p in [*PATHS, "/late"]]


def show_all(capsys, proj: Path, urls: list[str]) -> dict[tuple[str, int], tuple[int, bytes]]:
    """What `show --at` prints for every page after every round (exact bytes)."""
    out = {}
    for url in urls:
        for r in range(ROUNDS):
            capsys.readouterr()
            code = main(["show", str(proj), url, "--at", _stamp(r + 1)])
            out[url, r] = (code, capsys.readouterr().out.encode())
    return out


def _checked(proj: Path) -> None:
    project = Project.open(proj)
    try:
        check_table_matches_indexes(proj)
    finally:
        project.close()


def test_a_crawl_fills_the_table_as_the_indexes_list_its_captures(proj, site):
    project = Project.open(proj)
    try:
        check_table_matches_indexes(proj)
        # every round of the pages, revisits included; both spellings of the query
        assert len(find_captures(proj, site.url("/never"))) == ROUNDS
        assert {r.mime for r in find_captures(proj, site.url("/never"))[1:]} == {"warc/revisit"}
        assert len(find_captures(proj, site.url("/q?a=1&b=2"))) == ROUNDS
        assert store.capture_count() == sum(len(find_captures(proj, u)) for u in _urls(site))
    finally:
        project.close()


def _as_before_the_table(proj: Path) -> None:
    """The store as the version before migration 16 left it: no table, schema 15."""
    with contextlib.closing(sqlite3.connect(proj / "recrawl.sqlite")) as db, db:
        db.execute("DROP TABLE capture")
        db.execute("DELETE FROM setting WHERE key = 'capture_table'")
        db.execute("UPDATE setting SET value = '15' WHERE key = 'schema_version'")


def test_a_project_made_before_the_table_gets_it_built_once_and_shows_the_same(proj, site, capsys):
    urls = _urls(site)
    before = show_all(capsys, proj, urls)
    assert sum(code == 0 for code, _ in before.values()) >= len(urls) * (ROUNDS - 1)
    rows = _open_and_rows(proj)
    _as_before_the_table(proj)

    project = Project.open(proj)
    try:
        built = [note for note in project.notes if note.startswith("built the capture table")]
        files = len(index_files(proj))
        assert built == [f"built the capture table: {len(rows):,} captures of {files} index files"]
        assert table_rows() == rows
        check_table_matches_indexes(proj)
    finally:
        project.close()
    reopened = Project.open(proj)  # built once: nothing to say the next time
    try:
        assert not [n for n in reopened.notes if "capture table" in n]
    finally:
        reopened.close()
    assert show_all(capsys, proj, urls) == before
    # and it follows a compaction from there, superseded captures dropped or not
    assert main(["compact", str(proj), "--below", "1"]) == 0
    _checked(proj)
    assert show_all(capsys, proj, urls) == before


def _open_and_rows(proj: Path) -> list[tuple[object, ...]]:
    project = Project.open(proj)
    try:
        return table_rows()
    finally:
        project.close()


def test_a_damaged_index_leaves_the_table_unbuilt_and_the_project_usable(proj, site, capsys):
    """An upgraded project with one index cut short: every command (recrawl urls, a
    crawl) ended in a traceback or an error; now recovery's note names the file and the
    line, lookups read the files, and crawls run."""
    damaged = index_files(proj)[-1]
    lines = damaged.read_text(encoding="utf-8").splitlines(keepends=True)
    damaged.write_text(lines[0] + lines[1][:20], encoding="utf-8")
    _as_before_the_table(proj)
    relpath = damaged.relative_to(proj)
    said = f"the capture table is not built: the index {relpath} is unreadable at line 2: "
    assert main(["urls", str(proj)]) == 0
    assert said in capsys.readouterr().err
    project = Project.open(proj)
    try:
        (note,) = project.notes
        assert note.startswith(said) and note.endswith("; lookups read the index files")
        assert not store.captures_ready()
        assert len(find_captures(proj, site.url("/never"))) >= ROUNDS - 1
    finally:
        project.close()
    assert main(["show", str(proj), site.url("/never"), "--at", _stamp(ROUNDS)]) == 0
    capsys.readouterr()
    assert main(["crawl", str(proj), "--delay", "0", "--now", _stamp(ROUNDS + 1)]) == 0
    assert said in capsys.readouterr().err


def test_until_it_is_built_lookups_read_the_indexes(proj, site, capsys):
    urls = _urls(site)
    before = show_all(capsys, proj, urls)
    project = Project.open(proj)
    try:
        Capture.delete().execute()
        store.mark_captures(STALE)  # what migration 16 leaves, before the recovery builds
        assert len(find_captures(proj, site.url("/every"))) == ROUNDS
    finally:
        project.close()
    assert show_all(capsys, proj, urls) == before  # opening built it meanwhile
    _checked(proj)


def test_a_table_that_disagrees_with_the_indexes_is_rebuilt(proj, site):
    project = Project.open(proj)
    try:
        rows = table_rows()
        first = Capture.select().order_by(Capture.file).first()
        Capture.delete().where(Capture.file == first.file).execute()  # a segment's rows lost
        notes = check_captures(proj)
        assert notes[0].startswith(f"the capture table disagreed with the indexes ({first.file} ")
        assert notes[1].startswith("built the capture table")
        assert table_rows() == rows
        # rows of a WARC no index lists (a file deleted behind its back)
        store.add_captures([store.CaptureRow(*["x"] * 3, "history/gone.warc.gz", 1, 2, *"abc")])
        assert "history/gone.warc.gz has capture rows but no index" in check_captures(proj)[0]
        assert table_rows() == rows
        assert check_captures(proj) == []  # in agreement: nothing done
    finally:
        project.close()


@pytest.mark.parametrize("drop", [False, True], ids=["keep", "drop-superseded"])
def test_compactions_move_the_rows_with_their_captures(proj, site, capsys, drop):
    urls = _urls(site)
    before = show_all(capsys, proj, urls)
    args = ["compact", str(proj), "--below", "1"] + (["--drop-superseded"] if drop else [])
    assert main(args) == 0
    _checked(proj)
    after = show_all(capsys, proj, urls)
    if drop:  # the latest capture of each page still reads back the same
        assert {k: v for k, v in after.items() if k[1] == ROUNDS - 1} == {
            k: v for k, v in before.items() if k[1] == ROUNDS - 1
        }
    else:
        assert after == before


def test_a_committed_capture_is_found_while_its_round_still_writes(tmp_path):
    project = Project.init(tmp_path / "open")
    try:
        url = "http://example.test/page"
        inject([url], T0)
        writer = SegmentWriter(project.path, allocate_name(project.path, T0), T0)
        body = b"<html>written, committed, not closed</html>"
        response = HttpResponse("HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], body)
        request = HttpRequest("GET", urlsplit(url).path, "HTTP/1.1", [])
        digest = payload_digest(body)
        writer.write_response(url, T0, request, response, digest=digest, mime="text/html")
        batch = store.CommitBatch(segment=writer.name, committed_bytes=writer.written(), records=1)
        batch.captures = writer.take_captures()
        store.commit_batch(batch, T0)
        (capture,) = find_captures(project.path, url)
        assert capture.path.name.endswith(".warc.gz.open")
        assert payload_at(project.path, url, T0).body == body
        writer.close(T0, batch.committed_bytes)
        (closed,) = find_captures(project.path, url)
        assert closed.path.name.endswith(".warc.gz") and closed.offset == capture.offset
        check_table_matches_indexes(project.path)
    finally:
        project.close()


def test_on_postgresql_too(tmp_path, site, capsys, pg_url):
    proj = tmp_path / "pg"
    _crawl(proj, site, pg_url)
    _checked(proj)
    urls = _urls(site)
    before = show_all(capsys, proj, urls)
    project = Project.open(proj)
    try:
        # pywb's key ranges are bytewise: the key column is, whatever the server's locale
        (collation,) = project.database.execute_sql(
            "SELECT collation_name FROM information_schema.columns "
            "WHERE table_name = 'capture' AND column_name = 'key'"
        ).fetchone()
        assert collation == "C"
        rows = table_rows()
        # back to the store before migration 16, then opened by this version
        project.database.execute_sql('DROP TABLE "capture"')
        project.database.execute_sql("DELETE FROM setting WHERE key = 'capture_table'")
        store.set_setting("schema_version", 15)
    finally:
        project.close()
    project = Project.open(proj)
    try:
        assert any(n.startswith("built the capture table") for n in project.notes)
        assert table_rows() == rows
    finally:
        project.close()
    assert show_all(capsys, proj, urls) == before
    assert main(["compact", str(proj), "--below", "1", "--drop-superseded"]) == 0
    _checked(proj)


def _committed(project_dir: Path, url: str, instant, body: bytes) -> tuple[SegmentWriter, int]:
    """A round's segment, still open, with one committed capture of ``url``."""
    writer = SegmentWriter(project_dir, allocate_name(project_dir, instant), instant)
    response = HttpResponse("HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], body)
    request = HttpRequest("GET", urlsplit(url).path, "HTTP/1.1", [])
    digest = payload_digest(body)
    writer.write_response(url, instant, request, response, digest=digest, mime="text/html")
    batch = store.CommitBatch(segment=writer.name, committed_bytes=writer.written(), records=1)
    batch.captures = writer.take_captures()
    store.commit_batch(batch, instant)
    return writer, batch.committed_bytes


@pytest.mark.parametrize("after", ["capture_files", "open_segment_files", "index_files"])
@pytest.mark.parametrize("event", ["opens", "closes"])
def test_a_rebuild_keeps_what_a_live_worker_commits_meanwhile(
    tmp_path, pg_url, monkeypatch, after, event
):
    """On a shared store a worker writes while another process rebuilds the table: a
    segment it opens and commits to, or closes, between any two steps of the build keeps
    its rows (they were lost, and the table said complete)."""
    from recrawl.core.archive import capture_table

    project = Project.init(tmp_path / "pg", db_url=pg_url)
    try:
        early, late = "http://example.test/early", "http://example.test/late"
        inject([early, late], T0)
        writers = [_committed(project.path, early, T0, b"<html>early</html>")]
        module = capture_table if after == "index_files" else store
        step = getattr(module, after)

        def step_then_the_other_worker(*args):
            result = step(*args)
            monkeypatch.setattr(module, after, step)  # once
            if event == "opens":
                writers.append(_committed(project.path, late, T0 + DAY, b"<html>late</html>"))
            else:
                writer, committed = writers.pop()
                writer.close(T0, committed)
            return result

        monkeypatch.setattr(module, after, step_then_the_other_worker)
        capture_table.build_captures(project.path)
        assert len(find_captures(project.path, early)) == 1
        assert len(find_captures(project.path, late)) == (event == "opens")
        for writer, committed in writers:
            writer.close(T0, committed)
        check_table_matches_indexes(project.path)
    finally:
        project.close()


@pytest.mark.parametrize(
    "after", ["capture_files", "closed_segment_records", "open_segment_files", "index_files"]
)
def test_a_live_worker_closing_its_segment_is_no_disagreement(tmp_path, pg_url, monkeypatch, after):
    """A worker's last commit and close between two steps of the check: the table still
    matches the indexes, so nothing is said and nothing rebuilt (it said the table
    disagreed, and rebuilt it whole)."""
    from recrawl.core.archive import capture_table

    project = Project.init(tmp_path / "pg", db_url=pg_url)
    try:
        early, late = "http://example.test/early", "http://example.test/late"
        inject([early, late], T0)
        writer, _ = _committed(project.path, early, T0, b"<html>early</html>")
        module = capture_table if after == "index_files" else store
        step = getattr(module, after)

        def step_then_the_worker_closes(*args):
            result = step(*args)
            monkeypatch.setattr(module, after, step)  # once
            body = b"<html>late</html>"
            response = HttpResponse("HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], body)
            request = HttpRequest("GET", "/late", "HTTP/1.1", [])
            digest = payload_digest(body)
            writer.write_response(late, T0, request, response, digest=digest, mime="text/html")
            batch = store.CommitBatch(segment=writer.name, committed_bytes=writer.written())
            batch.captures = writer.take_captures()
            store.commit_batch(batch, T0)
            writer.close(T0, batch.committed_bytes)
            return result

        monkeypatch.setattr(module, after, step_then_the_worker_closes)
        assert capture_table.check_captures(project.path) == []
        assert writer.final_path.exists()
        check_table_matches_indexes(project.path)
    finally:
        project.close()
