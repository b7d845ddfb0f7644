"""What commands do with what is not a project: they never make or change a store.

Only ``init`` makes a store. An empty ``recrawl.sqlite``, another program's file or
SQLite database, or a file where a folder is expected gets one line and no change; a
store an older Recrawl wrote is upgraded (under the project lock) and the upgrade said.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from recrawl.core.project import Project
from recrawl.core.store.migrations import SCHEMA_VERSION

from recrawl.main import main

DATA = Path(__file__).resolve().parents[2] / "data"

COMMANDS = [
    ("urls", "{d}"),
    ("urls", "{d}", "--json"),
    ("history", "{d}", "http://example.com/"),
    ("show", "{d}", "http://example.com/"),
    ("segments", "{d}"),
    ("settings", "{d}"),
    ("schedule", "{d}"),
    ("inject", "{d}", "http://example.com/"),
    ("crawl", "{d}"),
    ("compact", "{d}", "--below", "50%"),
    ("filter", "get", "{d}"),
    ("init", "{d}"),
]


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recrawl", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )


def digest(folder: Path) -> dict[str, str]:
    """Every file in ``folder`` by name, with a hash of its bytes."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def foreign_sqlite(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('mine, not Recrawl''s')")
    conn.close()


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a[:3]).replace("{d}", "d"))
def test_an_empty_store_file_is_one_line_and_stays_empty(tmp_path, capsys, args):
    d = tmp_path / "p"
    d.mkdir()
    (d / "recrawl.sqlite").touch()
    code = main([a.format(d=d) for a in args])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    store = d / "recrawl.sqlite"
    assert f"cannot open the store {store}: it is empty (0 bytes), not a Recrawl store" in err
    assert sorted(p.name for p in d.iterdir()) == ["recrawl.sqlite"]
    assert (d / "recrawl.sqlite").stat().st_size == 0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda p: p.write_bytes(b"this is not a database\n" * 100),
            "not a Recrawl store (nor SQLite)",
        ),
        (foreign_sqlite, "is an SQLite database, but not a Recrawl store"),
    ],
    ids=["text", "sqlite"],
)
@pytest.mark.parametrize("command", ["urls", "crawl", "init"])
def test_a_foreign_store_file_is_refused_untouched(tmp_path, make, message, command):
    d = tmp_path / "p"
    d.mkdir()
    make(d / "recrawl.sqlite")
    before = digest(d)
    result = cli(command, d)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert f"cannot open the store {d / 'recrawl.sqlite'}: it is " in result.stderr
    assert "Traceback" not in result.stderr
    assert digest(d) == before  # not a byte written, no -wal or -shm beside it


def test_a_file_given_for_a_project_folder_is_said_to_be_a_file(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("notes\n")
    assert main(["urls", str(afile)]) == 1
    assert capsys.readouterr().err == f"recrawl: error: {afile} is a file, not a project folder\n"
    assert main(["init", str(afile)]) == 1
    err = capsys.readouterr().err
    assert err == f"recrawl: error: {afile} is a file: a project needs a folder of its own\n"
    assert afile.read_text() == "notes\n"


def test_init_on_a_project_says_it_is_one_and_keeps_it(tmp_path, capsys):
    d = tmp_path / "p"
    assert main(["init", str(d)]) == 0
    assert capsys.readouterr().out == f"initialised {d}\n"
    assert main(["inject", str(d), "http://example.com/"]) == 0
    capsys.readouterr()
    assert main(["init", str(d)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{d} is a Recrawl project already: nothing to initialise\n" and err == ""
    assert main(["urls", str(d), "--json"]) == 0
    assert '"url": "http://example.com/"' in capsys.readouterr().out


def old_project(tmp_path: Path) -> Path:
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(DATA / "schema-1.sqlite", folder / "recrawl.sqlite")
    return folder


def schema_of(folder: Path) -> int:
    with sqlite3.connect(folder / "recrawl.sqlite") as conn:
        (value,) = conn.execute("SELECT value FROM setting WHERE key='schema_version'").fetchone()
    conn.close()
    return int(value)


def test_a_reading_command_upgrades_an_older_store_and_says_so(tmp_path):
    folder = old_project(tmp_path)
    result = cli("urls", folder)
    assert result.returncode == 0 and "http://127.0.0.1" in result.stdout
    assert result.stderr == (
        f"recrawl: upgraded the store of {folder} from schema 1 to {SCHEMA_VERSION}; "
        "older versions of Recrawl can no longer open it\n"
    )
    assert schema_of(folder) == SCHEMA_VERSION
    again = cli("urls", folder)
    assert again.returncode == 0 and again.stderr == ""  # said once: it is done


def test_an_older_store_is_not_upgraded_under_a_writer(tmp_path, capsys):
    folder = old_project(tmp_path)
    writer = Project(folder)  # as an older Recrawl's crawl holds it
    writer.acquire_lock("crawl")
    try:
        assert main(["urls", str(folder)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is busy (crawl, pid" in err
        assert schema_of(folder) == 1
    finally:
        writer.release_lock()
