"""pywb's banner says a capture's time as the app does: local, with its zone (issue 25).

pywb's own banner read the capture's UTC stamp as local time, unlabelled. The replay
server serves its banner script changed (core/replay/banner.py); a real browser
(headless Chromium, where installed) shows the banner of a real capture in Tokyo's time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from recrawl.core.archive.captures import find_captures
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.engine import inject
from recrawl.core.replay.banner import SCRIPT, local_script
from recrawl.core.replay.server import ReplayServer

from tests.support.crawling import T0, clock_at, crawl
from tests.support.httpserver import Reply
from tests.support.replayserver import fetch

pywb = pytest.importorskip("pywb")
PYWB_SCRIPT = Path(pywb.__file__).parent / "static" / SCRIPT
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_the_installed_pywbs_banner_script_is_one_the_server_knows_how_to_change():
    original = PYWB_SCRIPT.read_text(encoding="utf-8")
    changed = local_script(original)
    assert changed is not None, "pywb's banner changed: core/replay/banner.py must follow"
    assert "Date.UTC(this.year" in changed and 'timeZoneName: "short"' in changed
    assert local_script("an unknown script") is None


@pytest.mark.slow
def test_the_replay_server_serves_the_changed_banner_script(project, server):
    server.routes["/"] = Reply(200, b"<p>hello</p>", {"Content-Type": "text/html"})
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    replay = ReplayServer(project.path)
    try:
        served = fetch(f"{replay.base}/static/{SCRIPT.as_posix()}", encodings="")
        assert served.status == 200
        assert b"recrawl: the stamp is UTC" in served.body

        if CHROMIUM is None:
            pytest.skip("no Chromium to show the banner in")
        (capture,) = find_captures(project.path, server.url("/"))
        page = replay.url(capture_stamp(capture.date), server.url("/"))
        shown = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--lang=en-US",
             "--virtual-time-budget=10000", "--dump-dom", page],
            env={**os.environ, "TZ": "Asia/Tokyo", "LANG": "en_US.UTF-8"},
            capture_output=True, text=True, timeout=120, check=False,
        ).stdout  # fmt: skip
        # captured at 2027-01-01 00:00 UTC: 9:00 in Tokyo, labelled with its zone
        assert "1/1/2027, 9:00:" in shown and "GMT+9" in shown, shown[-3000:]
    finally:
        replay.stop()
