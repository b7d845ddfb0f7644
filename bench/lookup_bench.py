"""Lookups that don't grow with the project's age (issue 29, point 3): finding a capture
by reading every index file (before) against the capture table (now), in projects of
many segments: ``find_captures``, ``payload_at`` (``show --at``), and a replay lookup
through the real pywb server (``id_``: the archived bytes), median and p95.

    python bench/lookup_bench.py [--segments 60,600,2800] [--captures 20] [--lookups 40]
                                 [--per-url N]

Each project is generated directly with the project's own segment writer (one segment a
round of ``--captures`` small pages, 500 distinct URLs re-captured round after round, or
as many as make ``--per-url`` captures a URL), so
its WARCs, indexes and table are the real ones. "before" is the same code with the table
marked not built: lookups, and the replay server, read the index files as before.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recrawl.core import store
from recrawl.core.archive.capture_table import build_captures
from recrawl.core.archive.captures import find_captures, payload_at
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.warc import payload_digest
from recrawl.core.net.http import HttpRequest, HttpResponse
from recrawl.core.project import Project
from recrawl.core.store.captures import COMPLETE, STALE

T0 = datetime(2027, 1, 1)
DISTINCT = 500


def url_of(i: int) -> str:
    return f"https://site{i % 23}.example/news/{i}/article.html" + ("?p=2" if i % 7 == 0 else "")


def generate(
    folder: Path, segments: int, per_segment: int, distinct: int = DISTINCT
) -> tuple[Project, list[str]]:
    project = Project.init(folder)
    rng = random.Random(segments)
    for n in range(segments):
        at = T0 + timedelta(hours=6 * n)
        writer = SegmentWriter(project.path, at.strftime("%Y%m%d%H%M%S"), at)
        for i in rng.sample(range(distinct), per_segment):
            url = url_of(i)
            body = f"<html><body>{url} at {at.isoformat()} {'x' * 600}</body></html>".encode()
            response = HttpResponse("HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], body)
            request = HttpRequest("GET", urlsplit(url).path, "HTTP/1.1", [])
            writer.write_response(
                url, at, request, response, digest=payload_digest(body), mime="text/html"
            )
        writer.close(at, writer.written())
    return project, [url_of(i) for i in range(distinct)]


def timed(fn: Callable[[], object], count: int) -> tuple[float, float]:
    """Median and p95 in ms of ``count`` calls."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def line(what: str, segments: int, before: tuple[float, float], now: tuple[float, float]) -> str:
    return (
        f"{segments:>5} segments  {what:<22} before median {before[0]:8.1f} ms  p95 {before[1]:8.1f}"
        f"  |  table median {now[0]:6.1f} ms  p95 {now[1]:6.1f}"
    )


def bench(
    segments: int, per_segment: int, lookups: int, replay: bool, per_url: int | None
) -> list[str]:
    distinct = max(DISTINCT, segments * per_segment // per_url) if per_url else DISTINCT
    with tempfile.TemporaryDirectory(prefix="lookup-bench-") as tmp:
        started = time.perf_counter()
        project, urls = generate(Path(tmp) / "proj", segments, per_segment, distinct)
        made = time.perf_counter() - started
        out = [
            f"{segments:>5} segments  {store.capture_count():,} captures of {distinct:,} URLs "
            f"({store.capture_count() / distinct:.0f} a URL), generated in {made:.1f} s"
        ]
        rng = random.Random(1)
        samples = [rng.choice(urls) for _ in range(lookups)]
        slow = max(5, lookups // (1 + segments // 300))  # the old scan at 2,800: seconds each
        targets = [(u, find_captures(project.path, u)) for u in samples]
        targets = [(u, rng.choice(c)) for u, c in targets if c]
        results: dict[str, dict[str, tuple[float, float]]] = {}
        for state in (STALE, COMPLETE):
            store.mark_captures(state)
            count = slow if state == STALE else lookups
            pick = itertools.cycle(targets).__next__

            def find(pick: Callable[[], tuple[str, Any]] = pick) -> None:
                find_captures(project.path, pick()[0])

            def at(pick: Callable[[], tuple[str, Any]] = pick) -> None:
                url, capture = pick()
                payload_at(project.path, url, capture.date)

            results.setdefault("find_captures", {})[state] = timed(find, count)
            results.setdefault("payload_at (show --at)", {})[state] = timed(at, count)
        if replay:
            results["replay lookup (pywb)"] = replay_times(project, targets, lookups, slow)
        store.mark_captures(COMPLETE)
        # the backfill of a project made before the table: every index read, every row
        started = time.perf_counter()
        (note,) = build_captures(project.path)
        built = time.perf_counter() - started
        project.close()
        for what, by in results.items():
            out.append(line(what, segments, by[STALE], by[COMPLETE]))
        out.append(f"{segments:>5} segments  backfill: {note.split(': ', 1)[1]} in {built:.2f} s")
        return out


def replay_times(
    project: Project, targets: list, lookups: int, slow: int
) -> dict[str, tuple[float, float]]:
    from recrawl.core.replay.server import ReplayServer

    from tests.support.replayserver import fetch

    server = ReplayServer(project.path)
    out = {}
    try:
        for state in (STALE, COMPLETE):
            store.mark_captures(state)
            pick = itertools.cycle(targets).__next__

            def one(pick: Callable[[], tuple[str, Any]] = pick) -> None:
                url, capture = pick()
                answer = fetch(server.url(capture_stamp(capture.date), url, raw=True))
                assert answer.status == 200, answer.status

            one()  # pywb's first request loads its templates
            out[state] = timed(one, slow if state == STALE else lookups)
    finally:
        server.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", default="60,600,2800")
    parser.add_argument("--captures", type=int, default=20, help="captures per segment")
    parser.add_argument("--lookups", type=int, default=40)
    parser.add_argument(
        "--per-url",
        type=int,
        default=None,
        help="captures a URL has on average (default: 500 URLs whatever the project's size)",
    )
    parser.add_argument("--no-replay", action="store_true")
    args = parser.parse_args()
    for count in (int(n) for n in args.segments.split(",")):
        for text in bench(count, args.captures, args.lookups, not args.no_replay, args.per_url):
            print(text, flush=True)


if __name__ == "__main__":
    main()
