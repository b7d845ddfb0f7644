"""Crawl workers on a shared PostgreSQL store (docs/design.md §12): real ``recrawl worker``
processes crawling a real site over eight loopback hosts."""

from __future__ import annotations

import json
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.archive.segments import read_payload
from recrawl.core.project import Project
from recrawl.core.store.models import FetchEvent, Page, PageStatus, Segment, Worker
from warcio.archiveiterator import ArchiveIterator

from tests.support.interrupted import recrawl, start, watchdog
from tests.support.multisite import MultiHostSite, wait_until

LEASE = "3s"
WORKER_OPTIONS = ("--until-idle", "--json", "--delay", "0", "--timeout", "5")
KEYS = {"name", "pid", "machine", "started_at", "heartbeat_at", "leased_hosts", "pages_per_s"}


@pytest.fixture
def site() -> Iterator[MultiHostSite]:
    served = MultiHostSite(hosts=8, pages=8)
    yield served
    served.stop()


def _project(tmp_path: Path, site: MultiHostSite, db: list[str]) -> Path:
    folder = tmp_path / "shared"
    recrawl("init", folder, *db)
    recrawl(
        "settings",
        folder,
        "--set",
        f"workers.lease_seconds={LEASE}",
        "--set",
        "watch.round_gap=0s",
        "--set",
        "sources.enabled=false",
    )
    recrawl("inject", folder, *site.roots())
    return folder


def _captures(folder: Path) -> Counter[str]:
    """Response and revisit records per URL over every WARC of the project."""
    seen: Counter[str] = Counter()
    for path in sorted((folder / "segments").glob("*/*.warc.gz*")):
        with open(path, "rb") as fh:
            for record in ArchiveIterator(fh):
                if record.rec_type in ("response", "revisit"):
                    seen[record.rec_headers.get_header("WARC-Target-URI")] += 1
    return seen


def _check_crawled_once(folder: Path, site: MultiHostSite) -> None:
    """Every URL of the site fetched, captured exactly once, its capture readable."""
    expected = set(site.all_urls())
    captures = _captures(folder)
    assert set(captures) == expected
    assert [url for url, n in captures.items() if n != 1] == []
    project = Project.open(folder)
    try:
        pages = list(Page.select())
        assert {p.url for p in pages} == expected
        assert all(p.status == PageStatus.FETCHED for p in pages)
        events = Counter(e.page_id for e in FetchEvent.select())
        assert all(events[p.id] == 1 for p in pages), "a page fetched twice"
        for p in pages:
            assert p.payload_file is not None and p.payload_offset is not None
            assert read_payload(folder, p.payload_file, p.payload_offset).url == p.url
        assert list(Segment.select().where(Segment.state == "open")) == []
    finally:
        project.close()


@pytest.mark.slow
def test_two_workers_crawl_a_site_once_each_host_by_one_at_a_time(tmp_path, site, pg_url):
    folder = _project(tmp_path, site, ["--db", pg_url])
    site.latency = 0.01
    site.hold()  # until both run: each then gets hosts of its own
    workers = [start("worker", folder, "--name", name, *WORKER_OPTIONS) for name in "ab"]
    with watchdog(workers[0]), watchdog(workers[1]):
        project = Project.open(folder)
        try:
            assert wait_until(lambda: Worker.select().count() == 2)
        finally:
            project.close()
        site.release()
        outputs = [child.communicate() for child in workers]
    for child, (out, err) in zip(workers, outputs, strict=True):
        assert child.returncode == 0, err
        for line in out.splitlines():
            assert set(json.loads(line)) >= {"started_at", "fetched", "next_due_at"}
    assert site.overlaps == []
    _check_crawled_once(folder, site)
    names = [p.name for p in (folder / "segments").iterdir()]
    assert {name.rsplit("-", 1)[1] for name in names} == {"a", "b"}, names

    listed = json.loads(recrawl("workers", folder, "--json").stdout)
    assert [w["name"] for w in listed] == ["a", "b"]
    assert all(set(w) == KEYS for w in listed)
    assert all(w["started_at"].endswith("Z") and w["leased_hosts"] == 0 for w in listed)
    assert "ended" in recrawl("workers", folder).stdout


@pytest.mark.slow
def test_a_worker_killed_mid_batch_loses_its_hosts_to_another(tmp_path, site, pg_url):
    folder = _project(tmp_path, site, ["--db", pg_url])
    site.latency = 0.05
    victim = start("worker", folder, "--name", "victim", *WORKER_OPTIONS)
    with watchdog(victim):
        project = Project.open(folder)
        try:
            # mid-batch: some fetches committed, and more answered since
            assert wait_until(
                lambda: (
                    FetchEvent.select().where(FetchEvent.segment.endswith("-victim")).count() > 0
                )
            )
            assert site.wait_served(site.served + 5)
            victim.send_signal(signal.SIGKILL)
            victim.communicate()
            committed = {
                (p.url, p.capture_file, p.capture_offset)
                for p in Page.select().where(Page.capture_file.is_null(False))
            }
            assert committed, "nothing committed before the kill"
            assert Segment.select().where(Segment.state == "open").count() == 1
        finally:
            project.close()
        assert (folder / "segments").glob("*-victim/*.open")
    heir = start("worker", folder, "--name", "heir", *WORKER_OPTIONS)
    with watchdog(heir):
        _out, err = heir.communicate()
    assert heir.returncode == 0, err
    assert "recovered segment" in err
    _check_crawled_once(folder, site)
    project = Project.open(folder)
    try:
        # what was committed before the kill still reads back, from the victim's segment
        for url, relpath, offset in committed:
            assert read_payload(folder, relpath, offset).url == url
        assert {w.name: w.state for w in store.list_workers()} == {
            "heir": "ended",
            "victim": "dead",
        }
    finally:
        project.close()


def test_a_live_name_is_refused_with_one_line(tmp_path, site, pg_url):
    folder = _project(tmp_path, site, ["--db", pg_url])
    site.hold()  # the first worker stays busy
    first = start("worker", folder, "--name", "same", "--json")
    with watchdog(first):
        project = Project.open(folder)
        try:
            assert wait_until(lambda: Worker.select().count() == 1)
        finally:
            project.close()
        second = recrawl("worker", folder, "--name", "same", check=False)
        assert second.returncode != 0
        assert second.stderr.count("\n") == 1
        assert "'same' is running already" in second.stderr
        first.send_signal(signal.SIGTERM)
        site.release()
        first.communicate()
    assert first.returncode == 0


def test_on_sqlite_one_worker_works_and_a_second_is_refused(tmp_path, site):
    folder = _project(tmp_path, site, [])
    site.hold()
    first = start("worker", folder, "--name", "one", "--until-idle", "--delay", "0")
    with watchdog(first):
        assert wait_until(lambda: "watch, pid" in _lock_text(folder))
        second = recrawl("worker", folder, "--name", "two", check=False)
        assert second.returncode != 0
        assert "watched by pid" in second.stderr
        site.release()
        out, err = first.communicate()
    assert first.returncode == 0, err
    assert "worker one:" in out
    _check_crawled_once(folder, site)


def _lock_text(folder: Path) -> str:
    try:
        return (folder / "recrawl.lock").read_text()
    except FileNotFoundError:
        return ""
