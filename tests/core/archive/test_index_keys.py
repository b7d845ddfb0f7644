"""Index keys as pywb and cdxj-indexer compute them (the ``surt`` package's SURT), on a
real crawl of URLs whose keys differ from the ones Recrawl used to make: a percent-escaped
``/``, a directory's trailing slash (its page then shares its key with the page without
one), and a query with unsorted parameters and an escaped ``~`` (which the crawl's own
canonical form already sorts and unescapes). Also the one-time upgrade of a project whose
indexes carry the old keys, and an upgrade that fails half-way.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import surt
from recrawl.core import store
from recrawl.core.archive.captures import find_captures
from recrawl.core.archive.cdxj import read_index
from recrawl.core.archive.cdxj import surt as index_key
from recrawl.core.archive.compaction import compact
from recrawl.core.archive.wacz import ALL, ExportOptions, export_wacz
from recrawl.core.engine import inject
from recrawl.core.net.urls import canonical
from recrawl.core.project import Project
from recrawl.core.replay.server import ReplayServer
from recrawl.core.store.models import Segment, Setting

from recrawl.main import main
from tests.support import httpserver
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.replayserver import Replay, collection, fetch

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
SESSION = "0123456789abcdef0123456789abcdef"
# as the home page links them; the crawl fetches and stores their canonical form
# (not a session id: the default filter chain keeps such URLs out of a crawl)
PATHS = ("/q?b=2&a=1", "/x%7Eb", "/a%2Fb", "/dir/", "/dir")
#: The pages whose key no other page shares (pywb picks among the pages of one key).
OWN_KEYS = PATHS[:3]


def body(path: str, version: int) -> str:
    return f"<html><head><title>{path}</title></head><body><p>{path}: version {version}.</p></body></html>"


def home() -> str:
    links = " ".join(f'<a href="{p}">{n}</a>' for n, p in enumerate(PATHS))
    return f"<html><body>{links}</body></html>"


def old_key(url: str) -> str:
    """The key Recrawl wrote before it used the ``surt`` package, as it computed it."""
    parts = urlsplit(url)
    labels = (parts.hostname or "").strip(".").split(".")
    if labels and labels[0] == "www":
        labels = labels[1:]
    key = ",".join(reversed(labels))
    if parts.port and parts.port not in (80, 443):
        key += f":{parts.port}"
    key += ")" + (parts.path or "/").lower()
    if parts.query:
        key += "?" + parts.query.lower()
    return key


@dataclass
class Crawled:
    project: Path
    server: httpserver.TestServer

    def url(self, path: str) -> str:
        return canonical(self.server.url(path))

    def stamps(self, path: str) -> list[str]:
        """When the page was captured (14 digits), oldest first, as the indexes say."""
        url = self.url(path)
        return sorted(
            line.split(" ")[1] for line in index_lines(self.project) if url_of(line) == url
        )


def route(server: httpserver.TestServer, path: str) -> str:
    """The path and query the crawl requests for a link to ``path`` (its canonical form)."""
    parts = urlsplit(canonical(server.url(path)))
    return parts.path + (f"?{parts.query}" if parts.query else "")


@contextlib.contextmanager
def opened(path: Path) -> Iterator[Project]:
    project = Project.open(path)
    try:
        yield project
    finally:
        project.close()


@pytest.fixture(scope="module")
def crawled(tmp_path_factory) -> Iterator[Crawled]:
    """Two rounds a month apart; every page changes between them."""
    server = httpserver.TestServer().start()
    server.html("/", home())
    project = Project.init(tmp_path_factory.mktemp("keys") / "proj")
    try:
        inject([server.url("/")], T0)
        for version in (1, 2):
            for path in PATHS:
                server.html(route(server, path), body(path, version))
            crawl(project, clock=clock_at((version - 1) * 31 * DAY))
        project.close()
        yield Crawled(project.path, server)
    finally:
        project.close()
        server.stop()


def index_files(project: Path) -> list[Path]:
    return sorted(project.glob("segments/*/*.cdxj")) + sorted(project.glob("history/*.cdxj"))


def index_lines(project: Path) -> list[str]:
    return [line for index in index_files(project) for line in index.read_text().splitlines()]


def url_of(line: str) -> str:
    return json.loads(line.split(" ", 2)[2])["url"]


def assert_standard(project: Path) -> None:
    for index in index_files(project):
        lines = index.read_text(encoding="utf-8").splitlines()
        assert lines == sorted(lines), index
        for line in lines:
            assert line.split(" ", 1)[0] == surt.surt(url_of(line)), line


# -- the keys -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("http://example.com/a?b=1&a=2", "com,example)/a?a=2&b=1"),
        ("http://www2.example.com/", "com,example)/"),
        ("http://www.example.com/A/", "com,example)/a"),
        ("http://127.0.0.1:8080/x%7e", "1,0,0,127:8080)/x~"),
        (f"http://example.com/c?jsessionid={SESSION}&i=5", "com,example)/c?i=5"),
        ("http://example.com/a b", "com,example)/a%20b"),
    ],
)
def test_keys_are_the_surt_packages(url, key):
    assert index_key(url) == surt.surt(url) == key
    assert old_key(url) != key  # each is a case the old key got wrong


def test_a_key_costs_no_import_of_tldextract_or_requests():
    """Quick commands (``show --at``, ``diff``) compute keys: the surt package's import of
    tldextract and requests (0.1 s) waits until something really uses them."""
    code = (
        "import sys; from recrawl.core.archive.cdxj import surt; "
        "key = surt('http://www2.example.com/a?b=1&a=2'); "
        "print(key, 'requests' in sys.modules); "
        "import tldextract; print(tldextract.TLDExtract.__name__, 'requests' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["com,example)/a?a=2&b=1 False", "TLDExtract True"]


def test_the_crawl_indexes_every_page_under_its_standard_key(crawled):
    assert_standard(crawled.project)
    urls = {url_of(line) for line in index_lines(crawled.project)}
    assert {crawled.url(p) for p in PATHS} <= urls
    # with a trailing slash or not: one key, two pages
    assert len({surt.surt(crawled.url(p)) for p in ("/dir/", "/dir")}) == 1
    assert len({old_key(crawled.url(p)) for p in ("/dir/", "/dir")}) == 2


def test_each_url_finds_its_own_captures_only(crawled):
    with opened(crawled.project):
        for path in PATHS:
            found = find_captures(crawled.project, crawled.url(path))
            assert [c.date.strftime("%Y%m%d%H%M%S") for c in found] == crawled.stamps(path)
            assert len(found) == 2
            assert len({(c.path, c.offset) for c in found}) == 2


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", PATHS)
def test_show_at_history_and_diff_find_such_pages(crawled, capsys, path):
    d, url = crawled.project, crawled.url(path)
    first = crawled.stamps(path)[0]
    at = f"{first[:4]}-{first[4:6]}-{first[6:8]}T{first[8:10]}:{first[10:12]}:{first[12:]}Z"
    code, out, err = run(capsys, "show", d, url, "--at", at)
    assert code == 0, err
    assert out == body(path, 1)
    code, out, err = run(capsys, "show", d, url)
    assert (code, out) == (0, body(path, 2)), err
    # as the page linked it (a query unsorted, an escape): the command canonicalizes it
    code, out, err = run(capsys, "show", d, crawled.server.url(path))
    assert (code, out) == (0, body(path, 2)), err
    code, out, err = run(capsys, "history", d, url, "--json")
    assert code == 0, err
    assert len(json.loads(out)) == 2
    code, out, err = run(capsys, "diff", d, url, "--json")
    assert code == 0, err
    change = json.loads(out)
    assert change["added"] and change["removed"]
    assert "version 2" in " ".join(change["added"])


def test_pywb_replays_such_pages_with_the_bytes_sent(crawled, tmp_path):
    replay = Replay(collection(crawled.project, tmp_path / "pywb"))
    try:
        for path in OWN_KEYS:
            for version, stamp in enumerate(crawled.stamps(path), start=1):
                got = replay.raw(stamp, crawled.url(path))
                assert got.status == 200, (path, got)
                assert got.body == body(path, version).encode()
    finally:
        replay.stop()


def test_the_wacz_index_is_what_cdxj_indexer_makes_of_such_pages(crawled, tmp_path):
    out = tmp_path / "all.wacz"
    with opened(crawled.project):
        export_wacz(crawled.project, out, ExportOptions(pages=ALL))
    folder = tmp_path / "x"
    with zipfile.ZipFile(out) as zf:
        zf.extractall(folder, [n for n in zf.namelist() if n.startswith("archive/")])
        ours = gzip.decompress(zf.read("indexes/index.cdx.gz")).decode().splitlines()
    warcs = sorted(str(p) for p in (folder / "archive").iterdir())
    result = subprocess.run(
        [str(BIN / "cdxj-indexer"), "--sort", *warcs], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert ours == result.stdout.splitlines()
    assert {surt.surt(crawled.url(p)) for p in PATHS} <= {line.split(" ")[0] for line in ours}


# -- upgrading a project whose indexes carry the old keys -----------------------------------


def as_old_version(crawled: Crawled, where: Path) -> Path:
    """A copy of the project as Recrawl left it before migration 11: old keys, sorted by
    them, and a store at schema 10."""
    project = where / "old"
    shutil.copytree(crawled.project, project)
    for index in index_files(project):
        lines = index.read_text(encoding="utf-8").splitlines()
        old = sorted(f"{old_key(url_of(line))} {line.split(' ', 1)[1]}" for line in lines)
        index.write_text("".join(f"{line}\n" for line in old), encoding="utf-8")
    with contextlib.closing(sqlite3.connect(project / "recrawl.sqlite")) as db, db:
        db.execute("DELETE FROM setting WHERE key = 'index_keys'")
        db.execute("UPDATE setting SET value = '10' WHERE key = 'schema_version'")
    return project


def test_an_old_projects_indexes_are_rekeyed_once_on_opening(crawled, tmp_path):
    project = as_old_version(crawled, tmp_path)
    moved = crawled.url("/a%2Fb")  # its old key has the escape: pywb's has a "/"
    root = collection(project, tmp_path / "pywb")
    replay = Replay(root)
    try:  # the defect: pywb looks the page up by a key the old index does not have
        assert replay.raw(crawled.stamps("/a%2Fb")[1], moved).status == 404
    finally:
        replay.stop()
    with opened(project) as opening:
        assert any("upgraded the store" in note for note in opening.notes), opening.notes
        assert any("re-keyed" in note for note in opening.notes), opening.notes
        assert Setting.get(Setting.key == "index_keys").value == "surt"
        for path in PATHS:
            assert len(find_captures(project, crawled.url(path))) == 2
    assert_standard(project)
    before = {index: index.stat().st_mtime_ns for index in index_files(project)}
    with opened(project) as again:  # once: nothing left to do
        assert not any("re-keyed" in note for note in again.notes), again.notes
    assert {index: index.stat().st_mtime_ns for index in index_files(project)} == before
    replay = Replay(root)
    try:
        got = replay.raw(crawled.stamps("/a%2Fb")[1], moved)
        assert (got.status, got.body) == (200, body("/a%2Fb", 2).encode())
    finally:
        replay.stop()
    # a compaction moves lines with their keys: standard ones
    with opened(project) as p:
        compact(p, names=[s.name for s in Segment.select()])
    assert_standard(project)


def test_recrawl_replay_rekeys_an_old_project_before_it_serves(crawled, tmp_path):
    project = as_old_version(crawled, tmp_path)
    server = ReplayServer(project)
    try:
        got = fetch(server.url(crawled.stamps("/a%2Fb")[1], crawled.url("/a%2Fb"), raw=True))
        assert (got.status, got.body) == (200, body("/a%2Fb", 2).encode())
    finally:
        server.stop()
    assert_standard(project)


def test_an_upgrade_that_fails_between_files_leaves_them_readable_and_the_next_finishes(
    crawled, tmp_path
):
    project = as_old_version(crawled, tmp_path)
    first, second = index_files(project)[:2]
    # the second index's temporary file cannot be written: the upgrade stops there
    blocker = second.with_name(second.name + ".tmp")
    blocker.mkdir()
    with opened(project) as opening:
        assert any("could not finish" in note and second.name in note for note in opening.notes)
        assert Setting.get(Setting.key == "index_keys").value == "legacy"
        for path in PATHS:  # found under either key meanwhile
            assert len(find_captures(project, crawled.url(path))) == 2
    for index in index_files(project):
        assert len(read_index(index).lines) == len(index.read_text().splitlines())
    keys = [line.split(" ", 1)[0] for line in second.read_text().splitlines()]
    assert keys == sorted(old_key(url_of(line)) for line in second.read_text().splitlines())
    assert all(
        line.split(" ", 1)[0] == surt.surt(url_of(line)) for line in first.read_text().splitlines()
    )
    blocker.rmdir()
    with opened(project) as reopening:
        assert any("re-keyed" in note for note in reopening.notes), reopening.notes
        assert Setting.get(Setting.key == "index_keys").value == "surt"
    assert_standard(project)


def test_on_postgresql_whoever_holds_the_project_rekeys_it(tmp_path, pg_url, server):
    """A shared store: opening (no worker writing) re-keys under the compaction lock."""
    server.html("/", home())
    for path in PATHS:
        server.html(route(server, path), body(path, 1))
    folder = tmp_path / "shared"
    project = Project.init(folder, db_url=pg_url)
    try:
        inject([server.url("/")], T0)
        crawl(project, clock=clock_at())
        store.set_setting(store.INDEX_KEYS, "legacy")  # as migration 11 leaves an old project
    finally:
        project.close()
    assert index_files(folder), list(folder.rglob("*"))
    for index in index_files(folder):
        lines = index.read_text(encoding="utf-8").splitlines()
        old = sorted(f"{old_key(url_of(line))} {line.split(' ', 1)[1]}" for line in lines)
        index.write_text("".join(f"{line}\n" for line in old), encoding="utf-8")
    reopened = Project.open(folder)
    try:
        assert store.get_setting(store.INDEX_KEYS) == "surt"
        assert any("re-keyed" in note for note in reopened.notes), reopened.notes
        for path in PATHS:
            assert len(find_captures(folder, canonical(server.url(path)))) == 1
    finally:
        reopened.close()
    assert_standard(folder)


def test_an_export_while_indexes_still_carry_old_keys_packages_standard_ones(crawled, tmp_path):
    """An upgrade that could not finish (or one under way in another process): the
    package's index is keyed as cdxj-indexer and pywb key it all the same."""
    project = as_old_version(crawled, tmp_path)
    second = index_files(project)[1]
    blocker = second.with_name(second.name + ".tmp")
    blocker.mkdir()
    out = tmp_path / "all.wacz"
    with opened(project):
        assert Setting.get(Setting.key == "index_keys").value == "legacy"
        export_wacz(project, out, ExportOptions(pages=ALL))
    with zipfile.ZipFile(out) as zf:
        lines = gzip.decompress(zf.read("indexes/index.cdx.gz")).decode().splitlines()
    assert lines == sorted(lines)
    assert {url_of(line) for line in lines} >= {crawled.url(p) for p in PATHS}
    for line in lines:
        assert line.split(" ", 1)[0] == surt.surt(url_of(line)), line
