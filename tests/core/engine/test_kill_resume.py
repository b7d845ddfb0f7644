"""A crawl killed with SIGKILL mid-round loses nothing committed and never captures twice."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from recrawl.core.clock import utcnow
from recrawl.core.engine import LogMessage, inject
from recrawl.core.store.models import Baseline, FetchEvent, News, Page, PageStatus, Segment
from warcio.archiveiterator import ArchiveIterator

from tests.support.crawling import crawl
from tests.support.warcs import warcio_check

PAGES = 150

CRAWL_SCRIPT = """
import sys
from dataclasses import replace
from recrawl.core.engine import Crawler
from recrawl.core.project import Project
from tests.support.crawling import fast_settings
project = Project.open(sys.argv[1])
Crawler(project, replace(fast_settings(), commit_every=7, commit_seconds=0.05)).run()
"""


def _site(server) -> None:
    rng = random.Random(7)
    for i in range(PAGES):
        targets = {(i + 1) % PAGES, (i + 2) % PAGES, *(rng.randrange(PAGES) for _ in range(3))}
        links = " ".join(f'<a href="/p{t}">p{t}</a>' for t in sorted(targets))
        server.html(f"/p{i}", f"<html><body><h1>page {i}</h1>{links}</body></html>")


def _warc_responses(project_dir: Path) -> Counter[str]:
    seen: Counter[str] = Counter()
    for path in sorted((project_dir / "segments").glob("*/*.warc.gz")):
        with open(path, "rb") as fh:
            for record in ArchiveIterator(fh):
                if record.rec_type in ("response", "revisit"):
                    seen[record.rec_headers.get_header("WARC-Target-URI")] += 1
    return seen


@pytest.mark.slow
def test_sigkill_mid_round_then_resume(project, server):
    _site(server)
    server.latency = 0.004
    inject([server.url("/p0")], utcnow())
    root = Path(__file__).resolve().parents[3]
    rng = random.Random(11)
    kills = 0
    for _ in range(4):
        start = len(server.hits)
        child = subprocess.Popen([sys.executable, "-c", CRAWL_SCRIPT, str(project.path)], cwd=root)
        # Kill once the child is somewhere inside a round: after a random number of answers.
        target = start + rng.randrange(5, 40)
        reached = server.wait_hits(target, while_running=child)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        if reached:
            kills += 1
    assert kills >= 3, "the child crawls finished before they could be killed"

    events: list = []
    summary = crawl(project, observer=events.extend)  # recovers, then finishes the crawl
    assert summary.fetched > 0
    assert any(isinstance(e, LogMessage) and "recovered segment" in e.text for e in events)

    pages = list(Page.select())
    assert len(pages) == PAGES
    assert all(p.status == PageStatus.FETCHED for p in pages)
    # exactly one fetch event and one capture per page, whatever was killed where
    events = Counter(ev.page_id for ev in FetchEvent.select())
    assert set(events.values()) == {1}
    # and each page counted once in the site's first crawl, its one news item (docs/design.md
    # §15): written with its event, whatever was killed where
    (baseline,) = Baseline.select()
    assert (baseline.pages, baseline.last_page is not None) == (PAGES, True)
    assert [item.kind for item in News.select()] == ["baseline"]
    captures = _warc_responses(project.path)
    assert set(captures.values()) == {1}
    assert set(captures) == {p.url for p in pages}
    # every segment closed, named in the store, and valid WARC
    assert all(s.state == "closed" for s in Segment.select())
    assert not list((project.path / "segments").glob("*/*.open"))
    warcs = sorted((project.path / "segments").glob("*/*.warc.gz"))
    assert warcs
    checked = warcio_check(*warcs)
    assert checked.returncode == 0, checked.stdout + checked.stderr
