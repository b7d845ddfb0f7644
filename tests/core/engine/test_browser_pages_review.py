"""Step 16 review: browser pages a hostile site or a careless user makes (docs/design.md §16)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from recrawl.core.archive.rendering import rendering_at
from recrawl.core.archive.segments import resolve
from recrawl.core.config import CaptureSettings
from recrawl.core.engine import inject

from tests.support import httpserver
from tests.support.browsing import needs_chromium
from tests.support.crawling import DAY, T0, clock_at, crawl, events_of, page, settings
from tests.support.httpserver import Reply

pytestmark = [needs_chromium, pytest.mark.slow]


def bs(**capture):
    base = settings(read_timeout=5.0, total_timeout=10.0)
    return replace(base, capture=replace(CaptureSettings(), mode="browser", **capture))


@pytest.fixture
def server():
    s = httpserver.TestServer().start()
    yield s
    s.stop()


def pdf(text: str) -> bytes:
    return f"%PDF-1.4\n1 0 obj<</T ({text})>>endobj\ntrailer<<>>\n%%EOF\n".encode()


def test_an_edited_pdf_in_browser_mode_is_a_change(project, server):
    server.routes["/doc.pdf"] = Reply(200, pdf("one"), {"Content-Type": "application/pdf"})
    inject([server.url("/doc.pdf")], T0)
    crawl(project, bs(), clock=clock_at())
    server.routes["/doc.pdf"] = Reply(200, pdf("two, edited"), {"Content-Type": "application/pdf"})
    crawl(project, bs(), clock=clock_at(13 * DAY))
    first, second = events_of(server.url("/doc.pdf"))
    # the browser's PDF viewer draws the same DOM for every PDF: the bytes decide
    assert second.change == "changed"
    # what the viewer loads of its own is not the page's: nothing missing
    assert first.embeds == 0 and first.embeds_missing_count == 0
    doc = page(server.url("/doc.pdf"))
    assert doc.status == "fetched"
    # its screenshot is kept, not the viewer's DOM: re-signing and diff read the PDF's bytes
    kept = rendering_at(resolve(project.path, doc.capture_file), doc.capture_offset)
    assert kept.dom is None and kept.screenshot is not None
