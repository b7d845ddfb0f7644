"""A site's first crawl from the command line (docs/design.md §15): one baseline item in
``recrawl news`` and one entry in ``recrawl feed``, however many crawls it takes; pages
found after it are new; a watch counts pages gone and back and names what went.

Real subprocesses (``recrawl ...``) against a generated site served by a process of its
own, and a loopback server whose page answers 404 and then 200 again.
"""

from __future__ import annotations

import json
import signal
from datetime import datetime
from pathlib import Path

import feedparser
import pytest

from tests.support.interrupted import recrawl
from tests.support.siteserver import StaticSite
from tests.support.stores import store_kind  # noqa: F401  # on both stores
from tests.support.watching import watched_project, watching

PAGES = 30


def news(project: Path) -> list[dict]:
    return json.loads(recrawl("news", project, "--json").stdout)


def crawl(project: Path, now: str, *more: str) -> dict:
    out = recrawl("crawl", project, "--delay", "0", "--json", "--now", now, *more).stdout
    return json.loads(out)


@pytest.mark.slow
def test_a_first_crawl_over_several_crawls_is_one_item_then_new_pages_are_new(tmp_path, db_args):
    site = StaticSite(tmp_path / "site", PAGES)
    try:
        project = tmp_path / "p"
        recrawl("init", project, *db_args)
        recrawl("inject", project, site.url(0))
        archived = 0
        entry_ids = set()
        # a round a crawl: the first crawl takes several, each growing the one item
        for minute in range(1, 30):
            summary = crawl(project, f"2027-01-01T00:{minute:02d}:00Z", "--rounds", "1")
            assert summary["new_pages"] == 0
            archived += summary["baseline_pages"]
            (item,) = news(project)
            assert (item["kind"], item["url"], item["title"]) == ("baseline", site.url(0), None)
            assert item["host"] == "127.0.0.1" and item["pages"] == archived
            feed = feedparser.parse(recrawl("feed", project).stdout)
            assert not feed.bozo, feed.get("bozo_exception")
            (entry,) = feed.entries
            entry_ids.add(entry.id)
            assert entry.link == site.url(0)
            assert datetime.fromisoformat(entry.updated) == datetime.fromisoformat(item["at"])
            if item["complete"]:
                assert entry.title == f"First crawl of 127.0.0.1: {PAGES} pages archived"
                break
            assert "under way" in entry.title
        assert minute >= 3, "the first crawl took one crawl: nothing was split"
        assert item["pages"] == PAGES and len(entry_ids) == 1  # one entry, updated in place

        # a month on, a page is added and linked from the home page: it is new
        added = site.root / "p" / "added.html"
        added.write_text("<html><head><title>Added</title></head><body>fresh</body></html>")
        home = site.root / "index.html"
        home.write_text(
            home.read_text().replace("</body>", '<a href="/p/added.html">added</a></body>')
        )
        summary = crawl(project, "2027-02-01T00:00:00Z")
        assert summary["new_pages"] == 1 and summary["baseline_pages"] == 0
        items = news(project)
        assert [(i["kind"], i["url"]) for i in items if i["kind"] == "new"] == [
            ("new", site.url(0).replace("index.html", "p/added.html"))
        ]
        assert [i["kind"] for i in items].count("baseline") == 1
        feed = feedparser.parse(recrawl("feed", project).stdout)
        assert "New: Added" in [e.title for e in feed.entries]
    finally:
        site.stop()


@pytest.mark.slow
def test_a_watch_counts_pages_gone_and_back_and_names_what_went(tmp_path, server):
    server.html("/", '<title>Home</title><a href="/a">a</a>')
    server.html("/a", "<title>A</title><p>a</p>")
    project = watched_project(tmp_path / "p", server.url("/"), interval="2s")
    with watching(project, "--json") as watch:
        watch.wait_rounds(lambda found: sum(r["baseline_pages"] for r in found) == 2, "a baseline")
        del server.routes["/a"]  # the server answers 404 now
        watch.wait_rounds(lambda found: any(r["gone_pages"] for r in found), "a gone page")
        watch.err.wait_line(f"gone: {server.url('/a')} (HTTP 404)")
        server.html("/a", "<title>A</title><p>a</p>")  # and 200 again
        watch.wait_rounds(lambda found: any(r["back_pages"] for r in found), "a page back")
        watch.child.send_signal(signal.SIGTERM)
        assert watch.end() == 0, watch.err.lines
    found = watch.rounds()
    assert sum(r["gone_pages"] for r in found) == 1 and sum(r["back_pages"] for r in found) == 1
    assert sum(r["new_pages"] for r in found) == 0
    assert watch.err.count("gone: ") == 1
    kinds = [i["kind"] for i in news(project)]
    assert kinds == ["back", "gone", "baseline"]
