"""Smoke-test the built bundle: ``dist/recrawl/recrawl --self-test`` must pass cleanly,
and ``recrawl replay`` must serve a capture.

    python packaging/smoke_test.py [BUNDLE_DIR]      (make package-test)

The executable opens its main window offscreen on a temporary project, crawls a tiny
site it serves itself on loopback and checks the pages and a WARC segment (see
gui/selftest/self_test.py). Any non-zero exit, traceback or Qt warning fails the smoke test, and
so does a bundle whose ``--version`` differs from the source tree's package version, or
(on Linux) one over its size budget.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The Linux bundle's size budget (issue 11): packaging/build.py trims it to about 151 MB;
#: psycopg with its libpq and libpq's own libraries (psycopg_binary.libs: OpenSSL,
#: Kerberos, LDAP, SASL) added 11.4 MB (159 -> 170.4 MB) for PostgreSQL stores (issue 15);
#: the same bundle measured 173.4 MB on the machine of issue 16, where pywb and what it
#: loads, for `recrawl replay` and the app's "Open capture in browser", brought it to
#: 188 MB: pywb's static files and templates 6.6, gevent 3.1, their Python modules 2.0
#: (jinja2, werkzeug, redis, fakeredis, yaml...), greenlet, zope, yaml's and cffi's
#: extensions 1.0; pyOpenSSL and cryptography (11.4 MB: only pywb's proxy mode, never
#: used, imports them) stay out, and so do pydantic and mypy (10 MB), which the test
#: tools in the build's environment would have brought through playhouse
BUDGET_MB = 190


def main() -> int:
    bundle = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "dist" / "recrawl"
    exe = bundle / ("recrawl.exe" if os.name == "nt" else "recrawl")
    if not exe.exists():
        print(f"smoke test: no executable at {exe} (run make package first)", file=sys.stderr)
        return 1
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    # a clean home, so the bundle never sees the developer's settings or data
    home = ROOT / "build" / "smoke-home"
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
    )
    done = subprocess.run(
        [str(exe), "--version"], capture_output=True, text=True, env=env, timeout=60
    )
    expected = f"recrawl {version('recrawl')}"
    if done.returncode != 0 or done.stdout.strip() != expected:
        print(
            f"smoke test: --version said {done.stdout.strip()!r} "
            f"(exit {done.returncode}), expected {expected!r}\n{done.stderr}",
            file=sys.stderr,
        )
        return 1
    done = subprocess.run(
        [str(exe), "--self-test"], capture_output=True, text=True, env=env, timeout=300
    )
    output = done.stdout + done.stderr
    print(output.strip())
    if done.returncode != 0 or "Traceback" in output or "Qt:" in output:
        print(f"smoke test: FAILED (exit {done.returncode})", file=sys.stderr)
        return 1
    if problem := check_replay(exe, env, home):
        print(f"smoke test: FAILED: {problem}", file=sys.stderr)
        return 1
    print("smoke test: recrawl replay served a capture")
    if problem := check_notify(exe, env, home):
        print(f"smoke test: FAILED: {problem}", file=sys.stderr)
        return 1
    print("smoke test: recrawl notify --test reached a JSON listener (Apprise)")
    if sys.platform.startswith("linux") and (problem := over_budget(bundle)):
        print(f"smoke test: FAILED: {problem}", file=sys.stderr)
        return 1
    print(f"smoke test: passed ({expected})")
    return 0


PAGE = b"<html><body><p>Replayed from the bundle.</p></body></html>"


def check_replay(exe: Path, env: dict[str, str], home: Path) -> str | None:
    """``recrawl replay`` from the bundle (pywb and gevent frozen in it) serves a capture
    the bundle's own crawl made, byte for byte; None when it does."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = self.path == "/"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE) if found else 0))
            self.end_headers()
            if found:
                self.wfile.write(PAGE)

        def log_message(self, *args: object) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{site.server_address[1]}/"
    project = home / "replay-project"
    shutil.rmtree(project, ignore_errors=True)
    try:
        for args in (["init"], ["inject", url], ["crawl", "--delay", "0"]):
            done = subprocess.run(
                [str(exe), args[0], str(project), *args[1:]],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
            )
            if done.returncode != 0:
                return f"recrawl {args[0]} exited {done.returncode}: {done.stderr.strip()}"
    finally:
        site.shutdown()
    (index,) = project.glob("segments/*/*.cdxj")
    stamp = index.read_text(encoding="utf-8").split(" ", 2)[1]
    server = subprocess.Popen(
        [str(exe), "replay", str(project), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/project/", line)
        if found is None:
            server.kill()
            return f"recrawl replay did not start: {line}{server.communicate()[1][-2000:]}"
        address = f"{found[0]}{stamp}id_/{url}"
        with urllib.request.urlopen(address, timeout=60) as answer:
            body = answer.read()
        if body != PAGE:
            return f"recrawl replay served {body[:200]!r} at {address}, not the capture"
        with urllib.request.urlopen(found[0].replace("/project/", "/static/wombat.js")) as js:
            if js.status != 200:
                return "recrawl replay did not serve pywb's own static files"
    finally:
        server.terminate()
        errors = server.communicate(timeout=30)[1]
    if "Traceback" in errors:
        return f"recrawl replay wrote a traceback: {errors[-2000:]}"
    return None


def check_notify(exe: Path, env: dict[str, str], home: Path) -> str | None:
    """``recrawl notify --test`` from the bundle sends a message through Apprise (whose
    plugins it finds by listing their folder) to a JSON listener; None when it does."""
    received: list[dict[str, object]] = []

    class Listener(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            received.append(json.loads(self.rfile.read(length) or b"{}"))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    listener = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    url = f"json://127.0.0.1:{listener.server_address[1]}/"
    project = home / "notify-project"
    shutil.rmtree(project, ignore_errors=True)
    try:
        for args in (["init"], ["notify", "--test", url]):
            done = subprocess.run(
                [str(exe), args[0], str(project), *args[1:]],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
            )
            if done.returncode != 0:
                return f"recrawl {args[0]} exited {done.returncode}: {done.stderr.strip()}"
    finally:
        listener.shutdown()
    if len(received) != 1 or "Recrawl" not in str(received[0].get("title")):
        return f"recrawl notify --test sent {received!r}, not one test message"
    return None


def over_budget(bundle: Path) -> str | None:
    files = [f for f in bundle.rglob("*") if f.is_file() and not f.is_symlink()]
    size = sum(f.stat().st_size for f in files) / 1e6
    if size <= BUDGET_MB:
        return None
    biggest = sorted(files, key=lambda f: f.stat().st_size, reverse=True)[:8]
    names = ", ".join(f"{f.relative_to(bundle)} {f.stat().st_size / 1e6:.1f}" for f in biggest)
    return (
        f"the bundle is {size:.0f} MB, over its {BUDGET_MB} MB budget (did the build trim "
        f"ICU's data? see its icu_data line); the biggest files (MB): {names}"
    )


if __name__ == "__main__":
    sys.exit(main())
