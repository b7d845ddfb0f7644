"""Review of step 13's embeds: reproductions of what went wrong, each on a real loopback
server and a real store."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from recrawl.core import store
from recrawl.core.engine import Crawler, inject
from recrawl.core.store.models import FetchEvent, Page, PageKind

from tests.support import httpserver
from tests.support.crawling import T0, clock_at, crawl, settings
from tests.support.embedcrawls import capture_of, quick
from tests.support.httpserver import Reply
from tests.support.warcs import records_for

pytestmark = pytest.mark.slow


@pytest.fixture
def server() -> Iterator[httpserver.TestServer]:
    served = httpserver.TestServer().start()
    served.html("/robots.txt", "User-agent: *\nAllow: /\n")
    yield served
    served.stop()


def test_an_embed_that_redirects_without_end_does_not_keep_the_round_running(project, server):
    """/r/N redirects to /r/N+1 forever: a page embedding /r/0 must still be done."""

    def endless(handler) -> Reply:
        n = int(re.match(r"/r/(\d+)", handler.path).group(1))
        return Reply(302, b"", {"Location": f"/r/{n + 1}"})

    for n in range(5000):
        server.routes[f"/r/{n}"] = endless
    server.html("/", '<html><body><p>page</p><img src="/r/0"></body></html>')
    inject([server.url("/")], T0)
    done = threading.Event()
    result: list[object] = []

    def run() -> None:
        result.append(crawl(project, quick(), clock=clock_at()))
        done.set()

    crawler_thread = threading.Thread(target=run, daemon=True)
    crawler_thread.start()
    finished = done.wait(30)
    hops = sum(1 for path, _ in server.hits if path.startswith("/r/"))
    assert finished, f"the round is still following the embed's redirects ({hops} so far)"
    assert hops <= 20, hops
    event = capture_of(server.url("/"))
    ((url, reason),) = event.embeds_missing
    assert url.startswith(server.url("/r/")) and "too many redirects" in reason
    assert event.embeds == 0 and event.embeds_missing_count == 1


def test_a_page_that_links_to_what_it_frames_gets_a_page_of_it(project, server):
    """The home page links to /frame.html and frames it: /frame.html is a page (§14:
    "an embed a page links to (and the chain accepts) becomes a page"), fetched as one,
    its links followed and its first fetch news (its host's baseline's)."""
    server.html(
        "/",
        '<html><body><p>home</p><a href="/frame.html">frame</a>'
        '<iframe src="/frame.html"></iframe></body></html>',
    )
    server.html(
        "/frame.html", '<html><body><p>frame</p><a href="/deep.html">deep</a></body></html>'
    )
    server.html("/deep.html", "<html><body><p>deep</p></body></html>")
    inject([server.url("/")], T0)
    crawl(project, quick(), clock=clock_at())
    frame = Page.get(Page.url == server.url("/frame.html"))
    assert frame.kind == PageKind.PAGE
    # its first fetch is news: in its host's first crawl (docs/design.md §15), a page of three
    (first,) = store.news_items()
    assert (first.kind, first.pages) == ("baseline", 3)
    deep = Page.get_or_none(Page.url == server.url("/deep.html"))
    assert deep is not None and deep.status == "fetched", "the frame's links were not followed"


#: When the promoting crawl finds /frame.html due as an embed, and how it commits: the
#: home page's link (which makes it a page) in a commit before the embed's fetch, or in
#: the same one; or /frame.html not due as an embed at all.
_LATER_ORDERS = {
    "due, promotion committed first": (timedelta(days=1), {"commit_every": 1}),
    "due, one commit": (timedelta(days=1), {"commit_every": 10_000, "commit_seconds": 3600.0}),
    "not due": (timedelta(days=90), {}),
}


def _promotion_first(server, monkeypatch, frame: str) -> list[str]:
    """Pins the order within the round: the commit of the home page's link (the promotion)
    waits until /frame.html is asked for as an embed (its state read as an embed's), and
    that answer waits until the promotion is committed. What happened, in order."""
    done: list[str] = []
    asked, promoted = threading.Event(), threading.Event()
    commit = store.commit_batch
    reply = server.routes["/frame.html"]

    def committing(batch, now, worker=None):
        links = any(target == frame for _, target in batch.links)
        if links:
            asked.wait(httpserver.PATIENCE_S)
        added = commit(batch, now, worker)
        if links:
            done.append("promoted")
            promoted.set()
        return added

    def answer(handler) -> Reply:
        if not asked.is_set():
            done.append("asked as an embed")
            asked.set()
            promoted.wait(httpserver.PATIENCE_S)
        return reply

    monkeypatch.setattr(store, "commit_batch", committing)
    server.routes["/frame.html"] = answer
    return done


@pytest.mark.parametrize("order", list(_LATER_ORDERS))
def test_an_embed_a_page_links_to_later_is_crawled_as_a_page(project, server, order, monkeypatch):
    """/frame.html is an object (an embed); later the home page links to it too: it
    becomes a page, and is fetched as one (its links followed) without waiting out the
    embed's interval, whether the round fetched it as an embed first or not."""
    server.html("/", '<html><body><p>home</p><object data="/frame.html"></object></body></html>')
    server.html(
        "/frame.html", '<html><body><p>frame</p><a href="/deep.html">deep</a></body></html>'
    )
    server.html("/deep.html", "<html><body><p>deep</p></body></html>")
    inject([server.url("/")], T0)
    crawl(project, quick(), clock=clock_at())
    frame = Page.url == server.url("/frame.html")
    assert Page.get(frame).kind == PageKind.EMBED
    assert Page.get_or_none(Page.url == server.url("/deep.html")) is None
    embed_due, commits = _LATER_ORDERS[order]
    # its interval comes from the server's dates (real time), the crawl's clock is 2027's
    Page.update(next_fetch=T0 + embed_due).where(frame).execute()
    server.html(
        "/",
        '<html><body><p>home, changed</p><a href="/frame.html">frame</a>'
        '<object data="/frame.html"></object></body></html>',
    )
    later = timedelta(days=30)
    Page.update(next_fetch=T0 + later).where(Page.url == server.url("/")).execute()
    pinned = None
    if order == "due, promotion committed first":
        pinned = _promotion_first(server, monkeypatch, server.url("/frame.html"))
    crawl(project, replace(quick(), **commits), clock=clock_at(later))
    if pinned is not None:
        assert pinned == ["asked as an embed", "promoted"], pinned
    assert Page.get(frame).kind == PageKind.PAGE
    deep = Page.get_or_none(Page.url == server.url("/deep.html"))
    assert deep is not None and deep.status == "fetched", "the frame's links were not followed"


@pytest.fixture
def cdn() -> Iterator[httpserver.TestServer]:
    served = httpserver.TestServer(address="127.0.0.2").start()
    served.html("/robots.txt", "User-agent: *\nAllow: /\n")
    yield served
    served.stop()


def test_a_worker_keeps_its_batches_when_an_embed_it_fetches_becomes_a_page(project, server, cdn):
    """A worker fetches an embed on a host it does not lease (§14: "on PostgreSQL the
    fetching worker's, whatever host leases say"); when a page's link makes that embed a
    page meanwhile, the worker's batch is still its own to commit."""
    from recrawl.core.config import WorkerSettings
    from recrawl.core.engine.worker import WorkerSession
    from recrawl.core.filters import Chain

    everything = Chain([])
    doc = cdn.url("/doc.html")
    cdn.html("/doc.html", "<html><body><p>doc</p></body></html>")
    server.html("/", f'<html><body><p>home</p><object data="{doc}"></object></body></html>')
    inject([server.url("/")], T0)
    crawl(project, quick(), clock=clock_at(), chain=everything)
    assert Page.get(Page.url == doc).kind == PageKind.EMBED
    server.html(
        "/",
        f'<html><body><p>home, changed</p><a href="{doc}">doc</a>'
        f'<object data="{doc}"></object></body></html>',
    )
    session = WorkerSession("w1", WorkerSettings())
    logs: list[object] = []
    summary = Crawler(
        project,
        replace(quick(), commit_every=1),
        clock=clock_at(timedelta(days=30)),
        chain=everything,
        worker=session,
        observer=logs.extend,
    ).run()
    lost = [e.text for e in logs if "no longer holds" in getattr(e, "text", "")]
    assert not lost, lost
    home = Page.get(Page.url == server.url("/"))
    event = FetchEvent.select().where(FetchEvent.page == home).order_by(FetchEvent.id)[-1]
    assert event.embeds == 1, "the home page capture's completeness was refused with its batch"
    assert summary.fetched >= 1


def test_a_seed_injected_that_is_an_embed_is_crawled_as_a_page(project, server):
    """The user injects a URL the project knows as an embed: it is a seed, a page."""
    server.html("/", '<html><body><p>home</p><object data="/doc.html"></object></body></html>')
    server.html("/doc.html", '<html><body><p>doc</p><a href="/deep.html">deep</a></body></html>')
    server.html("/deep.html", "<html><body><p>deep</p></body></html>")
    inject([server.url("/")], T0)
    crawl(project, quick(), clock=clock_at())
    assert Page.get(Page.url == server.url("/doc.html")).kind == PageKind.EMBED
    inject([server.url("/doc.html")], T0 + timedelta(hours=1))
    crawl(project, quick(), clock=clock_at(timedelta(hours=1)))
    assert Page.get(Page.url == server.url("/doc.html")).kind == PageKind.PAGE
    deep = Page.get_or_none(Page.url == server.url("/deep.html"))
    assert deep is not None and deep.status == "fetched", "the seed was never crawled as a page"


KILL_SCRIPT = """
import sys
from dataclasses import replace
from recrawl.core.engine import Crawler
from recrawl.core.project import Project
from tests.support.crawling import fast_settings
project = Project.open(sys.argv[1])
settings = fast_settings()
settings = replace(settings, commit_every=5, commit_seconds=0.05,
                   sources=replace(settings.sources, enabled=False))
Crawler(project, settings).run()
"""


def test_killed_mid_round_with_embeds_nothing_committed_is_lost_or_captured_twice(
    project, server, capsys
):
    import random
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from recrawl.core.cli import main
    from recrawl.core.clock import utcnow
    from recrawl.core.project import Project

    from tests.support.consistency import check_project

    pages = 60
    png = {"Content-Type": "image/png"}
    for i in range(pages):
        server.routes[f"/img{i}.png"] = Reply(200, f"img {i}".encode(), png)
        server.routes[f"/shared{i % 5}.css"] = Reply(
            200, f"a {{ background: url(bg{i % 5}.png) }}".encode(), {"Content-Type": "text/css"}
        )
        server.routes[f"/bg{i % 5}.png"] = Reply(200, f"bg {i % 5}".encode(), png)
        links = " ".join(f'<a href="/p{(i + k) % pages}">x</a>' for k in (1, 2, 7))
        server.html(
            f"/p{i}",
            f'<html><head><link rel=stylesheet href="/shared{i % 5}.css"></head><body>'
            f'<p>page {i}</p>{links}<img src="/img{i}.png"></body></html>',
        )
    server.latency = 0.004
    inject([server.url("/p0")], utcnow())
    root = Path(__file__).resolve().parents[3]
    rng = random.Random(5)
    kills = 0
    for _ in range(4):
        start = len(server.hits)
        child = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(project.path)], cwd=root)
        reached = server.wait_hits(start + rng.randrange(5, 60), while_running=child)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        kills += reached
    assert kills >= 3
    summary = crawl(project, quick())
    assert summary.fetched >= 0

    def show(url: str) -> bytes:
        capsys.readouterr()
        assert main(["show", str(project.path), url]) == 0
        return capsys.readouterr().out.encode()

    project.close()
    captures = check_project(project.path, show)
    # each embed captured once; a page whose embeds a kill cut off is fetched again
    # (with them): its second capture a revisit, never a second copy
    twice = {u for u, n in captures.items() if n != 1}
    assert set(captures.values()) <= {1, 2}
    assert all("/p" in u for u in twice), twice
    for url in twice:
        assert len(records_for(project.path, url, "response")) == 1, url
    reopened = Project.open(project.path)
    try:
        # every page's latest capture knows its embeds; every embed row was fetched
        latest = {}
        for event in FetchEvent.select().order_by(FetchEvent.fetched_at, FetchEvent.id):
            latest[event.page_id] = event
        unknown = [
            page.url
            for page in Page.select().where(Page.kind == PageKind.PAGE)
            if latest[page.id].embeds is None
        ]
        assert not unknown, f"captures that never got their embeds: {unknown}"
        unfetched = [p.url for p in Page.select().where(Page.status == "unfetched")]
        assert not unfetched, unfetched
    finally:
        reopened.close()


def test_a_hosts_pages_are_counted_without_reading_its_embeds(project):
    """The Sites panel's counts (pages by host) on a project whose CDN host holds only
    embeds: answered from an index, not by reading every embed row of the host."""
    from recrawl.core.store.models import DB
    from recrawl.core.store.sql import is_server_store

    if is_server_store():
        pytest.skip("SQLite's query plan")
    rows = [
        store.NewPage(
            url=f"http://cdn.example/i{i}.png",
            host="cdn.example",
            next_fetch=T0,
            fetch_interval=1.0,
            kind=PageKind.EMBED,
        )
        for i in range(2000)
    ]
    store.add_pages(
        [
            *rows,
            store.NewPage(
                url="http://site.example/", host="site.example", next_fetch=T0, fetch_interval=1.0
            ),
        ],
        T0,
    )
    DB.execute_sql("ANALYZE")
    assert store.hosts_with_pages(["cdn.example", "site.example"]) == {"site.example"}
    assert store.count_hosts() == 1
    query = (
        Page.select(Page.host)
        .where(Page.host.in_(["cdn.example"]) & (Page.kind == PageKind.PAGE))
        .distinct()
    )
    sql, params = query.sql()
    plan = " ".join(str(row[-1]) for row in DB.execute_sql("EXPLAIN QUERY PLAN " + sql, params))
    assert "COVERING INDEX page_host_kind" in plan, plan


@pytest.mark.parametrize("command", ["crawl", "watch", "worker"])
def test_the_json_help_names_every_key_the_json_has(command):
    """`--json`'s help lists the keys its lines carry (docs/design.md §8, §10, §14)."""
    from datetime import datetime

    from recrawl.core.cli.parser import build_parser
    from recrawl.core.engine.events import CrawlSummary, WatchRound

    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.choices and command in a.choices)
    (option,) = [a for a in sub.choices[command]._actions if "--json" in a.option_strings]
    named = set(re.findall(r"[a-z_]+", option.help))
    if command == "crawl":
        keys = CrawlSummary(0, 0, 0, 0, 0.0, 0.0).to_json()
    else:
        keys = WatchRound(datetime(2027, 1, 1), 0, 0, 0, 0, None).to_json()
    assert set(keys) <= named, set(keys) - named


def test_stop_while_a_pages_embeds_are_fetched_ends_the_crawl(project, server, cdn):
    """Stop while the CDN's worker (started by the page's embeds, after the round's
    workers were waited for) fetches: the crawl ends, the capture says why the rest is
    missing."""
    png = {"Content-Type": "image/png"}
    for i in range(20):
        cdn.routes[f"/i{i}.png"] = Reply(200, b"x", png)
    images = "".join(f'<img src="{cdn.url(f"/i{i}.png")}">' for i in range(20))
    server.html("/", f"<html><body><p>home</p>{images}</body></html>")
    cdn.latency = 0.3
    inject([server.url("/")], T0)
    crawler = Crawler(project, quick(), clock=clock_at())
    done = threading.Event()
    summaries: list[object] = []

    def run() -> None:
        summaries.append(crawler.run())
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert cdn.wait_hits(4, timeout=60)  # robots.txt and the first images
    crawler.stop()
    assert done.wait(30), "the crawl never ended after stop()"
    (summary,) = summaries
    assert summary.stopped
    event = capture_of(server.url("/"))
    assert event.embeds_missing_count and event.embeds + event.embeds_missing_count == 20
    assert all("stopped" in reason for _, reason in event.embeds_missing)


def test_switching_the_signature_re_signs_pages_not_embeds(project, server):
    """An embed's change is its bytes' (§14): a signature switch has nothing of it to
    recompute (it used to read, parse and sign every image of the project)."""
    from recrawl.core.store.signatures import count_other_kind

    png = {"Content-Type": "image/png"}
    for i in range(5):
        server.routes[f"/i{i}.png"] = Reply(200, b"x%d" % i, png)
    images = "".join(f'<img src="/i{i}.png">' for i in range(5))
    server.html("/", f"<html><body><p>home</p>{images}</body></html>")
    inject([server.url("/")], T0)
    crawl(project, quick(), clock=clock_at())
    assert Page.select().where(Page.kind == PageKind.EMBED).count() == 5
    assert count_other_kind("simhash") == 1


def test_after_the_upgrade_a_page_that_answers_304_still_gets_its_embeds(project, server):
    """§14/docs/guide.md: "An older project's pages fetch their embeds at their next fetch". A
    page archived before the upgrade keeps no list of embeds (embed_refs NULL); its next
    fetch is a conditional GET, and an unchanged page answers 304."""

    def page(handler) -> Reply:
        if handler.headers.get("If-None-Match") == '"v1"':
            return Reply(304, b"", {"ETag": '"v1"'})
        body = b'<html><body><p>home</p><img src="/logo.png"></body></html>'
        return Reply(200, body, {"Content-Type": "text/html", "ETag": '"v1"'})

    server.routes["/"] = page
    server.routes["/logo.png"] = Reply(200, b"logo", {"Content-Type": "image/png"})
    inject([server.url("/")], T0)
    off = quick()
    crawl(project, replace(off, embeds=replace(off.embeds, enabled=False)), clock=clock_at())
    # as the migration leaves a page archived before embeds: no list, no embed rows
    Page.update(embed_refs=None).execute()
    assert Page.select().where(Page.kind == PageKind.EMBED).count() == 0
    home = Page.get(Page.url == server.url("/"))
    Page.update(next_fetch=T0).where(Page.id == home.id).execute()
    crawl(project, quick(), clock=clock_at(timedelta(days=30)))
    (_, second) = FetchEvent.select().where(FetchEvent.page == home).order_by(FetchEvent.id)
    assert server.hits_for("/logo.png") == 1, "the page's embeds were never fetched"
    assert second.embeds == 1, (second.embeds, second.embeds_missing_count)
    # asked for whole once, and archived as a revisit, never a second copy
    assert second.http_status == 200
    assert len(records_for(project.path, server.url("/"), "response")) == 1
    assert len(records_for(project.path, server.url("/"), "revisit")) == 1
    # from then on a conditional GET again (its list kept, even an empty one)
    Page.update(next_fetch=T0).where(Page.id == home.id).execute()
    crawl(project, quick(), clock=clock_at(timedelta(days=60)))
    third = FetchEvent.select().where(FetchEvent.page == home).order_by(FetchEvent.id)[-1]
    assert third.http_status == 304 and third.embeds == 1


def test_history_finds_an_embed_by_the_url_as_a_page_writes_it(project, server, capsys):
    """An embed is stored as a browser requests it (``style.css?v1``, not the canonical
    ``style.css?v1=``): `history` finds it from the URL as the page's HTML writes it."""
    import json

    from recrawl.core.cli import main

    server.routes["/style.css?v1"] = Reply(200, b"p { color: red }", {"Content-Type": "text/css"})
    server.html("/", '<html><head><link rel=stylesheet href="style.css?v1"></head></html>')
    inject([server.url("/")], T0)
    crawl(project, quick(), clock=clock_at())
    assert Page.get_or_none(Page.url == server.url("/style.css?v1")) is not None
    written = server.url("/style.css?v1#top").replace("http://", "HTTP://")
    capsys.readouterr()
    assert main(["history", str(project.path), written, "--json"]) == 0
    (event,) = json.loads(capsys.readouterr().out)
    assert event["http_status"] == 200


def test_an_embed_a_sitemap_lists_is_crawled_as_a_page(project, server):
    """§11: "Everything discovered goes through the chain like a link"; §14: an embed a
    page links to becomes a page. A sitemap listing what was an embed does the same."""
    xml = {"Content-Type": "application/xml"}
    server.html("/", '<html><body><p>home</p><object data="/doc.html"></object></body></html>')
    server.html("/doc.html", '<html><body><p>doc</p><a href="/deep.html">deep</a></body></html>')
    server.html("/deep.html", "<html><body><p>deep</p></body></html>")
    inject([server.url("/")], T0)
    off = settings(read_timeout=1.0, total_timeout=3.0)
    crawl(project, replace(off, sources=replace(off.sources, enabled=False)), clock=clock_at())
    assert Page.get(Page.url == server.url("/doc.html")).kind == PageKind.EMBED
    loc = server.url("/doc.html")
    server.routes["/sitemap.xml"] = Reply(
        200,
        b'<?xml version="1.0" encoding="UTF-8"?><urlset '
        b'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + f"<url><loc>{loc}</loc></url>".encode()
        + b"</urlset>",
        xml,
    )
    Page.update(next_fetch=T0).where(Page.url == server.url("/")).execute()
    crawl(
        project, settings(read_timeout=1.0, total_timeout=3.0), clock=clock_at(timedelta(hours=1))
    )
    assert Page.get(Page.url == loc).kind == PageKind.PAGE
    deep = Page.get_or_none(Page.url == server.url("/deep.html"))
    assert deep is not None and deep.status == "fetched"


def test_a_framed_page_that_is_gone_is_missing_not_archived(project, server):
    """A page frames /f.html, a page of the crawl (also linked); /f.html goes 404: the
    next capture of the page has its frame missing, not archived by the 404."""
    server.html(
        "/",
        '<html><body><p>home</p><a href="/f.html">f</a><iframe src="/f.html"></iframe>'
        "</body></html>",
    )
    server.html("/f.html", "<html><body><p>frame</p></body></html>")
    inject([server.url("/")], T0)
    crawl(project, quick(), clock=clock_at())
    assert Page.get(Page.url == server.url("/f.html")).status == "fetched"
    del server.routes["/f.html"]  # 404 from now on
    Page.update(next_fetch=T0).execute()
    crawl(project, quick(), clock=clock_at(timedelta(days=1)))
    frame = Page.get(Page.url == server.url("/f.html"))
    assert frame.status == "gone"
    Page.update(next_fetch=T0).where(Page.url == server.url("/")).execute()
    crawl(project, quick(), clock=clock_at(timedelta(days=2)))
    home = Page.get(Page.url == server.url("/"))
    latest = FetchEvent.select().where(FetchEvent.page == home).order_by(FetchEvent.id)[-1]
    assert latest.embeds == 0, (latest.embeds, latest.embeds_missing)
    ((url, reason),) = latest.embeds_missing
    assert url == server.url("/f.html") and "404" in reason
