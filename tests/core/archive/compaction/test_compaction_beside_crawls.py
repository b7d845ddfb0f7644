"""Compaction beside crawls on a shared PostgreSQL store (docs/design.md §7, §12): crawls take
no project lock there, so a crawl may commit while a compaction runs. A page a crawl
re-captured between the compaction's plan and its commit keeps its new capture; a
revisit that read its page before a compaction and commits after it keeps the payload
pointer the compaction moved."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from recrawl.core.archive.compaction import compact
from recrawl.core.archive.segments import read_payload
from recrawl.core.engine import inject
from recrawl.core.project import Project
from recrawl.core.store.models import Page, Segment

from tests.support import httpserver
from tests.support.crawling import DAY, T0, clock_at, settings
from tests.support.crawling import crawl as crawl_now

#: A crawl here may wait on the test (a held answer): no fetch times out meanwhile.
PATIENT = settings(read_timeout=300.0, total_timeout=None)


@pytest.fixture
def site() -> Iterator[httpserver.TestServer]:
    server = httpserver.TestServer().start()
    yield server
    server.stop()


@pytest.fixture
def project(tmp_path, pg_url) -> Iterator[Project]:
    proj = Project.init(tmp_path / "shared", db_url=pg_url)
    yield proj
    proj.close()


def _round(project: Project, site: httpserver.TestServer, r: int) -> threading.Thread:
    """Round ``r`` (/a's version ``r``, /b unchanged) on a thread of its own: its own
    database connection, as another worker's."""
    site.html("/a", f"<p>a version {r}</p>")
    failed: list[BaseException] = []

    def run() -> None:
        try:
            crawl_now(project, PATIENT, clock=clock_at(r * 100 * DAY))
        except BaseException as exc:  # the test's thread says it
            failed.append(exc)
        finally:
            from recrawl.core.store import close_database

            close_database()

    thread = threading.Thread(target=run, name=f"round-{r}")
    thread.failed = failed  # type: ignore[attr-defined]
    thread.start()
    return thread


def _finish(thread: threading.Thread) -> None:
    thread.join()
    assert not thread.failed, thread.failed  # type: ignore[attr-defined]


def _page(url: str) -> Page:
    return Page.get(Page.url == url)


def _body(project: Project, file: str | None, offset: int | None) -> bytes:
    assert file is not None and offset is not None
    return read_payload(project.path, file, offset).body


def test_a_page_recaptured_between_plan_and_commit_keeps_its_new_capture(project, site):
    a, b = site.url("/a"), site.url("/b")
    site.html("/b", "<p>b, always the same</p>")
    inject([a, b], T0)
    for r in range(2):  # round 1 revisits /b: its payload stays in round 0's segment
        _finish(_round(project, site, r))
    old = sorted(s.name for s in Segment.select())
    assert len(old) == 2 and _page(b).payload_segment == old[0]

    def progress(report) -> None:
        if report.phase == "commit":  # planned and copied: a crawl commits now
            _finish(_round(project, site, 2))

    summary = compact(project, names=old, progress=progress)
    new = summary.new_segment
    assert new is not None and summary.compacted == old
    # /a's capture and payload and /b's capture were re-captured: they stay on round 2's
    assert summary.recaptured_meanwhile == 3
    page_a, page_b = _page(a), _page(b)
    latest = page_a.segment
    assert latest not in (new, *old)
    assert b"a version 2" in _body(project, page_a.capture_file, page_a.capture_offset)
    assert page_b.segment == latest  # its round-2 revisit
    # the payload round 2's revisit refers to moved, and /b followed it
    assert page_b.payload_segment == new
    assert b"b, always the same" in _body(project, page_b.payload_file, page_b.payload_offset)
    assert {s.name for s in Segment.select()} == {new, latest}


def test_a_revisit_read_before_a_compaction_keeps_the_moved_payload(project, site):
    a, b = site.url("/a"), site.url("/b")
    site.html("/b", "<p>b, always the same</p>")
    inject([a, b], T0)
    _finish(_round(project, site, 0))
    [first] = [s.name for s in Segment.select()]
    fetching, compacted = threading.Event(), threading.Event()

    def held(_handler) -> httpserver.Reply:
        fetching.set()
        compacted.wait(300)
        return httpserver.Reply(body=b"<p>b, always the same</p>")

    site.routes["/b"] = held
    crawl = _round(project, site, 1)  # it read /b's page (payload in round 0's) already
    assert fetching.wait(300)
    try:
        summary = compact(project, names=[first])
    finally:
        compacted.set()
    _finish(crawl)
    new = summary.new_segment
    assert new is not None and summary.compacted == [first]
    page_b = _page(b)
    assert page_b.segment not in (first, new)  # its round-1 revisit, committed last
    assert page_b.payload_segment == new  # not round 0's, gone with the compaction
    assert b"b, always the same" in _body(project, page_b.payload_file, page_b.payload_offset)
    assert Segment.get_or_none(Segment.name == page_b.payload_segment) is not None
