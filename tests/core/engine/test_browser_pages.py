"""Browser capture in the crawl (docs/design.md §16): a site whose pages build their
content with scripts, captured in Chromium with everything it loaded, its rendered DOM
deciding what changed, a screenshot per capture."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from recrawl.core.archive.captures import all_captures
from recrawl.core.archive.compaction import compact
from recrawl.core.archive.page_diff import latest_change, page_diff
from recrawl.core.archive.rendering import rendering_at
from recrawl.core.archive.segments import resolve
from recrawl.core.archive.wacz import ExportOptions, export_wacz
from recrawl.core.config import CaptureSettings
from recrawl.core.engine import inject
from recrawl.core.store.models import News, Page, PageKind, Segment
from warcio.archiveiterator import ArchiveIterator

from tests.support import httpserver
from tests.support.browsing import needs_chromium
from tests.support.crawling import DAY, T0, Events, clock_at, crawl, events_of, page, settings
from tests.support.scriptsite import ScriptSite, script_site
from tests.support.warcs import records_for

pytestmark = [needs_chromium, pytest.mark.slow]


@pytest.fixture
def site() -> Iterator[ScriptSite]:
    server = httpserver.TestServer().start()
    yield script_site(server, pages=2)
    server.stop()


def browser_settings(**capture: object):
    base = settings(read_timeout=5.0, total_timeout=10.0)
    return replace(base, capture=replace(CaptureSettings(), mode="browser", **capture))


def test_a_script_built_page_is_captured_with_what_it_loaded(project, site):
    inject([site.url("/")], T0)
    crawl(project, browser_settings(), clock=clock_at())
    home = page(site.url("/"))
    assert home.status == "fetched"
    # the title and links are the rendered page's: the story link exists only in the DOM
    assert home.title == "Index"
    assert Page.get_or_none(Page.url == site.url("/story1")) is not None
    for path in ("/api/index.json", "/img/index.png", "/style.css", "/app.js"):
        embed = Page.get(Page.url == site.url(path))
        assert embed.kind == PageKind.EMBED and embed.status == "fetched", path
        (response,) = records_for(project.path, site.url(path), "response")
        assert response.payload  # as received
    (event,) = events_of(site.url("/"))
    assert event.embeds == 4 and event.embeds_missing_count == 0
    rendered = rendering_at(resolve(project.path, home.capture_file), home.capture_offset)
    assert rendered.dom is not None and b"The harbour wall will close" in rendered.dom
    assert b"Loading" not in rendered.dom
    assert rendered.screenshot is not None and rendered.screenshot.startswith(b"\x89PNG")
    # the page loaded by script-built link is a page of the crawl, captured the same way
    story = page(site.url("/story1"))
    assert story.status == "fetched"
    shot = rendering_at(resolve(project.path, story.capture_file), story.capture_offset)
    assert shot.dom is not None and b"told by script" in shot.dom


def test_an_edit_to_the_json_alone_is_a_change_with_its_diff(project, site):
    inject([site.url("/")], T0)
    crawl(project, browser_settings(), clock=clock_at())
    # the same again: unchanged, the shell and the JSON revisits of what is archived
    crawl(project, browser_settings(), clock=clock_at(13 * DAY))
    second = events_of(site.url("/"))[-1]
    assert second.change == "unchanged"
    json_records = records_for(project.path, site.url("/api/index.json"))
    assert [r.type for r in json_records if r.type != "request"] == ["response", "revisit"]
    site.stories["index"][0] = ("Harbour news", "The harbour wall will stay open.", None)
    crawl(project, browser_settings(), clock=clock_at(30 * DAY))
    third = events_of(site.url("/"))[-1]
    assert third.change == "changed"
    shells = records_for(project.path, site.url("/"))
    assert [r.type for r in shells if r.type != "request"] == ["response", "revisit", "revisit"]
    kinds = [
        item.kind
        for item in News.select()
        .join(Page, on=(News.page == Page.id))
        .where(Page.url == site.url("/"))
    ]
    assert "changed" in kinds
    old, new = latest_change(project.path, site.url("/"))
    diff = page_diff(project.path, site.url("/"), old, new).diff
    assert any("stay open" in line for line in diff.added), diff.added
    assert any("will close" in line for line in diff.removed), diff.removed
    assert len(all_captures(project.path, site.url("/"))) == 3


def test_browser_mode_without_chromium_says_so_once_and_puts_the_pages_off(project, site):
    inject([site.url("/")], T0)
    events = Events()
    crawl(
        project,
        browser_settings(chromium="/nonexistent/chromium"),
        clock=clock_at(),
        observer=events,
    )
    errors = [e.text for e in events.logs("error")]
    assert len(errors) == 1 and "/nonexistent/chromium" in errors[0], errors
    home = page(site.url("/"))
    # not fetched, tried again in an hour (a watcher would otherwise wake for it at once)
    assert home.status == "unfetched" and home.first_fetched is None
    assert T0 + timedelta(minutes=59) <= home.next_fetch <= T0 + timedelta(minutes=61)
    assert "tried again in 1.0 h" in errors[0]
    assert site.server.hits_for("/") == 0


def test_compaction_and_export_carry_each_capture_with_its_rendering(project, site, tmp_path):
    """The DOM and screenshot records are not indexed: they travel with their capture's
    bytes, so after a compaction each capture still has them and diffs by its DOM, and a
    WACZ export holds them."""
    inject([site.url("/")], T0)
    crawl(project, browser_settings(), clock=clock_at())
    site.stories["index"][0] = ("Harbour news", "The harbour wall will stay open.", None)
    crawl(project, browser_settings(), clock=clock_at(13 * DAY))
    names = [s.name for s in Segment.select()]
    summary = compact(project, names=names)
    assert summary.new_segment is not None and summary.history_file is not None
    home = page(site.url("/"))
    assert home.segment == summary.new_segment
    rendered = rendering_at(resolve(project.path, home.capture_file), home.capture_offset)
    assert rendered.dom is not None and b"stay open" in rendered.dom
    assert rendered.screenshot is not None
    old, new = latest_change(project.path, site.url("/"))
    # the first capture's response is still live (the second's revisit refers to it)
    assert b"will close" in (rendering_at(old.path, old.offset).dom or b"")
    diff = page_diff(project.path, site.url("/"), old, new).diff
    assert any("stay open" in line for line in diff.added), diff.added
    out = tmp_path / "site.wacz"
    export_wacz(project.path, out, ExportOptions(pages="all"))
    with zipfile.ZipFile(out) as package:
        warcs = [name for name in package.namelist() if name.endswith(".warc.gz")]
        kinds = []
        for name in warcs:
            with package.open(name) as fh:
                for record in ArchiveIterator(fh):
                    kinds.append(
                        (record.rec_type, record.rec_headers.get_header("WARC-Target-URI"))
                    )
    assert ("resource", f"urn:screenshot:{site.url('/')}") in kinds
    assert kinds.count(("resource", f"urn:dom:{site.url('/')}")) == 2


def test_a_page_that_misbehaves_costs_itself_and_says_why(project, site):
    """A page that never goes idle is cut at the time limit (said on its fetch); one that
    crashes its tab is a failed fetch with the reason; the crawl goes on to the others."""
    server = site.server
    server.html(
        "/busy",
        "<!doctype html><title>Busy</title><p>busy</p><script>"
        "setInterval(() => fetch('/api/index.json?' + Math.random()), 50)</script>",
    )
    server.html(
        "/hog",
        "<!doctype html><title>Hog</title><script>const a = [];"
        "while (true) a.push(new Array(1e6).fill(1));</script>",
    )
    for n in range(200):  # the busy page's requests: each its own URL
        server.routes[f"/api/index.json?{n}"] = server.routes["/api/index.json"]
    inject([site.url("/busy"), site.url("/hog"), site.url("/")], T0)
    run = browser_settings(page_timeout=3.0, page_memory=64 << 20)
    summary = crawl(project, run, clock=clock_at())
    (busy,) = events_of(site.url("/busy"))
    assert busy.http_status == 200 and "capture.page_timeout" in (busy.error or ""), busy.error
    (hog,) = events_of(site.url("/hog"))
    assert page(site.url("/hog")).status == "retry"
    assert hog.error and hog.error.startswith("browser: "), hog.error
    assert page(site.url("/")).status == "fetched"
    assert summary.errors >= 1
