"""A WACZ export takes what each chosen page embeds along (docs/design.md §14), wherever it is
hosted and whenever it was fetched; ``pages.jsonl`` lists the pages alone."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from recrawl.core.archive.captures import find_captures
from recrawl.core.archive.wacz import ALL, LATEST, ExportOptions, export_wacz
from recrawl.core.engine import inject
from recrawl.core.project import Project
from recrawl.core.store.models import Page, PageKind

from tests.core.archive.wacz.test_wacz import BIN, captures, pages_of, validate
from tests.support import httpserver
from tests.support.crawling import DAY, T0, clock_at, crawl, fast_settings, page
from tests.support.embedsite import EmbedSite
from tests.support.httpserver import Reply
from tests.support.replayserver import Replay

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def archived(tmp_path_factory) -> Iterator[tuple[Path, EmbedSite]]:
    """Two crawls a month apart; between them the pages were made due again alone (so
    the second crawl's page captures refer to the first crawl's embeds)."""
    site = EmbedSite()
    project = Project.init(tmp_path_factory.mktemp("wacz-embeds") / "proj")
    settings = fast_settings()
    settings = replace(settings, sources=replace(settings.sources, enabled=False))
    try:
        inject([site.pages.url("/")], T0)
        crawl(project, settings, clock=clock_at())
        # the embeds' intervals are far off: the next crawl fetches the pages alone
        Page.update(next_fetch=T0 + 40 * DAY).where(Page.kind == PageKind.EMBED).execute()
        Page.update(next_fetch=T0 + 30 * DAY).where(Page.kind == PageKind.PAGE).execute()
        crawl(project, settings, clock=clock_at(30 * DAY))
        yield project.path, site
    finally:
        project.close()
        site.stop()


def export(project: Path, out: Path, **options: object) -> Path:
    opened = Project.open(project)  # as `recrawl export` does: on the project's own store
    try:
        export_wacz(project, out, ExportOptions(**options))  # type: ignore[arg-type]
    finally:
        opened.close()
    return out


def test_a_site_and_since_export_brings_the_embeds_of_its_pages(archived, tmp_path):
    project, site = archived
    out = export(project, tmp_path / "site.wacz", pages=ALL, site="127.0.0.1", since=T0 + 20 * DAY)
    assert validate(out).returncode == 0
    urls = {r.url for r in captures(out)}
    # the pages' second captures, and every embed (from the first crawl, on the CDN host)
    assert site.embed_urls <= urls
    assert {site.pages.url("/"), site.pages.url("/other.html")} <= urls
    listed = {p["url"] for p in pages_of(out)[1:]}
    assert listed == {site.pages.url("/"), site.pages.url("/other.html")}  # no frame.html


def test_the_latest_export_replays_a_page_with_its_embeds_out_of_the_package(archived, tmp_path):
    project, site = archived
    out = export(project, tmp_path / "latest.wacz", pages=LATEST)
    root = tmp_path / "pywb"
    root.mkdir()
    for args in (["init", "project"], ["add", "--unpack-wacz", "project", str(out)]):
        done = subprocess.run(
            [str(BIN / "wb-manager"), *args], capture_output=True, text=True, timeout=120, cwd=root
        )
        assert done.returncode == 0, done.stderr
    (root / "config.yaml").write_text("collections_root: collections\n", encoding="utf-8")
    replay = Replay(root)
    try:
        page = find_captures(project, site.pages.url("/"))[-1]
        stamp = page.date.strftime("%Y%m%d%H%M%S")
        for path in ("/style.css", "/font.woff2", "/frame-img.png", "/photo.jpg"):
            url = site.cdn.url(path)
            answer = replay.raw(stamp, url)
            assert answer.status == 200, (url, answer)
            assert answer.body == site.bodies[url], url
    finally:
        replay.stop()


def test_a_frame_that_is_a_page_of_another_host_comes_along_with_a_site_export(tmp_path):
    """An iframe's document is a link as well as an embed: on a host in scope it is a page
    of its own. A ``--site`` export of the framing page's host takes it along all the
    same, with what it embeds (not in ``pages.jsonl``: that page is of another site)."""
    pages = httpserver.TestServer().start()
    other = httpserver.TestServer(address="127.0.0.2").start()
    frame, image = other.url("/frame.html"), other.url("/in-frame.png")
    pages.html("/", f'<html><body><iframe src="{frame}"></iframe></body></html>')
    other.html("/frame.html", f'<html><body><img src="{image}"></body></html>')
    other.routes["/in-frame.png"] = Reply(200, b"\x89PNG not really", {"Content-Type": "image/png"})
    other.html("/about", "<html><body>A page of the other host</body></html>")
    project = Project.init(tmp_path / "proj")
    try:
        inject([pages.url("/"), other.url("/about")], T0)
        crawl(project, clock=clock_at())
        assert page(frame).kind == PageKind.PAGE
    finally:
        project.close()
        pages.stop()
        other.stop()
    out = export(project.path, tmp_path / "site.wacz", pages=LATEST, site="127.0.0.1")
    assert {frame, image} <= {r.url for r in captures(out)}
    assert [p["url"] for p in pages_of(out)[1:]] == [pages.url("/")]
    assert validate(out).returncode == 0


def test_each_capture_brings_the_embeds_it_had_then(tmp_path):
    """A page that moved to a new stylesheet: its older capture brings the old one (and
    what the old one named then), its newer capture the new one."""
    server = httpserver.TestServer().start()
    css = {"Content-Type": "text/css"}
    server.routes["/v1.css"] = Reply(200, b"body { background: url(old.png) }", css)
    server.routes["/old.png"] = Reply(200, b"\x89PNG old", {"Content-Type": "image/png"})
    server.routes["/v2.css"] = Reply(200, b"body { color: red }", css)
    project = Project.init(tmp_path / "proj")
    try:
        server.html(
            "/", '<html><head><link rel=stylesheet href="/v1.css"></head><body>1</body></html>'
        )
        inject([server.url("/")], T0)
        crawl(project, clock=clock_at())
        server.html(
            "/", '<html><head><link rel=stylesheet href="/v2.css"></head><body>2</body></html>'
        )
        crawl(project, clock=clock_at(31 * DAY))
    finally:
        project.close()
        server.stop()
    old, new = server.url("/v1.css"), server.url("/v2.css")
    everything = export(project.path, tmp_path / "all.wacz", pages=ALL)
    assert {old, server.url("/old.png"), new} <= {r.url for r in captures(everything)}
    latest = export(project.path, tmp_path / "latest.wacz", pages=LATEST)
    urls = {r.url for r in captures(latest)}
    assert new in urls and old not in urls and server.url("/old.png") not in urls
