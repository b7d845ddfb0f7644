"""Crawl runs: each crawl records its start and end; a killed one reads as never ended."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import Crawler, inject
from recrawl.core.project import Project
from recrawl.core.store.migrations import SCHEMA_VERSION, current_version
from recrawl.core.store.models import DB, CrawlRun, FetchEvent

from tests.support.crawling import T0, clock_at, crawl, fast_settings
from tests.support.httpserver import Reply

DATA = Path(__file__).resolve().parents[2] / "data"
ROOT = Path(__file__).resolve().parents[3]

CRAWL_SCRIPT = """
import sys
from dataclasses import replace
from recrawl.core.engine import Crawler
from recrawl.core.project import Project
from tests.support.crawling import fast_settings
project = Project.open(sys.argv[1])
settings = fast_settings()
settings = replace(settings, politeness=replace(settings.politeness, per_host=1),
                   commit_every=3, commit_seconds=0.05)
Crawler(project, settings).run()
"""


def test_a_schema_1_store_gains_the_crawl_runs_table(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(DATA / "schema-1.sqlite", folder / "recrawl.sqlite")
    project = Project.open(folder)
    try:
        assert current_version(DB.obj) == SCHEMA_VERSION
        assert "crawl_run" in DB.get_tables()
        assert store.last_crawl_run() is None  # its crawls ran before runs were recorded
        run = store.begin_crawl_run(T0)
        assert store.last_crawl_run().id == run
    finally:
        project.close()


def test_a_crawl_records_its_run_with_the_summarys_counts(project, server):
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", "a")
    server.routes["/b"] = Reply(500, b"broken")
    inject([server.url("/")], T0)
    assert store.last_crawl_run() is None
    summary = crawl(project, clock=clock_at())
    run = store.last_crawl_run()
    assert run is not None and run.ended
    assert run.started_at >= T0 and run.ended_at >= run.started_at
    assert (run.rounds, run.fetched, run.errors, run.new_urls, run.stopped) == (
        summary.rounds,
        summary.fetched,
        summary.errors,
        summary.new_urls,
        False,
    )
    assert (run.fetched, run.errors) == (2, 1)


def test_a_stopped_crawl_says_so(project, server):
    server.html("/", "home")
    inject([server.url("/")], T0)
    crawler = Crawler(project, fast_settings(), clock=clock_at())
    crawler.stop()
    crawler.run()
    run = store.last_crawl_run()
    assert run.ended and run.stopped and run.fetched == 0
    assert CrawlRun.select().count() == 1


@pytest.mark.slow
@pytest.mark.parametrize("store_kind", ["sqlite"])  # a kill is a kill: once is enough
def test_a_killed_crawl_leaves_a_run_without_end_counted_from_its_fetches(project, server):
    server.latency = 0.01
    for i in range(80):
        server.html(f"/p{i}", f'<a href="/p{i + 1}">next</a>')
    inject([server.url("/p0")], utcnow())
    project.close()
    child = subprocess.Popen([sys.executable, "-c", CRAWL_SCRIPT, str(project.path)], cwd=ROOT)
    try:
        assert server.wait_hits(25, while_running=child), "the child crawl never got going"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    again = Project.open(project.path)
    try:
        run = store.last_crawl_run()
        assert run is not None and not run.ended
        assert run.pid == child.pid
        committed = FetchEvent.select().count()
        assert committed > 0
        # what it committed before it died: every fetch answered, none failed
        assert (run.fetched, run.errors) == (committed, 0)
    finally:
        again.close()
