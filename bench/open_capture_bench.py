"""How long "Open capture in browser" takes to show the page (issue 16's benchmark).

    python bench/open_capture_bench.py [--pages 3000] [--cold 3] [--warm 20]

A project of a few thousand pages is built as the crawl benchmark builds one (its
generated site, served by nginx if installed, crawled by ``recrawl crawl``), then the
app's steps are timed as it runs them: the capture's stamp looked up in the project's
indexes, the replay server started (``recrawl replay`` in a subprocess:
:class:`recrawl.core.replay.server.ReplayServer`), and the capture's replay URL fetched as
a browser would: pywb's frame (its banner), then the page in it (``mp_``), to the page's
first byte and its whole body (the banner's scripts and styles aside). Cold: no server yet (a new one per
try); warm: the server already runs (a different page each try). Medians are printed.

``open_capture_lines()`` gives the lines (bench/export_bench.py prints them too).
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.crawl_bench import BIN, generate_site, start_server

if TYPE_CHECKING:
    from recrawl.core.replay.server import ReplayServer


def _open(replay: ReplayServer, stamp: str, url: str) -> tuple[float, float, int, int]:
    """The frame, then the page in it: (seconds to the page's first byte, to its whole
    body, its status, its bytes)."""
    _, frame, status, _ = _fetch(replay.url(stamp, url))
    assert status == 200, (url, status)
    first, whole, status, size = _fetch(replay.url(stamp, url, inner=True))
    return frame + first, frame + whole, status, size


def _fetch(address: str) -> tuple[float, float, int, int]:
    """(seconds to the first byte, seconds to the whole body, status, body bytes)."""
    parts = urlsplit(address)
    started = time.perf_counter()
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        connection.request("GET", address[address.index("/", len("http://")) :])
        answer = connection.getresponse()  # the status line and headers: the first bytes
        first = time.perf_counter() - started
        body = answer.read()
        whole = time.perf_counter() - started
    finally:
        connection.close()
    return first, whole, answer.status, len(body)


def _crawl(project: Path, seed: str) -> None:
    recrawl = str(BIN / "recrawl")
    subprocess.run([recrawl, "init", str(project)], check=True, capture_output=True)
    subprocess.run([recrawl, "inject", str(project), seed], check=True, capture_output=True)
    cmd = [recrawl, "crawl", str(project), "--delay", "0", "--per-host", "16"]
    cmd += ["--concurrency", "16", "--ignore-robots"]
    subprocess.run(cmd, check=True, capture_output=True)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def open_capture_lines(pages: int = 3000, cold: int = 3, warm: int = 20) -> list[str]:
    from recrawl.core import store
    from recrawl.core.project import Project
    from recrawl.core.replay.server import ReplayServer
    from recrawl.core.store.models import Page
    from recrawl.gui.pages.page_jobs import replay_stamp

    with tempfile.TemporaryDirectory(prefix="open-capture-bench-") as folder:
        tmp = Path(folder)
        generate_site(tmp / "site", pages)
        server = start_server(tmp / "site", tmp)
        try:
            _crawl(tmp / "project", server.base + "/index.html")
        finally:
            server.stop()
        project = Project.open(tmp / "project")
        try:
            urls = [p.url for p in Page.select(Page.url).where(Page.last_fetched.is_null(False))]
            segments = len(list((tmp / "project" / "segments").iterdir()))
            chosen = urls[:: max(1, len(urls) // (cold + warm))][: cold + warm]
            lookups: list[float] = []
            stamps: dict[str, str] = {}
            for url in chosen:  # what the store thread does for the button
                started = time.perf_counter()
                stamps[url] = replay_stamp(tmp / "project", url)
                lookups.append(time.perf_counter() - started)
        finally:
            project.close()
            store.close_database()

        starts: list[float] = []
        cold_first: list[float] = []
        cold_whole: list[float] = []
        for url in chosen[:cold]:
            started = time.perf_counter()
            replay = ReplayServer(tmp / "project")
            try:
                starts.append(time.perf_counter() - started)
                first, whole, status, _ = _open(replay, stamps[url], url)
                assert status == 200, (url, status)
                cold_first.append(starts[-1] + first)
                cold_whole.append(starts[-1] + whole)
            finally:
                replay.stop()

        replay = ReplayServer(tmp / "project")
        warm_first: list[float] = []
        warm_whole: list[float] = []
        sizes: list[int] = []
        try:
            for url in chosen[cold:]:
                first, whole, status, size = _open(replay, stamps[url], url)
                assert status == 200, (url, status)
                warm_first.append(first)
                warm_whole.append(whole)
                sizes.append(size)
        finally:
            replay.stop()

    med = statistics.median
    lookup = med(lookups)
    return [
        f"open capture: {len(urls):,}-page project ({segments} segments), replay pages of "
        f"{med(sizes) / 1024:.1f} KiB (median)",
        f"open capture, cold (server not running; median of {cold}): first byte "
        f"{_ms(lookup + med(cold_first))}, full page {_ms(lookup + med(cold_whole))} "
        f"(server start {_ms(med(starts))}, capture lookup {_ms(lookup)})",
        f"open capture, warm (server running; median of {len(warm_first)}): first byte "
        f"{_ms(lookup + med(warm_first))}, full page {_ms(lookup + med(warm_whole))} "
        f"(capture lookup {_ms(lookup)})",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=3000)
    parser.add_argument("--cold", type=int, default=3, help="cold tries (a server each)")
    parser.add_argument("--warm", type=int, default=20, help="warm tries (one server)")
    args = parser.parse_args(argv)
    for line in open_capture_lines(args.pages, args.cold, args.warm):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
