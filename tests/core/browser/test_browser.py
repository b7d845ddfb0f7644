"""Pages loaded in the real Chromium (core/browser/browser.py), each request answered by
the test's handler, from pages a real server on 127.0.0.x serves."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from recrawl.core.browser.browser import Browser
from recrawl.core.errors import BrowserMissing

from tests.support.browsing import (
    USER_AGENT,
    FromDict,
    FromServer,
    browser,
    capture_settings,
    needs_chromium,
    png_size,
)
from tests.support.httpserver import Reply
from tests.support.httpserver import TestServer as Server

pytestmark = needs_chromium

ITEMS = ["a first item", "the second item"]
SCRIPT_BUILT = """<!doctype html>
<html><head><title>Items</title></head>
<body><p id="status">Loading</p><ul id="items"></ul>
<script>
fetch('/api/items.json').then((r) => r.json()).then((items) => {
  for (const item of items) {
    const li = document.createElement('li');
    li.textContent = item;
    document.getElementById('items').appendChild(li);
  }
  document.getElementById('status').textContent = 'Loaded';
  const img = document.createElement('img');
  img.src = '/pixel.png';
  document.body.appendChild(img);
});
</script></body></html>"""


def serve_script_built(server: Server, prefix: str = "") -> None:
    page = SCRIPT_BUILT.replace("'/api/", f"'{prefix}/api/").replace("'/pixel", f"'{prefix}/pixel")
    server.html(f"{prefix}/", page)
    server.routes[f"{prefix}/api/items.json"] = Reply(
        200, json.dumps(ITEMS).encode(), {"Content-Type": "application/json"}
    )
    server.routes[f"{prefix}/pixel.png"] = Reply(
        200, b"not really a png", {"Content-Type": "image/png"}
    )


def test_a_script_built_page_is_rendered_with_what_its_scripts_loaded(server: Server) -> None:
    serve_script_built(server)

    async def run() -> None:
        async with browser() as chromium, httpx.AsyncClient() as client:
            handler = FromServer(client)
            page = await chromium.load(server.url("/"), 0, handler)
        assert page.error is None, page.error
        assert page.dom.startswith(b"<!DOCTYPE html>")
        assert b"the second item</li>" in page.dom
        assert b"Loaded" in page.dom and b"Loading" not in page.dom
        assert page.title == "Items"
        assert page.url == server.url("/")
        assert page.notes == ()
        kinds = {r.url.removeprefix(server.origin): r.resource_type for r in handler.requests}
        assert kinds["/"] == "Document"
        assert kinds["/api/items.json"] in ("Fetch", "XHR")
        assert kinds["/pixel.png"] == "Image"
        assert [r.navigation for r in handler.requests if r.url.endswith("/")] == [True]
        assert not any(r.navigation for r in handler.requests if not r.url.endswith("/"))
        document = handler.requests[0]
        assert document.method == "GET" and document.headers.get("User-Agent") == USER_AGENT
        assert page.screenshot is not None
        assert png_size(page.screenshot) == (1280, 800)

    asyncio.run(run())


def test_the_screenshot_is_the_viewport_set_and_none_when_turned_off(server: Server) -> None:
    serve_script_built(server)

    async def run() -> None:
        async with httpx.AsyncClient() as client:
            async with browser(viewport_width=640, viewport_height=480) as chromium:
                page = await chromium.load(server.url("/"), 0, FromServer(client))
                assert page.screenshot is not None and png_size(page.screenshot) == (640, 480)
            async with browser(screenshots=False) as chromium:
                page = await chromium.load(server.url("/"), 0, FromServer(client))
                assert page.error is None and page.screenshot is None
                assert b"the second item" in page.dom

    asyncio.run(run())


def test_four_lanes_load_four_pages_at_once_each_in_its_own_tab(server: Server) -> None:
    for n in range(8):
        serve_script_built(server, f"/site{n}")

    async def run() -> None:
        async with browser() as chromium, httpx.AsyncClient() as client:
            handlers = [FromServer(client) for _ in range(8)]
            pages = await asyncio.gather(
                *(chromium.load(server.url(f"/site{n}/"), n % 4, handlers[n]) for n in range(4))
            )
            # the tabs reused: the next page of each lane
            pages += await asyncio.gather(
                *(chromium.load(server.url(f"/site{n}/"), n % 4, handlers[n]) for n in range(4, 8))
            )
            assert len(chromium._tabs) == 4
        for n, page in enumerate(pages):
            assert page.error is None, page.error
            assert page.url == server.url(f"/site{n}/")
            assert b"the second item</li>" in page.dom
            # each handler saw its own page's requests only (and the site's icon)
            theirs = [u for u in handlers[n].urls() if not u.endswith("/favicon.ico")]
            assert all(u.startswith(server.url(f"/site{n}/")) for u in theirs)
            assert handlers[n].urls("Image") == [server.url(f"/site{n}/pixel.png")]

    asyncio.run(run())


def test_an_answer_from_the_crawl_is_what_the_page_gets_and_a_refusal_fails_the_request() -> None:
    page_url = "http://example.test/page"
    pages = {
        page_url: """<!doctype html><title>t</title><body>
        <script src="http://example.test/app.js"></script>
        <script src="http://blocked.test/tracker.js"></script></body>""",
        "http://example.test/app.js": "document.body.dataset.app = 'ran';",
    }

    async def run() -> None:
        async with browser() as chromium:
            handler = FromDict(pages)
            page = await chromium.load(page_url, 0, handler)
        assert page.error is None
        assert b'data-app="ran"' in page.dom
        assert "http://blocked.test/tracker.js" in handler.urls("Script")

    asyncio.run(run())


def test_a_refused_document_ends_the_load_with_its_reason_and_no_dom(server: Server) -> None:
    server.routes["/moved"] = Reply(301, b"", {"Location": "/elsewhere"})

    async def run() -> None:
        async with browser() as chromium, httpx.AsyncClient() as client:
            handler = FromServer(client)
            page = await chromium.load(server.url("/moved"), 0, handler)
            assert page.error == "HTTP 301"
            assert page.dom == b"" and page.screenshot is None
            assert handler.urls() == [server.url("/moved")]
            # the lane's tab goes on with the next page
            serve_script_built(server)
            page = await chromium.load(server.url("/"), 0, FromServer(client))
            assert page.error is None and b"the second item" in page.dom

    asyncio.run(run())


def test_a_dom_longer_than_the_limit_is_cut_with_a_note(server: Server) -> None:
    server.html("/long", "<!doctype html><body>" + "é" * 50_000 + "</body>")

    async def run() -> None:
        chromium = Browser(capture_settings(), USER_AGENT, 10_000)
        try:
            await chromium.start()
            async with httpx.AsyncClient() as client:
                page = await chromium.load(server.url("/long"), 0, FromServer(client))
        finally:
            await chromium.close()
        assert page.error is None
        # 41 bytes of markup, then two-byte characters: the 10,000th byte is half of one
        assert len(page.dom) == 9_999
        page.dom.decode("utf-8")
        assert page.notes == ("the DOM cut at 10000 bytes",)

    asyncio.run(run())


def test_without_chromium_the_browser_says_so_in_one_line(tmp_path: Path) -> None:
    async def run() -> None:
        chromium = Browser(capture_settings(chromium=str(tmp_path / "chromium")), USER_AGENT, 100)
        with pytest.raises(BrowserMissing) as raised:
            await chromium.start()
        assert "\n" not in str(raised.value)
        assert "capture.chromium" in str(raised.value)
        await chromium.close()  # safe without a process
        await chromium.close()

    asyncio.run(run())
