"""Which errors are a full disk, and the one line said of it (core/disk.py); the store
opened on a full disk (core/store/connection.py), on a real tmpfs where one mounts."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest
from peewee import OperationalError
from recrawl.core import store
from recrawl.core.disk import disk_full, full_disk, is_full, mount_point, raising_disk_full
from recrawl.core.errors import DiskFull, RecrawlError
from recrawl.core.project import Project
from recrawl.core.store.models import Page, Setting

from tests.support.small_disk import fill, small_disk


def _raised_while_handling(first: BaseException, then: BaseException) -> BaseException:
    try:
        try:
            raise first
        except BaseException:
            raise then  # noqa: B904 - as a cleanup's error is, during the handling
    except BaseException as exc:
        return exc


def test_what_counts_as_a_full_disk() -> None:
    assert is_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert not is_full(OSError(errno.EACCES, "Permission denied"))
    assert is_full(OperationalError("database or disk is full"))  # peewee's words
    assert not is_full(OperationalError("database is locked"))
    assert not is_full(ValueError("database or disk is full"))  # only a database error
    # a cleanup that failed while handling the full disk: still the full disk's
    nested = _raised_while_handling(OSError(errno.ENOSPC, "full"), ValueError("flush"))
    assert is_full(nested)
    assert not is_full(_raised_while_handling(KeyError("x"), ValueError("y")))


def test_sqlites_own_full_error_is_one(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "1M") as disk:
        conn = sqlite3.connect(disk / "db.sqlite")
        conn.execute("CREATE TABLE t (x BLOB)")
        with pytest.raises(sqlite3.OperationalError) as raised:
            for _ in range(100):
                conn.execute("INSERT INTO t VALUES (?)", (b"\1" * 100_000,))
                conn.commit()
        conn.close()
    assert is_full(raised.value), raised.value


def test_the_line_names_the_free_space_and_the_mount_point(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "1M") as disk:
        (disk / "proj").mkdir()
        assert mount_point(disk / "proj" / "not yet") == disk
        fill(disk)
        full = disk_full(disk / "proj")
        assert str(full) == f"disk full: 0 bytes free on {disk}; nothing committed is lost"
        assert full.free == 0 and full.where == disk
        assert isinstance(full, RecrawlError)  # the command line's one line


def test_raising_disk_full_keeps_the_first_words_and_the_cause(tmp_path: Path) -> None:
    cause = OSError(errno.ENOSPC, "No space left on device")
    with pytest.raises(DiskFull) as raised, raising_disk_full(tmp_path, "the rest"):
        raise cause
    assert str(raised.value).endswith("; the rest") and raised.value.__cause__ is cause
    first = disk_full(tmp_path, "said first")
    assert full_disk(first, tmp_path, "said later") is first
    with pytest.raises(KeyError), raising_disk_full(tmp_path):
        raise KeyError("not a full disk")


@pytest.mark.parametrize("killed", [False, True], ids=["closed-cleanly", "killed-writer"])
def test_a_store_opens_for_reading_on_a_full_disk(tmp_path: Path, killed: bool) -> None:
    """No room for SQLite's WAL index: a closed store is read as immutable, one a killed
    writer left (commits only in its WAL) with the index in memory; a write says disk full."""
    with small_disk(tmp_path / "disk", "4M") as disk:
        folder = disk / "proj"
        Project.init(folder).close()
        if killed:  # a commit in the WAL that no checkpoint moved into the file
            file = folder / "recrawl.sqlite"
            before = file.read_bytes()
            conn = sqlite3.connect(file)
            conn.execute("PRAGMA wal_autocheckpoint = 0")
            conn.execute("INSERT INTO setting (key, value) VALUES ('in-the-wal', '1')")
            conn.commit()
            wal = (folder / "recrawl.sqlite-wal").read_bytes()
            conn.close()  # checkpoints: put the files back as a kill leaves them
            file.write_bytes(before)
            (folder / "recrawl.sqlite-wal").write_bytes(wal)
        (folder / "recrawl.sqlite-shm").unlink(missing_ok=True)
        fill(disk)
        project = Project.open(folder)
        try:
            assert Page.select().count() == 0
            found = Setting.get_or_none(Setting.key == "in-the-wal")
            assert (found is not None) == killed
            if not killed:
                assert any("open for reading only" in note for note in project.notes)
                assert store.reading_only()
                with pytest.raises(DiskFull):
                    Setting.create(key="written", value="1")
        finally:
            project.close()
