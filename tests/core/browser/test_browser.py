"""Pages loaded in the real Chromium (core/browser/browser.py), each request answered by
the test's handler, from pages a real server on 127.0.0.x serves."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
import os
import signal
import socket
import struct
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
from recrawl.core.browser.browser import CALL_TIMEOUT, Browser
from recrawl.core.browser.load import Answer, Intercepted, Refusal, Rendering

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

# each test starts a browser: a subprocess
pytestmark = [needs_chromium, pytest.mark.slow]

MIB = 1024 * 1024
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
            assert page.screenshot is not None and png_size(page.screenshot) == (1280, 800)
            assert b"the second item</li>" in page.dom
            # each handler saw its own page's requests only (and the site's icon)
            theirs = [u for u in handlers[n].urls() if not u.endswith("/favicon.ico")]
            assert all(u.startswith(server.url(f"/site{n}/")) for u in theirs)
            assert handlers[n].urls("Image") == [server.url(f"/site{n}/pixel.png")]

    asyncio.run(run())


LISTED = """<!doctype html><title>listed</title><body><ul id=i></ul><script>
fetch('/items.json').then((r) => r.json()).then((items) => {
  for (const text of items) {
    const li = document.createElement('li');
    li.textContent = text;
    document.getElementById('i').appendChild(li);
  }
});
</script></body>"""


def test_lanes_taking_pages_one_after_another_each_get_their_screenshot() -> None:
    # each tab is in a window of its own: a tab behind another draws no frames, and its
    # screenshot would wait for one for ever (seen with lanes out of step, as a crawl's are)
    pages: dict[str, bytes | str] = {"http://site.test/favicon.ico": b""}
    for n in range(24):
        pages[f"http://site.test/{n}"] = LISTED.replace("/items.json", f"/items{n}.json")
        pages[f"http://site.test/items{n}.json"] = json.dumps([f"item {n} {j}" for j in range(20)])

    async def run() -> list[Rendering]:
        todo = list(range(24))
        done: list[Rendering] = []
        async with browser() as chromium:
            chromium.call_timeout = 5.0
            await asyncio.gather(
                *(chromium.load("http://site.test/0", n, FromDict(pages)) for n in range(3))
            )

            async def lane(number: int) -> None:
                while todo:
                    url = f"http://site.test/{todo.pop(0)}"
                    done.append(await chromium.load(url, number, FromDict(pages)))

            await asyncio.gather(*(lane(number) for number in range(3)))
        return done

    renderings = asyncio.run(run())
    assert len(renderings) == 24
    for page in renderings:
        assert page.error is None, page.error
        assert page.screenshot is not None and png_size(page.screenshot) == (1280, 800)


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


# -- what a page may do, bounded ---------------------------------------------------------


def wav(seconds: float = 1.0, rate: int = 8000) -> bytes:
    """A silent mono WAV file, a real media file for the browser to play."""
    samples = b"\x80" * int(seconds * rate)
    header = b"WAVE" + b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate, 1, 8)
    data = b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(header) + len(data)) + header + data


async def load_from(server: Server, path: str, **changes: object) -> tuple[Rendering, FromServer]:
    async with browser(**changes) as chromium, httpx.AsyncClient() as client:
        handler = FromServer(client)
        page = await chromium.load(server.url(path), 0, handler)
    return page, handler


def test_service_workers_are_not_registered(server: Server) -> None:
    server.html(
        "/",
        """<!doctype html><body><p id="sw">pending</p><script>
        const out = document.getElementById('sw');
        if (!navigator.serviceWorker) out.textContent = 'no service worker';
        else navigator.serviceWorker.register('/sw.js').then(
          () => { out.textContent = 'registered'; }, (e) => { out.textContent = 'failed ' + e; });
        </script></body>""",
    )
    server.routes["/sw.js"] = Reply(200, b"self.addEventListener('fetch', () => {});",
                                    {"Content-Type": "text/javascript"})  # fmt: skip
    page, handler = asyncio.run(load_from(server, "/"))
    assert page.error is None
    assert b"no service worker" in page.dom
    assert server.hits_for("/sw.js") == 0
    assert server.url("/sw.js") not in handler.urls()


def test_lazy_images_and_frames_load_without_scrolling(server: Server) -> None:
    server.html(
        "/",
        """<!doctype html><body><div style="height: 30000px">tall</div>
        <img loading="lazy" src="/far.png"><iframe loading="lazy" src="/far.html"></iframe>
        </body>""",
    )
    server.routes["/far.png"] = Reply(200, b"png", {"Content-Type": "image/png"})
    server.html("/far.html", "<p>far frame</p>")
    page, handler = asyncio.run(load_from(server, "/", max_scrolls=0))
    assert page.error is None
    assert server.url("/far.png") in handler.urls("Image")
    assert server.url("/far.html") in handler.urls("Document")
    assert not any(r.navigation for r in handler.requests if r.url.endswith("/far.html"))


def test_media_does_not_play_by_itself(server: Server) -> None:
    server.html(
        "/",
        """<!doctype html><title>waiting</title><body>
        <audio id="a" src="/tone.wav" autoplay></audio><script>
        const a = document.getElementById('a');
        a.addEventListener('playing', () => { document.title = 'playing'; });
        a.play().then(() => { document.title = 'played'; },
                      (e) => { document.title = e.name; });
        </script></body>""",
    )
    server.routes["/tone.wav"] = Reply(200, wav(), {"Content-Type": "audio/wav"})
    page, _ = asyncio.run(load_from(server, "/"))
    assert page.error is None
    assert page.title == "NotAllowedError"


def test_a_page_that_never_goes_idle_is_done_at_the_time_limit(server: Server) -> None:
    server.html(
        "/",
        """<!doctype html><body><p>busy</p><script>
        let n = 0;
        setInterval(() => fetch('/tick?' + n++), 20);
        </script></body>""",
    )

    def slow_tick(handler: BaseHTTPRequestHandler) -> Reply:
        # each answer takes longer than the next tick: one is always in flight, however
        # slowly a loaded machine runs the page's timer
        server.closing.wait(0.3)
        return Reply(200, b"{}", {"Content-Type": "application/json"})

    for n in range(1000):
        server.routes[f"/tick?{n}"] = slow_tick
    server.html("/next", "<p>next</p>")

    async def run() -> tuple[Rendering, FromServer, FromServer]:
        async with browser(page_timeout=2.0) as chromium, httpx.AsyncClient() as client:
            busy, after = FromServer(client), FromServer(client)
            page = await chromium.load(server.url("/"), 0, busy)
            await chromium.load(server.url("/next"), 0, after)
        return page, busy, after

    page, handler, after = asyncio.run(run())
    assert page.error is None
    assert "still loading after 2 s (capture.page_timeout)" in page.notes
    assert b"<p>busy</p>" in page.dom
    assert len(handler.urls("Fetch") + handler.urls("XHR")) >= 5
    # the busy page was stopped with its load: the lane's next page saw none of its requests
    assert not any("/tick" in url for url in after.urls()), [
        (r.url, r.resource_type) for r in after.requests
    ]


ENDLESS = """<!doctype html><body><div style="height: 1000px">first</div><script>
let n = 0, loading = false;
window.addEventListener('scroll', () => {
  if (loading || window.scrollY + window.innerHeight < document.body.scrollHeight - 100) return;
  loading = true;
  fetch('/more?' + ++n).then((r) => r.text()).then((text) => {
    const block = document.createElement('div');
    block.style.height = '800px';
    block.textContent = text;
    document.body.appendChild(block);
    loading = false;
  });
});
</script></body>"""


def test_an_endless_page_is_scrolled_as_far_as_the_scroll_limit(server: Server) -> None:
    server.html("/", ENDLESS)
    for n in range(1, 50):
        server.routes[f"/more?{n}"] = Reply(
            200, f"block {n}".encode(), {"Content-Type": "text/plain"}
        )
    page, handler = asyncio.run(load_from(server, "/", max_scrolls=4))
    assert page.error is None
    assert "scrolled 4 times (capture.max_scrolls)" in page.notes
    # each scroll waited for what it loaded, which made the page longer
    assert [u for u in handler.urls() if "/more?" in u] == [
        server.url(f"/more?{n}") for n in (1, 2, 3, 4)
    ]
    assert b">block 4</div>" in page.dom


def test_a_page_scrolled_to_its_bottom_stops_there_with_no_note(server: Server) -> None:
    server.html("/", '<!doctype html><body><div style="height: 2500px">three screens</div></body>')
    page, _ = asyncio.run(load_from(server, "/", max_scrolls=10))
    assert page.error is None and page.notes == ()


def test_popups_are_not_opened(server: Server) -> None:
    # (a link with target=_blank clicked by a script is blocked by Chromium's popup
    # blocker: the page has no user gesture)
    server.html(
        "/",
        """<!doctype html><body><script>
        const opened = window.open('/popup');
        document.body.dataset.opened = String(opened);
        </script></body>""",
    )
    server.html("/popup", "<p>popup</p>")
    page, _ = asyncio.run(load_from(server, "/"))
    assert page.error is None
    assert b'data-opened="null"' in page.dom
    assert page.notes == ("a popup closed",)
    assert server.hits_for("/popup") == 0


def test_a_download_is_refused(server: Server) -> None:
    server.html(
        "/",
        """<!doctype html><body><p>here</p><a id="d" href="/file.bin" download>get</a>
        <script>document.getElementById('d').click();</script></body>""",
    )
    server.routes["/file.bin"] = Reply(
        200, b"\0" * 1000, {"Content-Type": "application/octet-stream"}
    )
    page, _ = asyncio.run(load_from(server, "/"))
    assert page.error is None
    assert b"<p>here</p>" in page.dom
    assert "a download refused" in page.notes


def test_a_page_that_is_a_download_ends_the_load_with_an_error(server: Server) -> None:
    server.routes["/file.bin"] = Reply(
        200,
        b"\0" * 1000,
        {"Content-Type": "application/octet-stream",
         "Content-Disposition": 'attachment; filename="file.bin"'},
    )  # fmt: skip

    async def run() -> tuple[Rendering, Rendering]:
        async with browser() as chromium, httpx.AsyncClient() as client:
            download = await chromium.load(server.url("/file.bin"), 0, FromServer(client))
            after = await chromium.load(server.url("/"), 0, FromServer(client))
        return download, after

    server.html("/", "<p>a page</p>")
    download, after = asyncio.run(run())
    assert download.error == "the page is a download (refused)"
    assert download.dom == b""
    # the download's late event is not the next page's
    assert after.error is None and after.notes == ()


def test_dialogs_are_dismissed(server: Server) -> None:
    server.html(
        "/",
        """<!doctype html><body><script>
        alert('hello');
        const sure = confirm('sure?');
        const name = prompt('name?', 'default');
        document.body.dataset.answers = sure + ' ' + name;
        </script></body>""",
    )
    page, _ = asyncio.run(load_from(server, "/"))
    assert page.error is None
    assert b'data-answers="false null"' in page.dom
    assert set(page.notes) >= {
        "an alert dismissed", "a confirm dialog dismissed", "a prompt dismissed"
    }  # fmt: skip


def test_a_redirect_loop_in_javascript_stops_at_the_navigation_limit(server: Server) -> None:
    for n in range(50):
        server.html(
            f"/loop?{n}", f"<p>hop {n}</p><script>location.href = '/loop?{n + 1}';</script>"
        )
    page, handler = asyncio.run(load_from(server, "/loop?0", max_navigations=3))
    assert page.error is None
    assert "stopped after 3 navigations by the page (capture.max_navigations)" in page.notes
    documents = handler.urls("Document")
    assert documents[:4] == [server.url(f"/loop?{n}") for n in range(4)]
    assert server.hits_for("/loop?5") == 0


# -- the browser's own failures ------------------------------------------------------------

HOG = """<!doctype html><body><script>
const kept = [];
for (;;) kept.push(new Array(1000000).fill(Math.random()));
</script></body>"""


def test_a_page_that_allocates_without_end_crashes_its_tab_alone(server: Server) -> None:
    server.html("/hog", HOG)
    serve_script_built(server)

    async def run() -> None:
        async with browser(page_memory=64 * MIB) as chromium, httpx.AsyncClient() as client:
            other = asyncio.ensure_future(chromium.load(server.url("/"), 1, FromServer(client)))
            page = await chromium.load(server.url("/hog"), 0, FromServer(client))
            assert page.error is not None and "crashed" in page.error
            assert "capture.page_memory" in page.error
            assert page.dom == b""
            # the other lane's page and the browser went on
            assert (await other).error is None
            again = await chromium.load(server.url("/"), 0, FromServer(client))
            assert again.error is None and b"the second item" in again.dom
            assert chromium.restarts == 0

    asyncio.run(run())


def running(pid: int) -> bool:
    """The process exists and is not a zombie (dead, not yet reaped by its parent)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Stall:
    """A handler that does ``action`` to the browser when the page asks for /stall.js."""

    def __init__(self, client: httpx.AsyncClient, action: Callable[[], None]) -> None:
        self.inner = FromServer(client)
        self.action = action

    async def __call__(self, request: Intercepted) -> Answer | Refusal:
        if request.url.endswith("/stall.js"):
            self.action()
        return await self.inner(request)


def test_a_browser_killed_during_a_load_gives_it_an_error_and_is_restarted(server: Server) -> None:
    server.html("/", '<!doctype html><body><script src="/stall.js"></script></body>')
    server.routes["/stall.js"] = Reply(200, b"", {"Content-Type": "text/javascript"})
    serve_script_built(server, "/next")

    async def run() -> None:
        async with browser() as chromium, httpx.AsyncClient() as client:
            first = chromium._process
            assert first is not None
            kill = Stall(client, lambda: os.kill(first.pid, signal.SIGKILL))
            page = await chromium.load(server.url("/"), 0, kill)
            assert page.error == "the browser exited during the load"
            assert page.dom == b""
            again = await chromium.load(server.url("/next/"), 0, FromServer(client))
            assert again.error is None and b"the second item" in again.dom
            assert chromium.restarts == 1
            assert first.poll() is not None  # the old one was reaped

    asyncio.run(run())


def test_a_hung_browser_gives_the_load_an_error_in_bounded_time_and_is_replaced(
    server: Server,
) -> None:
    server.html("/", '<!doctype html><body><script src="/stall.js"></script></body>')
    server.routes["/stall.js"] = Reply(200, b"", {"Content-Type": "text/javascript"})
    serve_script_built(server, "/next")

    async def run() -> None:
        async with browser(page_timeout=2.0) as chromium, httpx.AsyncClient() as client:
            chromium.call_timeout = 2.0
            first = chromium._process
            assert first is not None
            # every process of the browser stops: it answers nothing, and is not gone
            stop = Stall(client, lambda: os.killpg(first.pid, signal.SIGSTOP))
            page = await chromium.load(server.url("/"), 0, stop)
            assert page.error is not None and "did not answer" in page.error
            _unhurried(chromium)  # the next load's own bounds need no test of theirs
            again = await chromium.load(server.url("/next/"), 0, FromServer(client))
            assert again.error is None and b"the second item" in again.dom
            assert chromium.restarts == 1
            assert first.poll() is not None  # killed, stopped as it was

    asyncio.run(run())


def test_a_browser_past_its_memory_limit_is_restarted_between_loads(server: Server) -> None:
    serve_script_built(server)

    async def run() -> None:
        async with browser(max_memory=64 * MIB) as chromium, httpx.AsyncClient() as client:
            pages = [await chromium.load(server.url("/"), 0, FromServer(client)) for _ in range(2)]
            assert all(p.error is None and b"the second item" in p.dom for p in pages)
            # each load found it past the limit, the first one too
            assert chromium.restarts == 2
            assert chromium.peak_memory > 64 * MIB
            assert 0 < chromium.memory() < 4096 * MIB

    asyncio.run(run())


def test_lanes_loading_at_once_wait_for_each_other_before_a_memory_restart(
    server: Server,
) -> None:
    for n in range(4):
        serve_script_built(server, f"/site{n}")

    async def run() -> None:
        async with browser(max_memory=64 * MIB) as chromium, httpx.AsyncClient() as client:

            async def lane(number: int) -> list[Rendering]:
                url = server.url(f"/site{number}/")
                return [await chromium.load(url, number, FromServer(client)) for _ in range(2)]

            done = await asyncio.wait_for(asyncio.gather(*(lane(n) for n in range(4))), 240)
            # no load was cut by a restart: each came between loads
            for pages in done:
                assert all(p.error is None and b"the second item" in p.dom for p in pages)
            assert chromium.restarts >= 1

    asyncio.run(run())


def test_memory_counts_every_process_of_the_browser(server: Server) -> None:
    serve_script_built(server)

    async def run() -> None:
        async with browser() as chromium, httpx.AsyncClient() as client:
            alone = chromium.memory()
            await asyncio.gather(
                *(chromium.load(server.url("/"), lane, FromServer(client)) for lane in range(4))
            )
            # four tabs (four renderer processes) weigh more than none
            now = chromium.memory()
            assert now > alone > 0
            assert chromium.peak_memory >= now
            pids = list(chromium._pids())
        assert len(pids) >= 5
        assert not any(running(pid) for pid in pids)  # all ended by close

    asyncio.run(run())


def test_a_frame_of_another_host_and_a_worker_load_through_the_handler_too(
    server: Server,
) -> None:
    other = Server(address="127.0.0.2").start()
    try:
        server.html(
            "/",
            f"""<!doctype html><body><iframe src="{other.url("/frame.html")}"></iframe><script>
            const worker = new Worker('/worker.js');
            worker.onmessage = (e) => {{ document.body.dataset.worker = e.data; }};
            </script></body>""",
        )
        server.routes["/worker.js"] = Reply(
            200,
            b"fetch('/from-worker.txt').then((r) => r.text()).then((t) => postMessage(t));",
            {"Content-Type": "text/javascript"},
        )
        server.routes["/from-worker.txt"] = Reply(200, b"worked", {"Content-Type": "text/plain"})
        other.html("/frame.html", "<img src='/in-frame.png'>")
        page, handler = asyncio.run(load_from(server, "/"))
    finally:
        other.stop()
    assert page.error is None
    assert b'data-worker="worked"' in page.dom
    # asked of the handler, which fetched each once: none went round it
    assert server.url("/from-worker.txt") in handler.urls()
    assert other.url("/in-frame.png") in handler.urls("Image")
    assert server.hits_for("/from-worker.txt") == 1 and other.hits_for("/in-frame.png") == 1


def test_a_websocket_is_refused_as_its_traffic_cannot_be_archived(server: Server) -> None:
    server.html(
        "/",
        f"""<!doctype html><body><script>
        try {{ new WebSocket('ws://{server.address}:{server.port}/live'); }}
        catch (e) {{ document.body.dataset.ws = e.name; }}
        </script></body>""",
    )
    page, _ = asyncio.run(load_from(server, "/"))
    assert page.error is None
    assert b'data-ws="SecurityError"' in page.dom
    assert page.notes == ("a WebSocket refused",)
    assert server.hits_for("/live") == 0


def test_a_script_that_never_ends_costs_its_tab_not_the_browser(server: Server) -> None:
    server.html("/spin", "<!doctype html><body><p>spinning</p><script>for (;;) {}</script></body>")
    serve_script_built(server)

    async def run() -> None:
        async with browser(page_timeout=2.0) as chromium, httpx.AsyncClient() as client:
            chromium.call_timeout = 3.0
            page = await chromium.load(server.url("/spin"), 0, FromServer(client))
            assert page.error is not None
            assert "the page did not answer" in page.error and "without end" in page.error
            _unhurried(chromium)
            again = await chromium.load(server.url("/"), 0, FromServer(client))
            assert again.error is None and b"the second item" in again.dom
            assert chromium.restarts == 0

    asyncio.run(run())


def test_a_document_that_never_comes_is_an_error_at_the_time_limit(server: Server) -> None:
    server.routes["/never"] = Reply(hang=True)
    page, handler = asyncio.run(load_from(server, "/never", page_timeout=1.0))
    assert page.error == "the page did not load in 1 s (capture.page_timeout)"
    assert page.dom == b"" and page.screenshot is None
    assert handler.urls() == [server.url("/never")]


def test_a_page_that_moves_on_by_script_is_rendered_where_it_ended(server: Server) -> None:
    server.html("/a", "<!doctype html><p>a</p><script>location.href = '/b';</script>")
    server.html("/b", "<!doctype html><title>B</title><p>arrived</p>")
    page, handler = asyncio.run(load_from(server, "/a"))
    assert page.error is None and page.notes == ()
    assert page.url == server.url("/b") and page.title == "B"
    assert b"<p>arrived</p>" in page.dom
    documents = [(r.url, r.navigation) for r in handler.requests if r.resource_type == "Document"]
    # only the first is the page's own navigation; the script's counts toward the limit
    assert documents == [(server.url("/a"), True), (server.url("/b"), False)]


def test_a_compressed_response_is_given_to_the_browser_decoded(server: Server) -> None:
    text = "decoded text " * 100
    server.html(
        "/",
        """<!doctype html><body><script>
        fetch('/data.txt').then((r) => r.text().then((body) => {
          document.body.dataset.seen = [body.slice(0, 12), body.length,
            r.headers.get('content-encoding'), r.headers.get('content-length')].join('|');
        }));
        </script></body>""",
    )
    server.routes["/data.txt"] = Reply(
        200,
        gzip.compress(text.encode()),
        {"Content-Type": "text/plain", "Content-Encoding": "gzip"},
    )
    page, _ = asyncio.run(load_from(server, "/"))
    assert page.error is None
    # the page sees the body as the crawl decoded it, and no header that says otherwise
    assert f'data-seen="decoded text|{len(text)}||"'.encode() in page.dom


def test_no_connection_is_opened_ahead_to_a_host_the_page_names() -> None:
    # a listening socket that counts the connections made to it: a preconnect sends nothing
    listener = socket.create_server(("127.0.0.3", 0))
    port = listener.getsockname()[1]
    listener.settimeout(0.0)
    pages: dict[str, bytes | str] = {
        "http://site.test/": f"""<!doctype html><head>
        <link rel="preconnect" href="http://127.0.0.3:{port}">
        <link rel="dns-prefetch" href="http://127.0.0.3:{port}"></head>
        <body><a href="http://127.0.0.3:{port}/next">next</a></body>""",
        "http://site.test/favicon.ico": b"",
    }

    async def run() -> None:
        async with browser() as chromium:
            page = await chromium.load("http://site.test/", 0, FromDict(pages))
            assert page.error is None
            # a second page: the first one's hints have had all that load's time
            await chromium.load("http://site.test/", 0, FromDict(pages))

    try:
        asyncio.run(run())
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            connection = None
        else:
            connection.close()
    finally:
        listener.close()
    assert connection is None, "the browser connected to a host no request was for"


def _unhurried(chromium: Browser) -> None:
    """The default bounds back, for a test's load that must simply work: a busy machine
    may take longer than the short limits the test's first load was given."""
    chromium.settings = dataclasses.replace(chromium.settings, page_timeout=30.0)
    chromium.call_timeout = CALL_TIMEOUT
