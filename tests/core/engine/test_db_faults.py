"""A crawl on PostgreSQL outlives its database server's faults (docs/design.md §12): the server
restarted mid-crawl, the network to it cut for 30 s. The crawl waits, reconnects and
finishes; every page is fetched once, every committed row reads back, nothing is
captured twice (core/store/reconnect.py)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.cli import main
from recrawl.core.clock import utcnow
from recrawl.core.engine import Crawler, CrawlSummary, inject
from recrawl.core.project import Project
from recrawl.core.store.models import FetchEvent, Page, PageStatus

from tests.support.consistency import check_project
from tests.support.crawling import Events, fast_settings
from tests.support.dbproxy import CutProxy

PAGES = 80
#: Answers the site gives before the fault strikes: the crawl is well under way.
BEFORE_FAULT = 20
CUT_S = 30.0


def _site(server) -> None:
    rng = random.Random(5)
    for i in range(PAGES):
        targets = {(i + 1) % PAGES, (i + 2) % PAGES, *(rng.randrange(PAGES) for _ in range(3))}
        links = " ".join(f'<a href="/p{t}">p{t}</a>' for t in sorted(targets))
        server.html(f"/p{i}", f"<html><body><h1>page {i}</h1>{links}</body></html>")
    server.latency = 0.04  # the crawl lasts a few seconds: the fault finds it at work


def _settings():
    base = fast_settings(commit_every=4, commit_seconds=0.05)
    # the loop's store reads wait for the server meanwhile: a fetch in flight must not
    # time out then (a timed-out fetch is tried again, which this test would count)
    fetch = replace(base.fetch, read_timeout=120.0, total_timeout=None)
    return replace(base, fetch=fetch, sources=replace(base.sources, enabled=False))


class CrawlThread:
    """A crawl running on its own thread while the test breaks its database."""

    def __init__(self, project: Project) -> None:
        self.events = Events()
        self.crawler = Crawler(project, _settings(), observer=self.events)
        self.summary: CrawlSummary | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="crawl")
        self._thread.start()

    def _run(self) -> None:
        try:
            self.summary = self.crawler.run()
        except BaseException as exc:  # handed to the test
            self.error = exc

    def running(self) -> bool:
        return self._thread.is_alive()

    def finish(self) -> CrawlSummary:
        self._thread.join(timeout=300)
        assert not self._thread.is_alive(), "the crawl hangs"
        if self.error is not None:
            raise self.error
        assert self.summary is not None
        return self.summary


class SiteCrawl:
    """The site crawled into a new project while the test breaks its database; then
    :meth:`check` asserts what must hold."""

    def __init__(self, root: Path, server, capsys) -> None:
        self.root, self.server, self.capsys = root, server, capsys
        _site(server)
        self.crawl: CrawlThread | None = None

    def start(self, db_url: str) -> None:
        project = Project.init(self.root, db_url=db_url)
        inject([self.server.url("/p0")], utcnow())
        self.crawl = CrawlThread(project)
        assert self.server.wait_hits(BEFORE_FAULT), "the crawl did not start"
        assert self.crawl.running(), "the crawl ended before the fault"

    def check(self) -> None:
        assert self.crawl is not None
        summary = self.crawl.finish()
        self.crawl.crawler.project.close()
        assert not summary.stopped and summary.fetched == PAGES
        logs = [e.text for e in self.crawl.events.logs("warning")]
        assert any(t.startswith("lost the database: ") for t in logs), logs
        assert any(t.startswith("the database is back after ") for t in logs), logs

        # every page fetched once: by the site's count, and by the store's
        hits = Counter(path for path, _ in self.server.hits if path.startswith("/p"))
        assert set(hits) == {f"/p{i}" for i in range(PAGES)}
        assert set(hits.values()) == {1}, {p: n for p, n in hits.items() if n > 1}

        def show(url: str) -> bytes:
            self.capsys.readouterr()
            assert main(["show", str(self.root), url]) == 0
            return self.capsys.readouterr().out.encode()

        # every committed row reads back, no capture twice (WARCs, indexes, rows agree)
        captures = check_project(self.root, show)
        assert set(captures.values()) == {1} and len(captures) == PAGES
        project = Project.open(self.root)
        try:
            assert Page.select().where(Page.status != PageStatus.FETCHED).count() == 0
            events = Counter(e.page_id for e in FetchEvent.select(FetchEvent.page))
            assert len(events) == PAGES and set(events.values()) == {1}
            # a crawl on PostgreSQL is a worker (§12): its leases and heartbeat outlived
            # the fault too, and it ended cleanly with every page counted
            (worker,) = store.list_workers()
            assert worker.state == "ended" and worker.fetched == PAGES
            assert worker.leased_hosts == 0
        finally:
            project.close()


@pytest.fixture
def site_crawl(tmp_path: Path, server, capsys) -> SiteCrawl:
    return SiteCrawl(tmp_path / "proj", server, capsys)


@pytest.mark.slow
def test_postgres_restarted_mid_crawl(site_crawl, pg_cluster, pg_url):
    site_crawl.start(pg_url)
    pg_cluster.restart()  # its sessions are ended: each of the crawl's threads finds out
    site_crawl.check()


@pytest.mark.slow
def test_network_to_postgres_cut_for_30s(site_crawl, pg_cluster, pg_url):
    proxy = CutProxy(pg_cluster.port)
    try:
        site_crawl.start(proxy.url(pg_url))
        proxy.cut()
        threading.Event().wait(CUT_S)  # the cut's length, not a synchronisation
        assert site_crawl.crawl is not None and site_crawl.crawl.running()
        # the keepalives of both ends gave up on the connections by now (dbproxy.py)
        proxy.restore(drop=True)
        site_crawl.check()
    finally:
        proxy.close()
