"""The Pages panel's content view decodes as ``recrawl show`` does: bounded, faults said."""

from __future__ import annotations

import gzip
import time
import zlib

from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QApplication
from recrawl.core.clock import utcnow
from recrawl.core.config import VIEW
from recrawl.core.engine import inject
from recrawl.gui.pages import page_jobs
from recrawl.gui.pages.page_detail import ContentDialog
from recrawl.gui.pages.page_jobs import Content

from tests.support.crawling import crawl
from tests.support.httpserver import Reply

MiB = 1 << 20


def test_a_bomb_shows_its_first_megabytes_and_a_corrupt_gzip_says_so(project, server):
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = b"".join(packer.compress(b"a" * MiB) for _ in range(64)) + packer.flush()
    good = gzip.compress("<p>café</p>".encode() * 100)
    headers = {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"}
    server.routes["/bomb"] = Reply(200, bomb, headers)
    server.routes["/corrupt"] = Reply(200, good[:10] + b"\xff" + good[11:], headers)
    server.routes["/fine"] = Reply(200, good, headers)
    inject([server.url(p) for p in ("/bomb", "/corrupt", "/fine")], utcnow())
    crawl(project)

    shown = page_jobs.page_content(project.path, server.url("/bomb"))
    assert shown.text == "a" * VIEW.content_cap
    assert shown.note == "only the first 2 MiB are shown"
    broken = page_jobs.page_content(project.path, server.url("/corrupt"))
    assert broken.text == ""
    assert broken.note is not None and broken.note.startswith("cannot decode the gzip body")
    assert "recrawl show --raw" in broken.note
    fine = page_jobs.page_content(project.path, server.url("/fine"))
    assert fine.text == "<p>café</p>" * 100 and fine.note is None


def test_the_content_view_lays_out_a_long_unbroken_run_at_once(qtbot):
    """A bomb of zeros decodes to 2 MiB with nowhere to break a line; Qt's word wrap lays
    that out in time that grows with its square (minutes on the GUI thread): such text
    is wrapped anywhere, and text with spaces still wraps at words."""
    run = Content("http://example.org/bomb", "text/html", "\x00" * VIEW.content_cap, None)
    dialog = ContentDialog(run)
    qtbot.addWidget(dialog)
    assert dialog.text.wordWrapMode() == QTextOption.WrapMode.WrapAnywhere
    started = time.monotonic()
    with qtbot.waitExposed(dialog):
        dialog.show()
    QApplication.processEvents()  # the layout happens here, on the GUI thread
    # a guard against minutes, not a speed goal (this takes about a second)
    assert time.monotonic() - started < 30
    assert dialog.text.document().characterCount() == VIEW.content_cap + 1
    prose = ContentDialog(Content("http://example.org/", "text/html", "<p>a word " * 1000, None))
    qtbot.addWidget(prose)
    assert prose.text.wordWrapMode() == QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere
