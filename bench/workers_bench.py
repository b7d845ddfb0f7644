"""Workers benchmark: 1, 2 and 4 ``recrawl worker`` processes against one PostgreSQL.

    python bench/workers_bench.py [--pages 2000] [--workers 1,2,4] [--server auto]

A generated static site (bench/crawl_bench.py's) served on eight loopback hosts,
127.0.0.2 … 127.0.0.9 (one nginx listening on all eight, else Python servers), is
crawled to the end by N workers (``--until-idle``) sharing a project whose store is in
a private PostgreSQL cluster (started like the tests' one, tests/support/postgres.py); then by
one worker on SQLite beside it. Prints pages/s and the speed-up over one worker (target:
2 workers ≥ 1.7×).

Then the paper simulation of 16 machines: the cluster logs every statement of the
two-worker run (``log_statement = all``, with the backend's pid), each backend's
transactions are told apart (lease, release, batch commit, heartbeat, other), and the
statements (round-trips at most) per batch, per round and per heartbeat are scaled to 16
machines at 1,000 pages/s each. Run it on an idle machine: a small site measures the
workers' start-up (analysis processes, imports), not their crawling.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.crawl_bench import (
    BIN,
    Server,
    find_nginx,
    free_port,
    generate_site,
    start_nginx,
)
from tests.support.postgres import Cluster, binaries

HOSTS = tuple(f"127.0.0.{i}" for i in range(2, 10))
LEASE_S = 60.0
COMMIT_EVERY = 200  # CrawlSettings.commit_every
TARGET_2X = 1.7
MACHINES, PER_MACHINE = 16, 1000.0

PY_SERVERS = """
import functools, http.server, sys, threading
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(Quiet, directory=sys.argv[2])
for host in sys.argv[3:]:
    server = http.server.ThreadingHTTPServer((host, int(sys.argv[1])), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
threading.Event().wait()
"""


def start_site(site: Path, tmp: Path, kind: str) -> Server:
    port = free_port()
    nginx = find_nginx() if kind != "python" else None
    if nginx:
        server = start_nginx(nginx, site, tmp / "nginx", port, HOSTS)
    else:
        proc = subprocess.Popen(
            [sys.executable, "-c", PY_SERVERS, str(port), str(site), *HOSTS],
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        server = Server("python ThreadingHTTPServer ×8", port, proc)
    deadline = time.monotonic() + 15
    while True:  # every host answers
        try:
            for host in HOSTS:
                with urllib.request.urlopen(f"http://{host}:{port}/index.html", timeout=2):
                    pass
            return server
        except OSError:
            if server.proc.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"{server.name} does not answer on port {port}") from None
            time.sleep(0.05)


def recrawl(*args: object) -> str:
    done = subprocess.run(
        [str(BIN / "recrawl"), *map(str, args)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"recrawl {args[0]} failed: {done.stderr.strip()}")
    return done.stdout


def crawl(project: Path, db: list[str], port: int, workers: int) -> tuple[float, int]:
    """N workers crawl the site to its end; (seconds, pages fetched)."""
    recrawl("init", project, *db)
    recrawl(
        "settings",
        project,
        *("--set", "watch.round_gap=0s", "--set", "sources.enabled=false"),
        *("--set", "politeness.per_host=4", "--set", "politeness.concurrency=32"),
    )
    recrawl("inject", project, *(f"http://{host}:{port}/index.html" for host in HOSTS))
    command = [str(BIN / "recrawl"), "worker", str(project), "--until-idle", "--json"]
    command += ["--delay", "0", "--ignore-robots"]
    started = time.perf_counter()
    children = [
        subprocess.Popen([*command, "--name", f"w{i}"], stdout=subprocess.PIPE, text=True)
        for i in range(workers)
    ]
    fetched = 0
    for child in children:
        out, _ = child.communicate()
        if child.returncode != 0:
            raise RuntimeError(f"a worker failed with exit code {child.returncode}")
        fetched += sum(json.loads(line)["fetched"] for line in out.splitlines())
    return time.perf_counter() - started, fetched


# -- the paper simulation -----------------------------------------------------------------

_STATEMENT = re.compile(r"^\[(\d+)\] LOG:  (?:statement|execute [^:]*): (.*)$")


def transactions(log: str) -> list[list[str]]:
    """Each backend's statements, grouped into transactions (a statement outside BEGIN …
    COMMIT is one of its own)."""
    open_: dict[str, list[str]] = defaultdict(list)
    done: list[list[str]] = []
    for line in log.splitlines():
        found = _STATEMENT.match(line)
        if not found:
            continue
        backend, sql = found.groups()
        word = sql.strip().split(None, 1)[0].upper() if sql.strip() else ""
        if word == "BEGIN":
            open_[backend] = [sql]
        elif word in ("COMMIT", "ROLLBACK") and open_.get(backend):
            done.append([*open_.pop(backend), sql])
        elif open_.get(backend):
            open_[backend].append(sql)
        else:
            done.append([sql])
    return done


def kind(transaction: list[str]) -> str:
    text = " ".join(transaction)
    if '"committed_bytes"' in text and '"host_lease"' in text:
        return "batch commit"  # a worker's: its leases checked first
    if 'INSERT INTO "host_lease"' in text:
        return "lease"
    if 'UPDATE "worker" SET "heartbeat_at"' in text and '"ended_at"' not in text:
        return "heartbeat"
    if 'UPDATE "host_lease" SET "worker"' in text:
        return "release"
    return "other"


def simulate(log: str, seconds: float, pages: int, workers: int) -> list[str]:
    counts: Counter[str] = Counter()
    trips: Counter[str] = Counter()
    for transaction in transactions(log):
        k = kind(transaction)
        counts[k] += 1
        trips[k] += len(transaction)
    per = {k: trips[k] / counts[k] for k in counts if counts[k]}
    batches = max(counts["batch commit"], 1)
    rounds = max(counts["lease"], 1)
    lines = [
        f"measured ({workers} workers, {pages} pages, {seconds:.1f} s): "
        + ", ".join(f"{k} {counts[k]}× {per.get(k, 0):.1f} statements" for k in sorted(counts)),
    ]
    pages_per_batch = pages / batches
    pages_per_round = pages / rounds
    batch_s = PER_MACHINE / pages_per_batch
    round_s = PER_MACHINE / pages_per_round
    beat_s = 1 / (LEASE_S / 3)
    # a run shorter than a heartbeat period has none: BEGIN, two UPDATEs, COMMIT
    per.setdefault("heartbeat", 4.0)
    lease_trips = round_s * (per.get("lease", 0) + per.get("release", 0)) + beat_s * per.get(
        "heartbeat", 0
    )
    commit_trips = batch_s * per.get("batch commit", 0)
    total = MACHINES * (lease_trips + commit_trips)
    lines += [
        f"per machine at {PER_MACHINE:,.0f} pages/s: {batch_s:.1f} batches/s "
        f"({pages_per_batch:.0f} pages each) × {per.get('batch commit', 0):.1f} round-trips, "
        f"{round_s:.2f} rounds/s × {per.get('lease', 0) + per.get('release', 0):.1f}, "
        f"a heartbeat every {LEASE_S / 3:.0f} s × {per.get('heartbeat', 0):.1f}",
        f"{MACHINES} machines: {MACHINES * lease_trips:,.0f} lease/heartbeat statements/s "
        f"+ {MACHINES * commit_trips:,.0f} batch statements/s = {total:,.0f} statements/s "
        "for the database",
        "(a statement is a round-trip at most: psycopg pipelines executemany's rows)",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="pages per host")
    parser.add_argument("--workers", default="1,2,4", help="worker counts to run")
    parser.add_argument("--server", choices=("auto", "nginx", "python"), default="auto")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    bin_dir = binaries()
    if bin_dir is None:
        print("PostgreSQL is not installed (apt-get install postgresql)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="recrawl-workers-bench-") as folder:
        tmp = Path(folder)
        generate_site(tmp / "site", args.pages)
        server = start_site(tmp / "site", tmp, args.server)
        cluster = Cluster(bin_dir)
        try:
            cluster.start()
            total = args.pages * len(HOSTS)
            print(f"site: {args.pages} pages × {len(HOSTS)} hosts ({server.name})")
            rates: dict[int, float] = {}
            log = ""
            for n in counts:
                url = cluster.new_database()
                logged = n == 2 or (len(counts) == 1)
                if logged:
                    _log_statements(cluster, True)
                    mark = _log_size(cluster)
                seconds, pages = crawl(tmp / f"pg{n}", ["--db", url], server.port, n)
                if logged:
                    _log_statements(cluster, False)
                    log = _read_log(cluster, mark)
                    logged_run = (seconds, pages, n)
                rates[n] = pages / seconds
                speed = f", {rates[n] / rates[counts[0]]:.2f}× one" if n != counts[0] else ""
                print(
                    f"PostgreSQL, {n} worker(s): {pages}/{total} pages in {seconds:.1f} s, "
                    f"{rates[n]:.0f} pages/s{speed}"
                )
            if 1 in rates and 2 in rates:
                verdict = "met" if rates[2] / rates[1] >= TARGET_2X else "NOT met"
                print(f"target 2 workers ≥ {TARGET_2X}× one: {verdict}")
            seconds, pages = crawl(tmp / "sqlite", [], server.port, 1)
            print(
                f"SQLite, 1 worker: {pages}/{total} pages in {seconds:.1f} s, "
                f"{pages / seconds:.0f} pages/s"
            )
            if log:
                for line in simulate(log, *logged_run):
                    print(line)
        finally:
            cluster.stop()
            server.stop()
    return 0


def _log_statements(cluster: Cluster, on: bool) -> None:
    with cluster.admin() as conn:
        if on:
            conn.execute("ALTER SYSTEM SET log_statement = 'all'")
            conn.execute("ALTER SYSTEM SET log_line_prefix = '[%p] '")
        else:
            conn.execute("ALTER SYSTEM RESET log_statement")
        conn.execute("SELECT pg_reload_conf()")


def _log_size(cluster: Cluster) -> int:
    with contextlib.suppress(OSError):
        return (cluster.root / "log").stat().st_size
    return 0


def _read_log(cluster: Cluster, start: int) -> str:
    with open(cluster.root / "log", "rb") as fh:
        fh.seek(start)
        return fh.read().decode("utf-8", "replace")


if __name__ == "__main__":
    sys.exit(main())
