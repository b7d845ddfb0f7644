"""Crawl benchmark: Recrawl against Scrapy on a generated static site served on loopback.

    python bench/crawl_bench.py [--pages 5000] [--keep] [--skip-scrapy] [--server auto]

Generates a deterministic site (every page 4–8 KB of HTML with ~20 same-site links, all
pages reachable from /index.html within a few hops), serves it with nginx if it is on
PATH (else a threaded Python server), crawls it with the ``recrawl`` CLI (init, inject,
crawl) and with a Scrapy spider at the same concurrency, and prints pages/s and peak RSS.
"""

from __future__ import annotations

import argparse
import contextlib
import grp
import json
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
CONCURRENCY = 32
SEED = 20240601
LINKS_PER_PAGE = 20
SPEEDUP_TARGET = 3.0
MEMORY_TARGET_MB = 300

_WORD_TEXT = (
    "archive crawl harvest web page link segment record capture revisit host politeness "
    "robots sitemap frontier queue schedule interval signature digest payload header "
    "status redirect canonical fragment query anchor document collection curator library "
    "memory preservation snapshot mirror index search replay browser server request response "
    "network protocol latency bandwidth storage format metadata provenance timestamp change "
    "the of and to in is that for on with as by at from it this be are was or an"
)
WORDS = _WORD_TEXT.split()


# -- site -------------------------------------------------------------------------------


def page_path(i: int) -> str:
    return "/index.html" if i == 0 else f"/p/{i:06d}.html"


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
    return " ".join(words).capitalize() + "."


def generate_site(root: Path, pages: int, seed: int = SEED) -> tuple[int, int]:
    """Write ``pages`` HTML files under ``root``; return (total bytes, total links)."""
    rng = random.Random(seed)
    (root / "p").mkdir(parents=True, exist_ok=True)
    total_bytes = total_links = 0
    for i in range(pages):
        # the next two pages guarantee reachability; the random rest keeps the depth small
        targets = [j for j in (i + 1, i + 2) if j < pages]
        while len(targets) < min(LINKS_PER_PAGE, pages - 1):
            j = rng.randrange(pages)
            if j != i:
                targets.append(j)
        rng.shuffle(targets)
        size = rng.randint(4000, 8000)
        parts = [
            "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f"<title>Bench page {i}</title></head>\n<body>\n<h1>Page {i}</h1>\n"
        ]
        length = len(parts[0])
        closing = "</body></html>\n"
        links = iter(targets)
        pending_links = len(targets)
        while length + len(closing) < size or pending_links:
            sentences = [_sentence(rng) for _ in range(rng.randint(1, 3))]
            if pending_links:
                j = next(links)
                pending_links -= 1
                k = rng.randrange(len(sentences) + 1)
                anchor = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))
                sentences.insert(k, f'See <a href="{page_path(j)}">{anchor}</a>.')
            para = "<p>" + " ".join(sentences) + "</p>\n"
            parts.append(para)
            length += len(para)
        parts.append(closing)
        data = "".join(parts).encode()
        (root / page_path(i).lstrip("/")).write_bytes(data)
        total_bytes += len(data)
        total_links += len(targets)
    return total_bytes, total_links


# -- servers ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


NGINX_CONF = """\
{user}worker_processes 2;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    types {{ text/html html; text/plain txt; }}
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
    }}
}}
"""

PY_SERVER = """\
import functools, http.server, sys

class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass

class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 256
    daemon_threads = True

handler = functools.partial(Handler, directory=sys.argv[2])
Server(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""


@dataclass
class Server:
    name: str
    port: int
    proc: subprocess.Popen
    log: Path | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def find_nginx() -> str | None:
    # /usr/sbin is often not on a normal user's PATH
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )


def start_nginx(
    nginx: str, site: Path, conf_dir: Path, port: int, hosts: tuple[str, ...] = ("127.0.0.1",)
) -> Server:
    """nginx serving ``site`` on ``port`` of each of ``hosts`` (not yet waited for)."""
    version = subprocess.run([nginx, "-v"], capture_output=True, text=True)
    name = (version.stderr or version.stdout).strip().rsplit("/", 1)[-1]
    conf_dir.mkdir()
    user = ""
    if os.geteuid() == 0:  # workers would drop to "nobody" and not read our 0700 temp dir
        user = f"user {pwd.getpwuid(0).pw_name} {grp.getgrgid(os.getgid()).gr_name};\n"
    text = NGINX_CONF.format(user=user, tmp=conf_dir, port=port, root=site)
    listens = "".join(f"        listen {host}:{port};\n" for host in hosts)
    text = text.replace(f"        listen 127.0.0.1:{port};\n", listens)
    conf = conf_dir / "nginx.conf"
    conf.write_text(text)
    log = conf_dir / "nginx-error.log"
    proc = subprocess.Popen(
        [nginx, "-p", str(conf_dir), "-c", str(conf), "-e", str(log), "-g", "daemon off;"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return Server(f"nginx {name}", port, proc, log)


def start_server(site: Path, tmp: Path, kind: str = "auto") -> Server:
    port = free_port()
    nginx = find_nginx() if kind != "python" else None
    if kind == "nginx" and not nginx:
        raise RuntimeError("--server nginx: nginx not found (apt-get install nginx)")
    if nginx:
        server = start_nginx(nginx, site, tmp / "nginx", port)
    else:
        proc = subprocess.Popen(
            [sys.executable, "-c", PY_SERVER, str(port), str(site)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        server = Server(f"python ThreadingHTTPServer (Python {sys.version.split()[0]})", port, proc)
    try:
        wait_ready(server)
    except BaseException:
        server.stop()
        raise
    return server


def wait_ready(server: Server, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if server.proc.poll() is not None:
            log = server.log.read_text() if server.log and server.log.exists() else ""
            raise RuntimeError(f"{server.name} exited with {server.proc.returncode}\n{log}")
        try:
            with urllib.request.urlopen(server.base + "/index.html", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{server.name} did not answer on port {server.port}")
        time.sleep(0.05)


# -- measured runs ----------------------------------------------------------------------


@dataclass
class Run:
    returncode: int
    wall_s: float
    peak_rss_mb: float
    stdout: str
    stderr: str
    #: CPU seconds (user + system) of the child and the children it waited for (the
    #: analysis processes): less skewed by other processes than the wall time.
    cpu_s: float = 0.0


def run_measured(cmd: list[str], tmp: Path, tag: str) -> Run:
    """Run ``cmd``; wall time and the peak RSS of exactly this child (wait4's rusage)."""
    out_path, err_path = tmp / f"{tag}.out", tmp / f"{tag}.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(
        proc.returncode,
        wall,
        usage.ru_maxrss / 1024,  # KiB on Linux
        out_path.read_text(errors="replace"),
        err_path.read_text(errors="replace"),
        usage.ru_utime + usage.ru_stime,
    )


def check(run: Run, what: str) -> None:
    if run.returncode != 0:
        raise RuntimeError(f"{what} failed with exit code {run.returncode}:\n{run.stderr[-4000:]}")


def bench_recrawl(server: Server, tmp: Path, search_index: bool = True) -> dict:
    recrawl = str(BIN / "recrawl")
    project = tmp / "recrawl-project"
    check(run_measured([recrawl, "init", str(project)], tmp, "recrawl-init"), "recrawl init")
    if not search_index:  # what indexing costs the crawl: the same crawl without it
        off = [recrawl, "settings", str(project), "--set", "search.index=false"]
        check(run_measured(off, tmp, "recrawl-settings"), "recrawl settings")
    seed = server.base + "/index.html"
    check(run_measured([recrawl, "inject", str(project), seed], tmp, "recrawl-inject"), "inject")
    cmd = [recrawl, "crawl", str(project), "--delay", "0", "--per-host", str(CONCURRENCY)]
    cmd += ["--concurrency", str(CONCURRENCY), "--ignore-robots", "--json"]
    run = run_measured(cmd, tmp, "recrawl-crawl")
    check(run, "recrawl crawl")
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    return {
        "pages": summary["fetched"],
        "errors": summary["errors"],
        "rounds": summary["rounds"],
        "inner_s": summary["elapsed_s"],
        "wall_s": run.wall_s,
        "cpu_s": run.cpu_s,
        "rss_mb": run.peak_rss_mb,
        "stderr": run.stderr.strip(),
    }


def bench_scrapy(server: Server, tmp: Path) -> dict:
    result_path = tmp / "scrapy-result.json"
    cmd = [sys.executable, str(HERE / "scrapy_spider.py"), server.base + "/index.html"]
    cmd += [str(result_path), "--concurrency", str(CONCURRENCY)]
    run = run_measured(cmd, tmp, "scrapy")
    check(run, "scrapy")
    result = json.loads(result_path.read_text())
    return {
        "pages": result["parsed"],
        "responses": result["responses"],
        "errors": result["errors"],
        "inner_s": result["elapsed_s"],
        "wall_s": run.wall_s,
        "rss_mb": run.peak_rss_mb,
        "stderr": run.stderr.strip(),
    }


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def rate(pages: int, seconds: float) -> float:
    return pages / seconds if seconds > 0 else 0.0


# -- main -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=5000, help="pages in the site (5000)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    parser.add_argument("--skip-scrapy", action="store_true", help="crawl with Recrawl only")
    parser.add_argument(
        "--no-search-index",
        action="store_true",
        help="crawl with search.index off (what indexing the pages' text costs)",
    )
    parser.add_argument(
        "--server",
        choices=("auto", "nginx", "python"),
        default="auto",
        help="auto: nginx if installed, else a threaded Python server",
    )
    args = parser.parse_args(argv)
    if args.pages < 1:
        parser.error("--pages must be at least 1")
    if not (BIN / "recrawl").exists():
        parser.error(f"no recrawl next to {sys.executable}; install the project in this venv")
    if not args.skip_scrapy:
        try:
            import scrapy  # noqa: F401
        except ImportError:
            parser.error("Scrapy is not installed: pip install -e '.[bench]' (or --skip-scrapy)")

    # SIGTERM runs the finally blocks too, so nginx never outlives us
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="recrawl-bench-"))
    server: Server | None = None
    try:
        site = tmp / "site"
        started = time.perf_counter()
        size, links = generate_site(site, args.pages)
        print(
            f"site: {args.pages} pages, {size / 1e6:.1f} MB (avg {size / args.pages / 1024:.1f} KB,"
            f" {links / args.pages:.0f} links/page), generated in "
            f"{time.perf_counter() - started:.1f} s"
        )
        server = start_server(site, tmp, args.server)
        print(f"server: {server.name} on 127.0.0.1:{server.port}")
        sys.stdout.flush()

        print(f"machine: {os.cpu_count()} cores, load average {_load()} before the crawls")
        rc = bench_recrawl(server, tmp, search_index=not args.no_search_index)
        print(
            f"recrawl: {rc['pages']} pages in {rc['wall_s']:.1f} s = "
            f"{rate(rc['pages'], rc['wall_s']):.0f} pages/s, peak RSS {rc['rss_mb']:.0f} MB "
            f"(crawl loop {rc['inner_s']:.1f} s = {rate(rc['pages'], rc['inner_s']):.0f} pages/s,"
            f" {rc['rounds']} rounds, {rc['errors']} errors; CPU {rc['cpu_s']:.1f} s; search "
            f"index {'off' if args.no_search_index else 'on'})"
        )
        sys.stdout.flush()
        warnings = []
        if rc["errors"]:
            warnings.append(f"recrawl reported {rc['errors']} errors")
        if rc["pages"] != args.pages:
            warnings.append(f"recrawl fetched {rc['pages']} of {args.pages} pages")
        if rc["stderr"]:
            warnings.append("recrawl stderr: " + rc["stderr"][-2000:])

        if not args.skip_scrapy:
            sc = bench_scrapy(server, tmp)
            print(
                f"scrapy: {sc['pages']} pages in {sc['wall_s']:.1f} s = "
                f"{rate(sc['pages'], sc['wall_s']):.0f} pages/s, peak RSS {sc['rss_mb']:.0f} MB "
                f"(crawl loop {sc['inner_s']:.1f} s = "
                f"{rate(sc['pages'], sc['inner_s']):.0f} pages/s, {sc['errors']} errors)"
            )
            if sc["errors"]:
                warnings.append(f"scrapy reported {sc['errors']} download errors")
            if sc["pages"] != args.pages:
                warnings.append(f"scrapy crawled {sc['pages']} of {args.pages} pages")
            if sc["pages"] != rc["pages"]:
                warnings.append(f"page counts differ: recrawl {rc['pages']}, scrapy {sc['pages']}")
            if sc["stderr"]:
                warnings.append("scrapy stderr: " + sc["stderr"][-2000:])
            print(f"load average {_load()} after the crawls (other processes skew both)")
            ratio = rate(rc["pages"], rc["wall_s"]) / max(rate(sc["pages"], sc["wall_s"]), 1e-9)
            verdict = "ok" if ratio >= SPEEDUP_TARGET else "below target"
            print(f"ratio recrawl/scrapy: {ratio:.2f}x (target >= {SPEEDUP_TARGET:g}x): {verdict}")
        mem_ok = "ok" if rc["rss_mb"] < MEMORY_TARGET_MB else "over target"
        print(f"peak memory target < {MEMORY_TARGET_MB} MB: {mem_ok} ({rc['rss_mb']:.0f} MB)")
        for warning in warnings:
            print(f"WARNING: {warning}")
        return 1 if any("pages" in w for w in warnings) else 0
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            print(f"kept {tmp}")
        else:
            with contextlib.suppress(OSError):
                shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
