"""Watch benchmark: what a watcher costs on a 1,000,000-page project with 100 pages due an hour.

    python bench/watch_bench.py [--pages 1000000] [--per-hour 100] [--idle-seconds 120]
                                [--keep]

1. Serves small pages on loopback (a separate process) and builds a store of ``--pages``
   fetched pages on that server (one INSERT … SELECT: no WARCs, as bench/compact_bench.py's
   listing store), their next fetches ``3600 / --per-hour`` seconds apart from 10 minutes
   ahead: ``--per-hour`` pages fall due each hour.
2. The store's side of a wake: the due-page query (``due_page_refs``, a round's
   "generate") and the earliest next fetch (``earliest_next_fetch``, asked after every
   round and wake), timed on the 1M store; both walk the ``next_fetch`` index.
3. The overhead of one round beyond its fetches, in process: a :class:`Watcher` limited
   to one round (project lock, wake channel, crawl run record, recovery check, generate,
   segment, commit, segment close, the round's news line) with 1, 8 and 100 pages due;
   overhead = wall time − the fetches' own time (their elapsed ms over the requests in
   flight at once). 8 is a round's worth at 100 pages an hour with the default
   ``watch.round_gap`` of 5 minutes (12 rounds an hour). Target < 1 s. The round's CPU
   time (all threads) is measured too.
4. An idle hour: ``recrawl watch DIR`` (the real command, default watch settings) runs a
   first round of 8 due pages and sleeps until the next page is due (10 minutes away);
   its CPU time (utime + stime from /proc) and wake-ups (context switches of all its
   threads) are read over ``--idle-seconds`` of that sleep and scaled to an hour
   (linearly: idle, it only wakes once a ``watch.wake_check``, a minute, to read the
   clock). Peak memory is the process's VmHWM (high-water RSS since it started, the
   first round included); VmRSS is what it holds while idle.
5. A watched hour, estimated: the idle CPU per hour + 12 rounds × the CPU of an 8-page
   round (step 3).

Exit status 1 if the round overhead misses its target. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.config import CrawlSettings, PolitenessSettings
from recrawl.core.engine import Event, PageFetched
from recrawl.core.project import Project
from recrawl.core.store.models import DB
from recrawl.core.watch.watcher import Watcher

ROOT = Path(__file__).resolve().parents[1]

SERVE = """
import http.server, sys
BODY = b"<html><head><title>page</title></head><body><p>" + b"text " * 400 + b"</p></body></html>"
class Pages(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        if self.path == "/robots.txt":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
"""

#: Each measured round runs this many times (median).
TRIALS = 3


def build_store(folder: Path, origin: str, pages: int, per_hour: int) -> list[str]:
    """``pages`` fetched pages on ``origin``, ``per_hour`` falling due each hour from 10
    minutes ahead; returns their URLs in due order. One INSERT … SELECT over a counter
    (SQLite makes the rows: a minute, not ten, for a million on a busy machine)."""
    project = Project.init(folder)
    now = utcnow().replace(microsecond=0)
    step = 3600 // per_hour
    month_ago = _db_time(now - timedelta(days=30))
    columns = (
        "url, host, status, first_seen, first_fetched, last_fetched, next_fetch, "
        "fetch_interval, retries, score, cash, depth, metadata"
    )
    with DB.atomic():
        DB.execute_sql(
            f"WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1) "
            f"INSERT INTO page ({columns}) "
            "SELECT ? || '/p' || i, '127.0.0.1', 'fetched', ?, ?, ?, "
            "strftime('%Y-%m-%d %H:%M:%S', ?, '+' || (600 + i * ?) || ' seconds') || '.000000', "
            "2592000.0, 0, 1.0, 0.0, 0, '{}' FROM n",
            (pages, origin, month_ago, month_ago, _db_time(now - timedelta(days=1)),
             now.strftime("%Y-%m-%d %H:%M:%S"), step),
        )  # fmt: skip
    project.close()
    return [f"{origin}/p{i}" for i in range(pages)]


def _db_time(value: datetime) -> str:
    # as peewee stores datetimes: text that sorts
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")


def bench_settings(**overrides: object) -> CrawlSettings:
    politeness = replace(PolitenessSettings(), delay=0.0, obey_robots=False, per_host=4)
    return replace(CrawlSettings(politeness=politeness), **overrides)


def time_queries(folder: Path) -> tuple[float, float]:
    """Milliseconds of generate (due_page_refs) and earliest_next_fetch on the store."""
    project = Project.open(folder)
    try:
        now = utcnow() + timedelta(hours=1)  # an hour's worth due: 100 pages
        generate, earliest = [], []
        for _ in range(5):
            started = time.perf_counter()
            refs, _ = store.due_page_refs(now, 50_000, 5_000)
            generate.append(time.perf_counter() - started)
            started = time.perf_counter()
            store.earliest_next_fetch()
            earliest.append(time.perf_counter() - started)
        assert refs, "nothing due in the hour"
        return statistics.median(generate) * 1000, statistics.median(earliest) * 1000
    finally:
        project.close()


class FetchTimes:
    def __init__(self) -> None:
        self.elapsed_ms: list[float] = []

    def __call__(self, batch: list[Event]) -> None:
        self.elapsed_ms += [e.elapsed_ms for e in batch if isinstance(e, PageFetched)]


def time_round(folder: Path, urls: list[str]) -> tuple[float, float, float]:
    """Wall seconds, overhead seconds and CPU seconds of a one-round watch of ``urls``."""
    project = Project.open(folder)
    try:
        store.make_due(urls, utcnow())
        times = FetchTimes()
        settings = bench_settings(rounds=1)
        watcher = Watcher(project, settings, observer=times)
        cpu = time.process_time()
        started = time.perf_counter()
        summary = watcher.run()
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        assert summary.fetched == len(urls), summary
        in_flight = min(len(urls), settings.politeness.per_host)
        fetching = sum(times.elapsed_ms) / 1000 / in_flight
        return wall, wall - fetching, cpu
    finally:
        project.close()


def proc_status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid: int) -> int:
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


def idle_watch(folder: Path, first_round: list[str], seconds: float) -> dict[str, float]:
    """``recrawl watch`` after a first round: CPU, wake-ups and memory over ``seconds``."""
    project = Project.open(folder)
    store.make_due(first_round, utcnow())
    project.close()
    child = subprocess.Popen(
        [sys.executable, "-m", "recrawl", "watch", str(folder), "--delay", "0", "--ignore-robots"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    lines: list[str] = []
    asleep = threading.Event()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(line.rstrip())
            if line.startswith("sleeping until") and any(x.startswith("round") for x in lines):
                asleep.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not asleep.wait(600):
            raise RuntimeError(f"the watcher never went to sleep: {lines}")
        cpu, switches = cpu_seconds(child.pid), context_switches(child.pid)
        started = time.monotonic()
        time.sleep(seconds)  # the idle stretch measured
        span = time.monotonic() - started
        result = {
            "span": span,
            "cpu": cpu_seconds(child.pid) - cpu,
            "switches": context_switches(child.pid) - switches,
            "hwm_mb": int(proc_status(child.pid)["VmHWM"].split()[0]) / 1024,
            "rss_mb": int(proc_status(child.pid)["VmRSS"].split()[0]) / 1024,
        }
        child.send_signal(signal.SIGTERM)
        child.wait(120)
        assert child.returncode == 0, child.stderr.read() if child.stderr else ""
        return result
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--per-hour", type=int, default=100)
    parser.add_argument("--idle-seconds", type=float, default=120.0)
    parser.add_argument("--keep", action="store_true", help="keep the generated project")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="recrawl-watch-bench-"))
    server = subprocess.Popen([sys.executable, "-c", SERVE], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        origin = f"http://127.0.0.1:{int(server.stdout.readline())}"
        folder = root / "project"
        started = time.perf_counter()
        urls = build_store(folder, origin, args.pages, args.per_hour)
        print(f"store: {args.pages:,} pages built in {time.perf_counter() - started:.1f} s")

        generate_ms, earliest_ms = time_queries(folder)
        print(
            f"store side of a wake on {args.pages:,} pages: generate (due_page_refs, "
            f"{args.per_hour} due) {generate_ms:.1f} ms, earliest_next_fetch {earliest_ms:.2f} ms"
        )

        ok = True
        round_cpu = {}
        # the last pages of the store, never due in the idle stretch below
        spare = iter(urls[len(urls) // 2 :])
        for count in (1, 8, 100):
            trials = [
                time_round(folder, [next(spare) for _ in range(count)]) for _ in range(TRIALS)
            ]
            wall = statistics.median(t[0] for t in trials)
            overhead = statistics.median(t[1] for t in trials)
            cpu = statistics.median(t[2] for t in trials)
            round_cpu[count] = cpu
            verdict = "ok" if overhead < 1.0 else "MISSED"
            ok = ok and overhead < 1.0
            print(
                f"one round of {count:>3} due pages: {wall:.3f} s wall, overhead beyond its "
                f"fetches {overhead:.3f} s (target < 1 s: {verdict}), CPU {cpu:.3f} s"
            )

        idle = idle_watch(folder, [next(spare) for _ in range(8)], args.idle_seconds)
        scale = 3600 / idle["span"]
        idle_cpu_hour = idle["cpu"] * scale
        tick = 1 / os.sysconf("SC_CLK_TCK")
        cpu_text = f"{idle_cpu_hour:.3f} s/hour"
        if idle["cpu"] == 0:  # not one of /proc's clock ticks in the whole stretch
            cpu_text = f"< {tick * scale:.2f} s/hour (no {tick * 1000:.0f} ms tick in it)"
        print(
            f"idle watcher (recrawl watch, {idle['span']:.0f} s of sleep scaled to an hour): "
            f"CPU {cpu_text}, {idle['switches'] * scale:.0f} wake-ups/hour, "
            f"RSS {idle['rss_mb']:.0f} MiB idle, peak {idle['hwm_mb']:.0f} MiB "
            "(VmHWM, first round included)"
        )
        rounds_per_hour = 3600 / CrawlSettings().watch.round_gap
        print(
            f"watched hour at {args.per_hour} due pages/hour (estimate: idle + "
            f"{rounds_per_hour:.0f} rounds of 8 pages): CPU "
            f"{idle_cpu_hour + rounds_per_hour * round_cpu[8]:.1f} s/hour"
        )
        return 0 if ok else 1
    finally:
        server.kill()
        server.communicate(timeout=10)
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
