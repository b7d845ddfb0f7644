"""The search index's background build (docs/design.md §19): a project crawled without
indexing gets the texts a crawl with indexing would have given it, read from its WARCs,
in batches a stop leaves committed and a next build resumes; an index of an older format
is cleared and rebuilt; the index stays true through compaction, a fold and a signature
switch."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.archive.compaction import auto as auto_compaction
from recrawl.core.archive.search import search
from recrawl.core.archive.search_build import ensure_search_index
from recrawl.core.config import CompactionSettings, SearchSettings
from recrawl.core.engine import inject
from recrawl.core.engine.re_signing import switch_signature
from recrawl.core.project import Project
from recrawl.core.store.models import Capture, SearchDoc, SearchVersion
from recrawl.core.store.search import COMPLETE, STALE, search_state, set_search_state

from recrawl.main import main
from tests.support import httpserver
from tests.support.crawling import DAY, T0, clock_at, crawl, fast_settings
from tests.support.search_index import indexed_versions, page_versions

ROUNDS = 5
SENTENCE = "The harbour wall will close for repairs"
PATHS = ["/news", "/other", "/static", "/notes.txt"]


def _body(path: str, r: int) -> str:
    if path == "/notes.txt":
        return f"tide tables\nlow water at {r // 2} o'clock\n"
    extra = f"<p>{SENTENCE}.</p>" if path == "/news" and r in (1, 2) else ""
    version = {"/other": r}.get(path, 0)
    return (
        f"<html><head><title>{path[1:]} page</title></head><body><p>version {version}</p>"
        f"{extra}<a href=/news>n</a><a href=/other>o</a><a href=/static>s</a>"
        "<a href=/notes.txt>t</a></body></html>"
    )


@pytest.fixture(scope="module")
def site() -> Iterator[httpserver.TestServer]:
    server = httpserver.TestServer().start()
    yield server
    server.stop()


def _crawl(folder: Path, site: httpserver.TestServer, index: bool, db_url: str | None = None):
    project = Project.init(folder, db_url=db_url)
    settings = replace(fast_settings(), search=SearchSettings(index=index))
    try:
        inject([site.url("/news")], T0)
        for r in range(ROUNDS):
            for path in PATHS:
                if path.endswith(".txt"):
                    site.routes[path] = httpserver.Reply(
                        200, _body(path, r).encode(), {"Content-Type": "text/plain"}
                    )
                else:
                    site.html(path, _body(path, r))
            crawl(project, settings, clock=clock_at(r * 30 * DAY))
    finally:
        project.close()


@pytest.fixture(scope="module")
def templates(tmp_path_factory, site) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("search-build")
    _crawl(root / "on", site, True)
    _crawl(root / "off", site, False)
    return root / "on", root / "off"


@pytest.fixture
def indexed(templates, tmp_path) -> Path:
    return Path(shutil.copytree(templates[0], tmp_path / "on"))


@pytest.fixture
def unindexed(templates, tmp_path) -> Path:
    return Path(shutil.copytree(templates[1], tmp_path / "off"))


QUERIES = [f'"{SENTENCE}"', "version", "low water", "page", "harb*", "version -harbour"]


def _answers(folder: Path) -> dict[str, list[tuple]]:
    """What search says to each query: per page, its title, snippet and times."""
    project = Project.open(folder)
    try:
        return {
            query: sorted(
                (h.url, h.title, h.snippet, h.first_seen, h.last_seen, h.gone_at, h.captures)
                for h in search(query).hits
            )
            for query in QUERIES
        }
    finally:
        project.close()


def test_the_build_gives_what_the_crawls_would_have_indexed(indexed, unindexed, site):
    expected = _answers(indexed)
    news = [hit for hit in expected[f'"{SENTENCE}"']]
    assert [hit[0] for hit in news] == [site.url("/news")]
    assert news[0][5] is not None  # gone at round 3
    project = Project.open(unindexed)
    try:
        assert search_state().state == STALE and indexed_versions() == set()
        said: list[str] = []
        seen: list[tuple[int, int]] = []
        report = ensure_search_index(unindexed, lambda d, t: seen.append((d, t)), say=said.append)
        total = len(page_versions())
        assert said == [
            f"indexing {total:,} page versions captured before the search index existed…"
        ]
        assert report.line == said[0] and report.complete and report.unreadable == 0
        assert (report.total, report.done) == (total, total)
        assert seen[0] == (0, total) and seen[-1] == (total, total)
        assert search_state().state == COMPLETE
        assert indexed_versions() == page_versions()
        # nothing more to do: no line, no work
        assert ensure_search_index(unindexed).line is None
    finally:
        project.close()
    assert _answers(unindexed) == expected


def test_a_stopped_build_keeps_its_batches_and_the_next_resumes(unindexed):
    project = Project.open(unindexed)
    try:
        total = len(page_versions())
        calls: list[tuple[int, int]] = []

        def stop() -> bool:
            return len(calls) >= 3  # after two batches

        first = ensure_search_index(unindexed, lambda d, t: calls.append((d, t)), stop, batch=2)
        assert first.stopped and first.done == 4 and len(indexed_versions()) == 4
        assert search_state().state == STALE
        second = ensure_search_index(unindexed, batch=2)
        assert second.complete and second.total == total - 4
        assert second.line == f"indexing {total - 4:,} page versions the search index lacks…"
        assert indexed_versions() == page_versions() and search_state().state == COMPLETE
    finally:
        project.close()


def test_an_index_of_an_older_format_is_cleared_and_rebuilt(indexed):
    project = Project.open(indexed)
    try:
        before = indexed_versions()
        SearchVersion.update(title="made by an older tokenizer").execute()
        set_search_state(COMPLETE, 0)  # the format before any this version knows
        report = ensure_search_index(indexed)
        assert report.rebuilt
        assert report.line == "the search index was made by an older Recrawl: rebuilding it"
        assert indexed_versions() == before and search_state().complete
        assert not SearchVersion.select().where(SearchVersion.title.contains("older")).exists()
    finally:
        project.close()


def test_a_version_whose_warc_is_gone_is_counted_and_the_rest_indexed(unindexed):
    project = Project.open(unindexed)
    try:

        def pairs(where) -> set[tuple[str, str]]:
            query = Capture.select(Capture.url, Capture.digest).where(where)
            return set(query.where(Capture.mime != "warc/revisit").tuples())

        # a version archived whole again in a later file (a page changed back) is read there
        files = [file for (file,) in Capture.select(Capture.file).distinct().tuples()]
        lost_in = {
            file: (pairs(Capture.file == file) - pairs(Capture.file != file)) & page_versions()
            for file in files
        }
        first = next((file,) for file in sorted(files) if lost_in[file])
        lost = lost_in[first[0]]
        (unindexed / first[0]).unlink()
        report = ensure_search_index(unindexed)
        assert report.unreadable == len(lost) > 0
        assert indexed_versions() == page_versions() - lost
        assert search_state().state == COMPLETE
    finally:
        project.close()


def test_search_finds_the_same_after_compaction_a_fold_and_a_signature_switch(indexed, capsys):
    expected = _answers(indexed)
    project = Project.open(indexed)
    try:
        files = {row.file for row in Capture.select()}
        folds = auto_compaction.due(CompactionSettings(), T0 + 400 * DAY)
        assert folds
        for due in folds:
            assert auto_compaction.fold(indexed, due, lambda: False).outcome == auto_compaction.DONE
        # the captures moved files; their texts are keyed by URL and digest
        assert {row.file for row in Capture.select()} != files
    finally:
        project.close()
    assert _answers(indexed) == expected
    assert main(["compact", str(indexed), "--below", "1"]) == 0
    assert _answers(indexed) == expected
    project = Project.open(indexed)
    try:
        switch_signature(indexed, "text-profile")
        assert search_state().complete
        assert indexed_versions() == page_versions()
    finally:
        project.close()
    assert _answers(indexed) == expected
    capsys.readouterr()


def test_on_postgresql_too(tmp_path, site, pg_url):
    folder = tmp_path / "pg"
    _crawl(folder, site, True, pg_url)
    project = Project.open(folder)
    try:
        indexed = indexed_versions()
        assert indexed == page_versions() and search_state().complete
        # the build on PostgreSQL: the index emptied, made again from the WARCs
        with store.transaction():
            SearchVersion.delete().execute()
            SearchDoc.delete().execute()
            set_search_state(STALE)
        report = ensure_search_index(folder)
        assert report.complete and indexed_versions() == indexed
        (hit,) = search(f'"{SENTENCE}"').hits
        assert hit.url == site.url("/news") and hit.gone_at is not None
    finally:
        project.close()
