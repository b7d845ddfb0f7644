"""Browser capture benchmark: pages/s and peak memory of a crawl in ``browser`` mode.

    python bench/browser_bench.py [--pages 120] [--tabs 1,2,4] [--keep]

A loopback site of script-built pages (tests/support/scriptsite.py: each page's HTML says
"Loading", a script fetches its stories from a JSON API and adds an image; a shared
script and stylesheet) is crawled by ``recrawl crawl`` in a fresh project each time:
once in ``http`` mode, then in ``browser`` mode with 1, 2 and 4 tabs (``capture.tabs``,
as many connections per host, no politeness delay, robots.txt obeyed). Every page is
injected, so both modes fetch the same pages (over HTTP the script-built links are
never seen). Pages/s is pages fetched over the crawl process's wall time, the browser's
start included. Peak memory is the highest sum, sampled every 0.1 s, of the
proportional set sizes (``Pss`` of ``/proc/PID/smaps_rollup``: shared pages split among
the processes that share them) of the crawl process and all its descendants: its
analysis processes and every Chromium process.

Targets (docs/design.md §16): ≥ 3 pages/s with 4 tabs, ≤ 1.5 GiB peak for the crawl with
its browser. Exit status 0 whatever the figures: each target says met or MISSED.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.httpserver import TestServer
from tests.support.scriptsite import script_site

GIB = 1 << 30
RECRAWL = [sys.executable, "-m", "recrawl"]


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it, from /proc's children lists."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            tasks = Path(f"/proc/{current}/task").iterdir()
            for task in tasks:
                children = (task / "children").read_text().split()
                todo.extend(int(child) for child in children)
        except OSError:
            continue
    return found


def pss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class PeakSampler:
    """Samples the process tree's total Pss until stopped; keeps the highest."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self.browser_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            pids = descendants(self.pid)
            total = sum(pss(p) for p in pids)
            browser = sum(pss(p) for p in pids if _is_chromium(p))
            self.peak = max(self.peak, total)
            self.browser_peak = max(self.browser_peak, browser)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _is_chromium(pid: int) -> bool:
    try:
        return "chrom" in Path(f"/proc/{pid}/comm").read_text()
    except OSError:
        return False


def run(args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RECRAWL, *args], check=True, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def crawl_once(root: Path, urls: list[str], mode: str, tabs: int) -> dict[str, float]:
    project = root / f"{mode}-{tabs}"
    shutil.rmtree(project, ignore_errors=True)
    run(["init", str(project)])
    seeds = root / "seeds.txt"
    seeds.write_text("\n".join(urls) + "\n")
    run(["inject", str(project), "--file", str(seeds)])
    run(
        [
            "settings",
            str(project),
            "--set",
            f"capture.mode={mode}",
            "--set",
            f"capture.tabs={tabs}",
        ]
    )
    command = [
        *RECRAWL,
        "crawl",
        str(project),
        "--delay",
        "0",
        "--per-host",
        str(tabs),
        "--concurrency",
        str(max(4, tabs)),
        "--json",
    ]
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = PeakSampler(process.pid)
    out, err = process.communicate()
    wall = time.perf_counter() - began
    sampler.stop()
    if process.returncode != 0:
        raise SystemExit(f"crawl failed ({mode}, {tabs} tabs): {err.strip()[-2000:]}")
    report = json.loads(out)
    pages = report["fetched"]
    return {
        "mode": mode,
        "tabs": tabs,
        "fetched": pages,
        "embeds": report.get("embeds_fetched", 0),
        "errors": report["errors"],
        "wall_s": wall,
        "pages_per_s": len(urls) / wall,
        "peak_bytes": sampler.peak,
        "browser_peak_bytes": sampler.browser_peak,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=120)
    parser.add_argument("--tabs", default="1,2,4")
    parser.add_argument("--keep", action="store_true")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="browser-bench-"))
    server = TestServer().start()
    try:
        site = script_site(server, pages=options.pages)
        urls = [site.url("/")] + [site.url(f"/story{n}") for n in range(1, options.pages)]
        rows = [crawl_once(root, urls, "http", 4)]
        for tabs in (int(t) for t in options.tabs.split(",")):
            rows.append(crawl_once(root, urls, "browser", tabs))
    finally:
        server.stop()
        if not options.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(
        f"{'mode':<8} {'tabs':>4} {'pages':>6} {'embeds':>7} {'errors':>6} {'wall s':>7} "
        f"{'pages/s':>8} {'peak MiB':>9} {'browser MiB':>12}"
    )
    for row in rows:
        print(
            f"{row['mode']:<8} {row['tabs']:>4} {row['fetched']:>6} {row['embeds']:>7} "
            f"{row['errors']:>6} {row['wall_s']:>7.1f} {row['pages_per_s']:>8.2f} "
            f"{row['peak_bytes'] / (1 << 20):>9.0f} {row['browser_peak_bytes'] / (1 << 20):>12.0f}"
        )
    four = [r for r in rows if r["mode"] == "browser" and r["tabs"] == 4]
    if four:
        rate, peak = (
            four[0]["pages_per_s"],
            max(r["peak_bytes"] for r in rows if r["mode"] == "browser"),
        )
        print(f"target ≥ 3 pages/s with 4 tabs: {rate:.2f} — {'met' if rate >= 3 else 'MISSED'}")
        print(
            f"target ≤ 1.5 GiB peak: {peak / GIB:.2f} GiB — {'met' if peak <= 1.5 * GIB else 'MISSED'}"
        )
    if options.keep:
        print(f"kept in {root}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
