"""Memory benchmark: a crawl's peak resident memory on the pages that cost the most.

    python bench/memory_bench.py [--links 100000] [--case many-links|hostile|all] [--keep]

``many-links``: one page with ``--links`` same-site links that robots.txt denies (issue 12
measured 369 MiB): the crawl fetches the page, makes a page of every link, then records
each as robots-denied without requesting it. ``hostile``: the hostile server of the test
suite (tests/support/hostile.py: bombs, endless bodies, 100,000 links, 100,000 nested elements, a
calendar trap...) crawled as issue 12 did (``--delay 0 --per-host 4 --timeout 5 --rounds
3``; it measured 488 MiB). Each crawl is ``recrawl crawl`` in a child process; its peak RSS
is that process's VmHWM. The target is under 300 MiB for each; exit status
1 if one is over.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MiB = 1 << 20
TARGET_MIB = 300

SERVE = """
import functools, http.server, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


@dataclass
class Measured:
    returncode: int
    seconds: float
    peak_rss: int  # bytes
    stdout: str
    stderr: str


#: Runs ``recrawl`` and writes its peak resident memory (VmHWM, kB) to a file at exit.
#: Not wait4's ru_maxrss: Linux carries the forking parent's peak over exec into it.
MEASURE = """
import re, runpy, sys
report = sys.argv.pop(1)
sys.argv[0] = "recrawl"
try:
    runpy.run_module("recrawl", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status, open(report, "w") as out:
        out.write(re.search(r"VmHWM:\\s*(\\d+) kB", status.read()).group(1))
"""


def run_measured(args: Sequence[str]) -> Measured:
    """``recrawl ARGS`` in a child process, with its own peak RSS (VmHWM)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        out, err, report = (Path(scratch, name) for name in ("out", "err", "peak"))
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            returncode = subprocess.call(
                [sys.executable, "-c", MEASURE, str(report), *args], stdout=stdout, stderr=stderr
            )
        peak = int(report.read_text() or 0) * 1024 if report.exists() else 0
        return Measured(
            returncode,
            time.monotonic() - started,
            peak,
            out.read_text("utf-8", "replace"),
            err.read_text("utf-8", "replace"),
        )


def many_links_site(root: Path, links: int) -> None:
    """``/index.html``: ``links`` links to ``/denied/N``, which robots.txt denies."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /denied/\n")
    body = "".join(f'<a href="/denied/{i}">{i}</a>\n' for i in range(links))
    (root / "index.html").write_text(f"<!DOCTYPE html><html><body>{body}</body></html>")


def crawl_many_links(work: Path, links: int) -> Measured:
    site = work / "site"
    many_links_site(site, links)
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(site)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        project = work / "many-links"
        for args in (("init", str(project)), ("inject", str(project))):
            extra = [f"http://127.0.0.1:{port}/index.html"] if args[0] == "inject" else []
            done = run_measured([*args, *extra])
            if done.returncode:
                raise SystemExit(done.stderr)
        return run_measured(["crawl", str(project), "--delay", "0", "--per-host", "4"])
    finally:
        server.kill()
        server.communicate(timeout=10)


def crawl_hostile(work: Path) -> Measured | None:
    sys.path.insert(0, str(HERE.parent))
    try:
        from tests.support.hostile import HostileServer  # the test suite's hostile server
    except ImportError:
        return None
    server = HostileServer()
    try:
        project = work / "hostile"
        for args in (("init", str(project)), ("inject", str(project), *server.seeds())):
            done = run_measured(args)
            if done.returncode:
                raise SystemExit(done.stderr)
        return run_measured(
            [
                "crawl",
                str(project),
                *("--delay", "0", "--per-host", "4", "--timeout", "5", "--rounds", "3"),
            ]
        )
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--links", type=int, default=100_000, help="links of the many-links page")
    parser.add_argument("--case", choices=("many-links", "hostile", "all"), default="all")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="recrawl-memory-bench-"))
    over = False
    try:
        cases: list[tuple[str, Measured | None]] = []
        if args.case in ("many-links", "all"):
            name = f"one page of {args.links:,} robots-denied links"
            cases.append((name, crawl_many_links(work, args.links)))
        if args.case in ("hostile", "all"):
            cases.append(("the hostile server (--rounds 3)", crawl_hostile(work)))
        for name, run in cases:
            if run is None:
                print(f"{name}: skipped (tests/support/hostile.py is not in this checkout)")
                continue
            if run.returncode:
                print(f"{name}: the crawl failed ({run.returncode}):\n{run.stderr[-2000:]}")
                over = True
                continue
            peak = run.peak_rss / MiB
            verdict = "ok" if peak < TARGET_MIB else "OVER"
            over |= peak >= TARGET_MIB
            print(
                f"{name}: peak RSS {peak:,.0f} MiB (target < {TARGET_MIB} MiB: {verdict}), "
                f"{run.seconds:,.1f} s"
            )
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
