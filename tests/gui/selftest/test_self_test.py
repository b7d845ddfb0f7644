"""``recrawl --self-test`` passes on a working install (the packaged build runs it too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_self_test_crawls_from_the_window_and_exits_zero():
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-m", "recrawl", "--self-test"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    assert "self-test passed" in done.stdout and "3 pages crawled" in done.stdout
    assert "Traceback" not in done.stderr
