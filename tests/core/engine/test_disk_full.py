"""A crawl into a full disk (issue 29 point 5): it stops with one line, nothing committed is
lost, read-only commands keep working on the full disk, and once space is freed the next
crawl recovers and finishes.

The disk is a tmpfs of a few MB (tests/support/small_disk.py: skipped without root), the
site a loopback server whose pages do not compress: the crawl fills the disk by itself.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from peewee import OperationalError
from recrawl.core import store
from recrawl.core.cli.entry import main
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.errors import DiskFull
from recrawl.core.project import Project
from recrawl.core.store.models import Page, PageStatus

from tests.support.consistency import check_project
from tests.support.crawling import crawl, fast_settings
from tests.support.httpserver import TestServer as Server
from tests.support.interrupted import recrawl
from tests.support.small_disk import fill, free, small_disk

PAGES = 120
#: Random hex: about half of it survives gzip, so each capture takes ~25 KB of the disk.
PAGE_BYTES = 50_000


def _site(server: Server) -> dict[str, bytes]:
    rng = random.Random(29)
    bodies = {}
    links = " ".join(f'<a href="/p{i}">{i}</a>' for i in range(PAGES))
    server.html("/", f"<html><body>{links}</body></html>")
    for i in range(PAGES):
        text = "".join(f"{rng.getrandbits(32):08x}" for _ in range(PAGE_BYTES // 8))
        server.html(f"/p{i}", f"<html><body><h1>page {i}</h1><p>{text}</p></body></html>")
    for path, reply in server.routes.items():
        bodies[server.url(path)] = reply.body  # type: ignore[union-attr]
    return bodies


def _one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("recrawl: error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def _urls(project: Path) -> tuple[dict[str, dict[str, object]], str]:
    done = recrawl("urls", project, "--json")
    assert "Traceback" not in done.stderr, done.stderr
    return {row["url"]: row for row in json.loads(done.stdout)}, done.stderr


@pytest.fixture
def disk(tmp_path: Path):
    # room for the crawl once freed: its WARCs, and its store with the pages' texts (search)
    with small_disk(tmp_path / "disk", "16M") as mounted:
        yield mounted


@pytest.mark.slow
def test_a_crawl_into_a_full_disk_stops_with_one_line_and_the_next_recovers(
    disk: Path, server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    bodies = _site(server)
    # at most ~20 pages a second (2 lanes of 0.1 s): the crawl commits (every second)
    # before it fills the disk, however fast the machine
    server.latency = 0.1
    project = disk / "proj"
    recrawl("init", project)
    recrawl("inject", project, server.url("/"))
    fill(disk, leave=1_500_000, name="other-files")  # the rest of someone's disk

    done = recrawl("crawl", project, "--delay", "0", "--per-host", "2", check=False)
    assert done.returncode != 0
    line = _one_error_line(done.stderr)
    assert line.startswith("recrawl: error: disk full: "), line
    assert line.endswith(f"free on {disk}; nothing committed is lost"), line

    # the disk stays full: what else is on it takes what the crawl left
    filler = fill(disk)
    pages, said = _urls(project)  # the first command recovers the crawl's open segment
    before = {url: row for url, row in pages.items() if row["status"] == "fetched"}
    assert len(before) > 1, "nothing was committed before the disk filled"
    assert len(before) < PAGES, "the disk never filled"
    assert "Traceback" not in said

    # read-only commands on a disk with no byte free
    fill(disk, name="more-files")
    assert free(disk) < 64 << 10
    # SQLite's WAL index is gone when its last writer closed cleanly (then the store
    # opens for reading only, and says so) or still there when the disk kept that close
    # from checkpointing (as when the recovery above filled it): either way it reads
    index_gone = not (project / "recrawl.sqlite-shm").exists()
    pages, said = _urls(project)
    assert {url for url, row in pages.items() if row["status"] == "fetched"} == set(before)
    if index_gone:
        assert "disk full" in said and "open for reading only" in said, said
    some = sorted(before)[-1]
    shown = recrawl("show", project, some)
    assert shown.stdout.encode() == bodies[some]
    at = recrawl("show", project, some, "--at", "2099-01-01")
    assert at.stdout == shown.stdout
    for command in (("news", project), ("segments", project), ("settings", project)):
        read = recrawl(*command)
        assert "Traceback" not in read.stderr and read.stdout, command
    exported = recrawl("export", project, disk.parent / "elsewhere.wacz")  # another disk
    assert "Traceback" not in exported.stderr and (disk.parent / "elsewhere.wacz").stat().st_size
    # a command that writes says so in one line
    added = recrawl("inject", project, server.url("/more"), check=False)
    assert added.returncode != 0
    assert "disk full: " in _one_error_line(added.stderr)
    crawled = recrawl("crawl", project, "--delay", "0", check=False)
    assert crawled.returncode != 0
    assert "disk full: " in _one_error_line(crawled.stderr)

    # space freed: the next crawl finishes what the full disk stopped
    filler.unlink()
    (disk / "more-files").unlink()
    (disk / "other-files").unlink()
    server.latency = 0.0
    recrawl("crawl", project, "--delay", "0", "--per-host", "4")
    pages, _ = _urls(project)
    assert {row["status"] for row in pages.values()} == {"fetched"}
    assert len(pages) == PAGES + 1
    for url, row in before.items():  # committed before the disk filled: untouched since
        assert pages[url]["last_fetched"] == row["last_fetched"], url

    def show(url: str) -> bytes:
        capsys.readouterr()
        assert main(["show", str(project), url]) == 0
        return capsys.readouterr().out.encode()

    captures = check_project(project, show, lambda url, _at: bodies[url])
    assert set(captures.values()) == {1}  # nothing captured twice


def test_the_store_filling_the_disk_mid_crawl_stops_it_and_the_next_crawl_recovers(
    project: Project, server: Server, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """SQLite's "database or disk is full" on a commit (here injected: which write meets
    the full disk first is the machine's choice): the crawl ends with DiskFull, no later
    batch is committed, its segment keeps only what was, and the next crawl finishes."""
    for i in range(40):
        links = " ".join(f'<a href="/p{j}">{j}</a>' for j in range(40))
        server.html(f"/p{i}", f"<html><body><h1>page {i}</h1>{links}</body></html>")
    server.latency = 0.01
    inject([server.url("/p0")], utcnow())
    settings = fast_settings(commit_every=3, commit_seconds=0.05)
    commits = 0
    real = store.commit_batch

    def filling(*args: object, **kwargs: object) -> int:
        nonlocal commits
        commits += 1
        if commits >= 6:  # this batch and every later one: the disk stays full
            raise OperationalError("database or disk is full")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "commit_batch", filling)
    with pytest.raises(DiskFull) as raised:
        crawl(project, settings)
    assert str(raised.value).endswith("; nothing committed is lost")
    assert commits == 6, "a batch after the one that failed was tried"  # CommitPipeline.failed
    monkeypatch.undo()
    before = {p.url: p.last_fetched for p in Page.select() if p.status == PageStatus.FETCHED}
    assert 1 < len(before) < 40

    summary = crawl(project, settings)
    assert summary.fetched == 40 - len(before)
    after = {p.url: p.last_fetched for p in Page.select()}
    assert len(after) == 40 and all(after[url] == at for url, at in before.items())
    project.close()

    def show(url: str) -> bytes:
        capsys.readouterr()
        assert main(["show", str(project.path), url]) == 0
        return capsys.readouterr().out.encode()

    captures = check_project(project.path, show)
    assert set(captures.values()) == {1}
