"""Command start-up benchmark: how long each ``recrawl`` command takes, against ``python -c pass``.

    python bench/cli_bench.py [--runs 15] [--pages 6] [--wheel] [--instructions] [--keep]

Builds a small project the way a user would: a loopback site of ``--pages`` pages (a
threaded ``http.server`` in this process), ``recrawl init``, ``inject`` and ``crawl``. Then
runs each command (the installed ``recrawl`` script beside this Python, as users start it)
``--runs`` times after one warm-up and prints, side by side:

- the median wall time, start to finish, and the median CPU time of the process (user +
  system: less sensitive than the wall time to other work on the machine);
- the import time (the top-level imports' cumulative time in one ``-X importtime`` run)
  and its share of that run's wall time;
- which heavy modules it loaded (numpy, httpx, w3lib, warcio, Qt, the crawl engine);
- with ``--instructions`` (needs valgrind; slow): the instructions the process executed,
  in millions and as a multiple of ``python -c pass``. Unlike times, they do not depend
  on what else the machine is doing, so runs on a busy machine can be compared.

``--wheel`` times the wheel installed in a fresh venv, as users run Recrawl; by default
the development venv's editable install is timed (a path entry to the checkout: the
same modules, read from the tree). Children run with bytecode caching on, as after ``pip install`` (which compiles every
module), even where ``PYTHONDONTWRITEBYTECODE`` is set.

Target (issue 11, item 7): the read-only commands (``--version``, ``urls``, ``history``,
``show``, ``segments``) finish in under 0.2 s each. ``schedule`` and ``filter check`` are
shown for contrast. Exit status 1 if a read-only command misses the target.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

TARGET_S = 0.2
# as after `pip install`, which compiles every module: with PYTHONDONTWRITEBYTECODE set
# (some shells and CI images set it) each run would compile the sources again
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
HEAVY = {
    "numpy": "numpy",
    "httpx": "httpx",
    "w3lib": "w3lib",
    "warcio": "warcio",
    "PySide6": "Qt",
    "recrawl.core.engine": "engine",
}
IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


@dataclass(frozen=True)
class Timing:
    label: str
    wall_s: float
    cpu_s: float
    import_s: float
    import_share: float
    modules: int
    heavy: tuple[str, ...]
    quick: bool
    instructions: int | None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_site(root: Path, pages: int) -> http.server.ThreadingHTTPServer:
    links = " ".join(f'<a href="/p{i}.html">page {i}</a>' for i in range(1, pages))
    (root / "index.html").write_text(f"<html><body><h1>home</h1>{links}</body></html>")
    for i in range(1, pages):
        (root / f"p{i}.html").write_text(
            f'<html><body><p>page {i}: café {"text " * 200}</p><a href="/">home</a></body></html>'
        )
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root))
    )
    threading.Thread(target=server.serve_forever, name="site", daemon=True).start()
    return server


#: The Python whose ``recrawl`` is timed: this one, or a venv with the wheel (``--wheel``).
PYTHON = sys.executable
ROOT = Path(__file__).resolve().parents[1]


def recrawl_command() -> list[str]:
    script = Path(PYTHON).with_name("recrawl")
    return [str(script)] if script.is_file() else [PYTHON, "-m", "recrawl"]


def wheel_install(tmp: Path) -> str:
    """A fresh venv with Recrawl's wheel installed, as users get it (compiled bytecode,
    site-packages only), not the development venv's editable install."""
    wheels, venv = tmp / "wheel", tmp / "venv"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    (wheel,) = wheels.glob("recrawl-*.whl")
    subprocess.run([python, "-m", "pip", "install", "-q", str(wheel)], check=True)
    return python


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (this process runs one child at a time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {result.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def with_python(argv: list[str]) -> list[str]:
    """``argv`` as this Python's arguments (a console script is run by it)."""
    return argv[1:] if argv[0] == PYTHON else argv


def import_profile(argv: list[str]) -> tuple[float, float, int, tuple[str, ...]]:
    """Top-level import seconds and their share of the run, modules imported and the heavy
    ones, from one ``-X importtime`` run."""
    start = time.perf_counter()
    result = subprocess.run(
        [PYTHON, "-X", "importtime", *with_python(argv)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    wall = time.perf_counter() - start
    total_us = 0
    names: list[str] = []
    for line in result.stderr.decode(errors="replace").splitlines():
        match = IMPORT_LINE.match(line)
        if match is None:
            continue
        names.append(match[4])
        if len(match[3]) == 1:  # no indentation after "| ": a top-level import
            total_us += int(match[2])
    heavy = tuple(
        label
        for prefix, label in HEAVY.items()
        if any(n == prefix or n.startswith(prefix + ".") for n in names)
    )
    return total_us / 1e6, total_us / 1e6 / wall, len(names), heavy


def instructions(argv: list[str]) -> int:
    """Instructions the process executes, counted by valgrind (callgrind)."""
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    result = subprocess.run(
        [*valgrind, PYTHON, *with_python(argv)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", result.stderr)
    if found is None:
        raise SystemExit(f"valgrind failed: {result.stderr[-500:]}")
    return int(found[1])


def measure(label: str, argv: list[str], runs: int, quick: bool, count: bool) -> Timing:
    run_once(argv)  # warm-up: the page cache, compiled modules written
    samples = [run_once(argv) for _ in range(runs)]
    import_s, share, modules, heavy = import_profile(argv)
    return Timing(
        label,
        statistics.median(s[0] for s in samples),
        statistics.median(s[1] for s in samples),
        import_s,
        share,
        modules,
        heavy,
        quick,
        instructions(argv) if count else None,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per command")
    parser.add_argument("--pages", type=int, default=6, help="pages of the loopback site")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions too (valgrind; slow)"
    )
    parser.add_argument(
        "--wheel",
        action="store_true",
        help="time a wheel installed in a fresh venv (as users run it), not this venv's "
        "editable install",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    global PYTHON
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind (apt-get install valgrind)")

    tmp = Path(tempfile.mkdtemp(prefix="cli-bench-"))
    if args.wheel:
        PYTHON = wheel_install(tmp)
    site_root = tmp / "site"
    site_root.mkdir()
    server = serve_site(site_root, args.pages)
    recrawl = recrawl_command()
    project = str(tmp / "project")
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        for step in (
            ["init", project],
            ["inject", project, base + "/"],
            ["crawl", project, "--delay", "0", "--json"],
        ):
            subprocess.run([*recrawl, *step], check=True, capture_output=True, env=ENV)
        page = base + "/p1.html"
        commands: list[tuple[str, list[str], bool]] = [
            ("python -c pass", [PYTHON, "-c", "pass"], False),
            ("recrawl --version", [*recrawl, "--version"], True),
            ("recrawl urls", [*recrawl, "urls", project], True),
            ("recrawl urls --json", [*recrawl, "urls", project, "--json"], True),
            ("recrawl history", [*recrawl, "history", project, page, "--json"], True),
            ("recrawl show", [*recrawl, "show", project, page], True),
            ("recrawl segments", [*recrawl, "segments", project, "--json"], True),
            ("recrawl schedule", [*recrawl, "schedule", project, "--json"], False),
            ("recrawl filter check", [*recrawl, "filter", "check", project, page], False),
        ]
        where = "a wheel in a fresh venv" if args.wheel else "this venv (editable install)"
        print(
            f"recrawl from {where}; {args.pages} pages crawled; median of {args.runs} runs each; "
            f"target for read-only commands: < {TARGET_S:.1f} s"
        )
        print(
            f"{'command':<22} {'wall':>8} {'cpu':>8} {'imports':>8} {'share':>6} "
            f"{'modules':>8}"
            + (f" {'instr':>7} {'x pass':>6}" if args.instructions else "")
            + "  heavy modules"
        )
        missed = []
        floor = None
        for label, command, quick in commands:
            t = measure(label, command, args.runs, quick, args.instructions)
            verdict = ""
            if t.quick:
                verdict = "  ok" if t.wall_s < TARGET_S else "  SLOW"
                if t.wall_s >= TARGET_S:
                    missed.append(label)
            counted = ""
            if t.instructions is not None:
                floor = floor or t.instructions  # the first row: python -c pass
                counted = f" {t.instructions / 1e6:6.0f}M {t.instructions / floor:5.1f}x"
            print(
                f"{t.label:<22} {t.wall_s * 1000:6.0f}ms {t.cpu_s * 1000:6.0f}ms "
                f"{t.import_s * 1000:6.0f}ms {t.import_share:6.0%} {t.modules:>8}{counted}  "
                f"{', '.join(t.heavy) or '-'}{verdict}",
                flush=True,
            )
        if missed:
            print(f"over {TARGET_S} s: {', '.join(missed)}")
        return 1 if missed else 0
    finally:
        server.shutdown()
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
