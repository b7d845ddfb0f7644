"""A WACZ export takes what each chosen page embeds along (DESIGN.md §14), wherever it is
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

from tests.core.archive.test_wacz import BIN, captures, pages_of, validate
from tests.crawling import DAY, T0, clock_at, crawl, fast_settings
from tests.embedsite import EmbedSite
from tests.replayserver import Replay

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
    export_wacz(project, out, ExportOptions(**options))  # type: ignore[arg-type]
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
