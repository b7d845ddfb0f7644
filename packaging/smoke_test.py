"""Smoke-test the built bundle: ``dist/recrawl/recrawl --self-test`` must pass cleanly.

    python packaging/smoke_test.py [BUNDLE_DIR]      (make package-test)

The executable opens its main window offscreen on a temporary project, crawls a tiny
site it serves itself on loopback and checks the pages and a WARC segment (see
gui/self_test.py). Any non-zero exit, traceback or Qt warning fails the smoke test, and
so does a bundle whose ``--version`` differs from the source tree's package version.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
    print(f"smoke test: passed ({expected})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
