"""The browser's profile folders, in the temporary folder, and those killed crawls left.

A crawl's browser gets a fresh profile folder, removed when the browser is closed. A crawl
killed outright (SIGKILL, a second Ctrl-C) cannot remove it: its browser exits (its
DevTools pipe closes) but the folder stays. So each folder holds a lock, an flock held by
the process whose browser uses it, and the next browser's start removes the folders whose
lock no process holds.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path

PROFILE_PREFIX = "recrawl-chromium-"
PROFILE_LOCK = "recrawl.lock"


def lock_profile(profile: Path) -> int:
    """Takes the new profile folder's lock; the file is locked before it bears its name,
    so a sweep never finds it unlocked. Close-on-exec: the browser does not hold it (it
    outlives a killed crawl by a moment, and would keep its folder from the next sweep)."""
    fresh = profile / f"{PROFILE_LOCK}.new"
    lock = os.open(fresh, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    os.rename(fresh, profile / PROFILE_LOCK)
    return lock


def sweep_profiles() -> list[Path]:
    """Removes this user's profile folders whose lock no process holds: those of crawls
    that were killed. Folders without a lock (being made, or not Recrawl's) are left."""
    removed: list[Path] = []
    try:
        entries = [
            e for e in os.scandir(tempfile.gettempdir()) if e.name.startswith(PROFILE_PREFIX)
        ]
    except OSError:
        return removed
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat().st_uid != os.getuid():
                continue
            lock = os.open(Path(entry.path, PROFILE_LOCK), os.O_RDWR | os.O_CLOEXEC)
        except OSError:  # gone meanwhile, or no lock in it
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: a browser of a running crawl
            os.close(lock)
            continue
        try:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
        finally:
            os.close(lock)
    return removed
