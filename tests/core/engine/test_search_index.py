"""The search index kept by the crawl's commits (docs/design.md §19): one text a new
version of a page, under the URL and payload digest its capture has in the capture
table; revisits, embeds and bodies without text add none; ``search.index`` off adds none
and marks the index stale."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.archive.search import search
from recrawl.core.clock import utcnow
from recrawl.core.config import SearchSettings
from recrawl.core.content.search_text import document_of
from recrawl.core.engine import inject
from recrawl.core.store.models import Capture, Page, SearchDoc
from recrawl.core.store.search import COMPLETE, STALE, search_state

from tests.support.crawling import DAY, clock_at, crawl, fast_settings
from tests.support.httpserver import Reply
from tests.support.search_index import indexed_versions, page_versions

SENTENCE = "The harbour wall will close for repairs."
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _article(r: int) -> str:
    # the sentence appears in round 1 and goes in round 3; round 2 is fetched unchanged
    extra = f"<p>{SENTENCE}</p>" if r in (1, 2) else ""
    return (
        "<html><head><title>Harbour news</title><link rel=stylesheet href=/s.css></head>"
        f"<body><h1>News</h1><p>The quay is open.</p>{extra}<img src=/i.png>"
        "<a href=/notes.txt>notes</a><a href=/pic.png>pic</a></body></html>"
    )


def test_a_crawl_indexes_each_new_version_once_under_its_capture_digest(project, server):
    server.routes["/s.css"] = Reply(200, b"body{color:red}", {"Content-Type": "text/css"})
    server.routes["/i.png"] = Reply(200, PNG, {"Content-Type": "image/png"})
    server.routes["/pic.png"] = Reply(200, PNG, {"Content-Type": "image/png"})
    server.routes["/notes.txt"] = Reply(
        200, b"Tide tables\n\nlow water at noon", {"Content-Type": "text/plain"}
    )
    inject([server.url("/news")], clock_at().now())
    counts = []
    for r in range(5):
        server.html("/news", _article(r))
        crawl(project, clock=clock_at(r * 100 * DAY))
        counts.append(len(indexed_versions()))
    news = server.url("/news")
    # the news page: 3 versions (without, with, without again: the last is the first's
    # digest), plus notes.txt once; the unchanged fetches (revisits) added nothing
    assert counts == [2, 3, 3, 3, 3]
    versions = indexed_versions()
    assert versions == page_versions()
    assert {url for url, _ in versions} == {news, server.url("/notes.txt")}
    # the digests are the capture table's, of response records
    responses = set(
        Capture.select(Capture.url, Capture.digest).where(Capture.mime != "warc/revisit").tuples()
    )
    assert versions <= responses
    # one generation of the news page, its paragraphs each once (round 0's and round
    # 3's are the same text): the title, the first text's, the sentence
    (generation,) = SearchDoc.select().where(SearchDoc.url == news)
    richest = document_of(_article(1), "text/html", news)
    assert richest is not None
    assert generation.paragraphs == len(richest.text.split("\n")) + 1
    assert search_state().state == COMPLETE
    # the sentence: from round 1's capture to round 2's, gone at round 3's
    (hit,) = search(f'"{SENTENCE}"').hits
    stamps = sorted(row.stamp for row in Capture.select().where(Capture.url == news))
    assert hit.url == news and hit.title == "Harbour news"
    assert hit.first_seen.strftime("%Y%m%d%H%M%S") == stamps[1]
    assert hit.last_seen.strftime("%Y%m%d%H%M%S") == stamps[2]
    assert hit.gone_at is not None and hit.gone_at.strftime("%Y%m%d%H%M%S") == stamps[3]
    assert [h.url for h in search("low water").hits] == [server.url("/notes.txt")]
    assert search("color red").hits == ()  # a stylesheet (an embed) is never indexed


def test_indexing_off_indexes_nothing_and_leaves_the_index_stale(project, server):
    server.html("/a", "<html><body><p>first words</p></body></html>")
    inject([server.url("/a")], clock_at().now())
    assert search_state().state == COMPLETE  # a new project's index has everything
    off = replace(fast_settings(), search=SearchSettings(index=False))
    crawl(project, off, clock=clock_at())
    assert indexed_versions() == set()
    assert search_state().state == STALE
    assert store.get_setting("search_index")["format"] >= 1


KILL_PAGES = 120
CRAWL_SCRIPT = """
import sys
from dataclasses import replace
from recrawl.core.engine import Crawler
from recrawl.core.project import Project
from tests.support.crawling import fast_settings
project = Project.open(sys.argv[1])
Crawler(project, replace(fast_settings(), commit_every=7, commit_seconds=0.05)).run()
"""


def _kill_site(server) -> None:
    rng = random.Random(7)
    for i in range(KILL_PAGES):
        targets = {(i + 1) % KILL_PAGES, (i + 2) % KILL_PAGES}
        targets |= {rng.randrange(KILL_PAGES) for _ in range(3)}
        links = " ".join(f'<a href="/p{t}">p{t}</a>' for t in sorted(targets))
        body = f"<html><body><h1>page {i}</h1><p>word{i} here</p>{links}</body></html>"
        server.html(f"/p{i}", body)


@pytest.mark.slow
def test_a_sigkill_mid_commit_leaves_every_version_with_its_text_and_no_text_without_it(
    project, server
):
    _kill_site(server)
    server.latency = 0.03  # a crawl of the site lasts long enough to be killed in
    inject([server.url("/p0")], utcnow())  # the real clock, as the children run
    root = Path(__file__).resolve().parents[3]
    rng = random.Random(5)
    kills = 0
    for _ in range(3):
        start = len(server.hits)
        child = subprocess.Popen([sys.executable, "-c", CRAWL_SCRIPT, str(project.path)], cwd=root)
        reached = server.wait_hits(start + rng.randrange(5, 40), while_running=child)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        kills += reached
        # what the kill left: texts and captures committed together, or neither
        assert indexed_versions() == page_versions()
    assert kills >= 2, "the child crawls finished before they could be killed"
    crawl(project)  # recovers, then finishes
    assert Page.select().count() == KILL_PAGES
    assert indexed_versions() == page_versions()
    assert len(indexed_versions()) == KILL_PAGES
    for i in (0, 57, KILL_PAGES - 1):
        assert [h.url for h in search(f"word{i}").hits] == [server.url(f"/p{i}")]
