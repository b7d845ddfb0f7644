"""A small disk of its own for a test: a tmpfs of a few MB, and a file that fills it.

Mounting needs root (or the capability); where the machine does not allow it the test
is skipped with the reason, so CI without root still passes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

#: What a filler writes at a time.
_CHUNK = 64 << 10


@contextlib.contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (``4M``) mounted at ``where`` meanwhile."""
    if shutil.which("mount") is None or (hasattr(os, "geteuid") and os.geteuid() != 0):
        pytest.skip("a full disk is tested on a tmpfs, which only root may mount here")
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs for a full disk: {done.stderr.strip()}")
    try:
        yield where
    finally:
        # lazily: a child process a failed test left may still hold a file open
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def free(disk: Path) -> int:
    return shutil.disk_usage(disk).free


def fill(disk: Path, leave: int = 0, name: str = "filler") -> Path:
    """Fill ``disk`` with a file until at most ``leave`` bytes are free; returns it."""
    filler = disk / name
    with open(filler, "ab", buffering=0) as fh:
        try:
            while free(disk) > leave:
                fh.write(b"\0" * min(_CHUNK, max(free(disk) - leave, 4096)))
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
    return filler
