"""Loading pages in the real Chromium for tests: handlers that answer the browser's
requests, and the mark for tests that need the browser.

Without Chromium those tests are skipped, or fail when ``RECRAWL_REQUIRE_CHROMIUM=1``
(CI sets it: a missing browser must not pass as green).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import ClassVar

import httpx
import pytest
from recrawl.core.browser.browser import Browser
from recrawl.core.browser.chromium import find_chromium
from recrawl.core.browser.load import Answer, Intercepted, Refusal
from recrawl.core.config import CaptureSettings
from recrawl.core.errors import BrowserMissing

USER_AGENT = "Recrawl-tests/1.0"
MAX_DOM = 10 * 1024 * 1024


def _chromium_missing() -> str | None:
    try:
        find_chromium()
    except BrowserMissing as exc:
        return str(exc)
    return None


_MISSING = _chromium_missing()
#: On a test that loads pages in Chromium: skipped without it, unless it is required
#: (then it runs, and fails on the missing browser with its one line).
needs_chromium = pytest.mark.skipif(
    _MISSING is not None and os.environ.get("RECRAWL_REQUIRE_CHROMIUM") != "1",
    reason=f"Chromium is not installed: {_MISSING}",
)


def capture_settings(**changes: object) -> CaptureSettings:
    """The defaults, with a short idle (0.2 s) so a test's loads take little time."""
    return dataclasses.replace(CaptureSettings(), **{"idle": 0.2, **changes})  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def browser(**changes: object) -> AsyncIterator[Browser]:
    """A started browser, closed (its processes killed) after the block."""
    started = Browser(capture_settings(**changes), USER_AGENT, MAX_DOM)
    try:
        await started.start()
        yield started
    finally:
        await started.close()


@dataclass
class Recording:
    """A handler's log: every request the browser asked it for, in order."""

    requests: list[Intercepted] = field(default_factory=list)

    def urls(self, resource_type: str | None = None) -> list[str]:
        return [r.url for r in self.requests if resource_type in (None, r.resource_type)]

    def types(self) -> set[str]:
        return {r.resource_type for r in self.requests}


class FromServer(Recording):
    """Answers each request from the real server it names (httpx), as the crawl would."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        super().__init__()
        self.client = client

    async def __call__(self, request: Intercepted) -> Answer | Refusal:
        self.requests.append(request)
        try:
            response = await self.client.request(request.method, request.url)
        except httpx.HTTPError as exc:
            return Refusal(f"not fetched: {exc}", end_load=request.navigation)
        if request.navigation and not 200 <= response.status_code < 300:
            return Refusal(f"HTTP {response.status_code}", end_load=True)
        return Answer(
            response.status_code,
            response.reason_phrase,
            list(response.headers.items()),
            response.content,
        )


class FromDict(Recording):
    """Answers from a dict of URL → body (HTML, or by the path's suffix); refuses the rest."""

    TYPES: ClassVar[dict[str, str]] = {
        ".json": "application/json",
        ".png": "image/png",
        ".js": "text/javascript",
    }

    def __init__(self, pages: dict[str, bytes | str]) -> None:
        super().__init__()
        self.pages = pages

    async def __call__(self, request: Intercepted) -> Answer | Refusal:
        self.requests.append(request)
        body = self.pages.get(request.url)
        if body is None:
            return Refusal("not in the test's pages", end_load=request.navigation)
        suffix = "." + request.url.rsplit(".", 1)[-1]
        kind = self.TYPES.get(suffix, "text/html; charset=utf-8")
        raw = body.encode() if isinstance(body, str) else body
        return Answer(200, "OK", [("Content-Type", kind)], raw)


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header (IHDR, the first chunk)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height
