"""A browser capture replays as the page looked (docs/design.md §16): pywb (``recrawl
replay``) serves the archived shell, script and JSON, and the page rendered again in
Chromium from the replay shows the stories its script loaded at that capture."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest
from recrawl.core.browser.load import Answer
from recrawl.core.config import CaptureSettings
from recrawl.core.engine import inject
from recrawl.core.replay.server import ReplayServer, replay_installed

from tests.support import httpserver
from tests.support.browsing import FromServer, browser, needs_chromium
from tests.support.crawling import DAY, T0, clock_at, crawl, events_of, settings
from tests.support.scriptsite import ScriptSite, script_site

pytestmark = [
    needs_chromium,
    pytest.mark.slow,
    pytest.mark.skipif(not replay_installed(), reason="pywb (the replay extra) is not installed"),
]


@pytest.fixture
def site() -> Iterator[ScriptSite]:
    server = httpserver.TestServer().start()
    yield script_site(server, pages=1)
    server.stop()


#: A page on the replay server's origin (answered by the test, not by pywb) that frames
#: the replayed page, as pywb's own view does, and copies what the frame shows into
#: itself, so the rendered DOM shows it (a page replayed as the top window sends the
#: browser to pywb's framed view; in a frame it stays as it is).
WRAPPER = """<!doctype html><html><body><pre id="shown"></pre>
<iframe id="replayed" src="{address}" style="width:1280px;height:800px"></iframe>
<script>
setInterval(() => {{
  const inner = document.getElementById("replayed").contentDocument;
  if (inner && inner.body) document.getElementById("shown").textContent = inner.body.innerHTML;
}}, 50);
</script></body></html>"""


def _rendered(base: str, address: str) -> tuple[bytes, list[tuple[str, int]]]:
    """What the page at ``address`` shows, rendered in Chromium from the replay server,
    and the status of each response it loaded."""

    async def run() -> tuple[bytes, list[tuple[str, int]]]:
        statuses: list[tuple[str, int]] = []
        wrapper = f"{base}/wrapper-of-the-test.html"

        class Logged(FromServer):
            async def __call__(self, request):  # type: ignore[no-untyped-def]
                if request.url == wrapper:
                    self.requests.append(request)
                    html = WRAPPER.format(address=address).encode()
                    return Answer(200, "OK", [("Content-Type", "text/html")], html)
                answer = await super().__call__(request)
                statuses.append((request.url, getattr(answer, "status", 0)))
                return answer

        async with browser() as chromium, httpx.AsyncClient(follow_redirects=False) as client:
            page = await chromium.load(wrapper, 0, Logged(client))
        assert page.error is None, page.error
        return page.dom, statuses

    return asyncio.run(run())


def test_a_browser_capture_replays_with_what_its_script_loaded_at_each_capture(project, site):
    capture = replace(CaptureSettings(), mode="browser")
    run = replace(settings(read_timeout=5.0, total_timeout=10.0), capture=capture)
    inject([site.url("/")], T0)
    crawl(project, run, clock=clock_at())
    site.stories["index"][0] = ("Harbour news", "The harbour wall will stay open.", None)
    crawl(project, run, clock=clock_at(13 * DAY))
    first, second = (e.fetched_at for e in events_of(site.url("/")))
    assert events_of(site.url("/"))[-1].change == "changed"
    site.server.stop()  # the replay must not reach the live site
    replay = ReplayServer(project.path)
    try:
        for when, said, not_said in (
            (first, b"will close", b"stay open"),
            (second, b"stay open", b"will close"),
        ):
            stamp = when.strftime("%Y%m%d%H%M%S")
            dom, statuses = _rendered(replay.base, replay.url(stamp, site.url("/"), inner=True))
            assert said in dom and not_said not in dom, dom[:3000]
            assert b"Loading" not in dom and b"Harbour news" in dom
            # the script, the JSON and the image it added all came from the archive
            for path in ("/app.js", "/api/index.json", "/img/index.png"):
                hits = [s for url, s in statuses if url.endswith(path)]
                assert hits and all(s == 200 for s in hits), (path, statuses)
    finally:
        replay.stop()
