"""The browser's profile folders (core/browser/profiles.py): a folder whose lock no
process holds (its crawl was killed) is swept; a held one, or one without a lock, is not."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from recrawl.core.browser.profiles import PROFILE_LOCK, PROFILE_PREFIX, lock_profile, sweep_profiles


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def _profile(tmp: Path) -> Path:
    return Path(tempfile.mkdtemp(prefix=PROFILE_PREFIX, dir=tmp))


def test_only_folders_whose_lock_nobody_holds_are_swept(tmp: Path) -> None:
    left = _profile(tmp)
    os.close(lock_profile(left))  # its process is gone: the lock with it
    (left / "Default").mkdir()
    (left / "Default" / "Cookies").write_bytes(b"x" * 1000)
    held = _profile(tmp)
    lock = lock_profile(held)
    unlocked = _profile(tmp)  # being made: no lock in it yet
    other = tmp / "not-recrawls"
    other.mkdir()
    try:
        assert sweep_profiles() == [left]
        assert not left.exists()
        assert held.exists() and (held / PROFILE_LOCK).exists()
        assert unlocked.exists() and other.exists()
    finally:
        os.close(lock)
    assert sweep_profiles() == [held]  # once its holder let go


def test_a_lock_held_by_another_process_keeps_its_folder_until_that_process_is_killed(
    tmp: Path,
) -> None:
    code = (
        "import sys, tempfile; from pathlib import Path;"
        "from recrawl.core.browser.profiles import lock_profile, PROFILE_PREFIX;"
        f"p = Path(tempfile.mkdtemp(prefix=PROFILE_PREFIX, dir={str(tmp)!r})); lock_profile(p);"
        "print(p, flush=True); sys.stdin.read()"
    )
    with subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as child:
        try:
            assert child.stdout is not None
            folder = Path(child.stdout.readline().strip())
            assert folder.exists()
            assert sweep_profiles() == []
            child.kill()
            child.wait()
            assert sweep_profiles() == [folder]
            assert not folder.exists()
        finally:
            child.kill()
