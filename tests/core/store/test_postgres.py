"""The store in PostgreSQL (docs/design.md §12): `recrawl init DIR --db URL`, what it refuses
in one line, passwords, the schema, and the advisory locks.

Each test has its own database in this process's private cluster (tests/support/postgres.py).
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import psycopg
import pytest
from peewee import Database
from recrawl.core import store
from recrawl.core.archive.compaction import compact
from recrawl.core.errors import PasswordNeeded, StoreBusy
from recrawl.core.layout import PROJECT_FILE, STORE_FILE
from recrawl.core.project import Project
from recrawl.core.store import COMPACTION, MIGRATION
from recrawl.core.store.migrations import SCHEMA_VERSION, current_version
from recrawl.core.store.models import DB, MODELS, Setting
from recrawl.core.store.postgres import LOCK_SPACE

from recrawl.main import main
from tests.support.postgres import PASSWORD, PASSWORD_USER

DATA = Path(__file__).resolve().parents[2] / "data"


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_init_keeps_segments_in_the_folder_and_the_store_in_postgresql(
    tmp_path, capsys, pg_cluster
):
    url = pg_cluster.new_database(empty=True)
    d = tmp_path / "p"
    code, out, err = run(capsys, "init", d, "--db", url)
    assert (code, err) == (0, "")
    assert url in out
    assert (d / "segments").is_dir() and not (d / STORE_FILE).exists()
    assert url in (d / PROJECT_FILE).read_text()
    with psycopg.connect(url) as conn:
        tables = {
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert {m._meta.table_name for m in MODELS} <= tables
    # the folder opens the store it names; init again says there is nothing to do
    code, out, _ = run(capsys, "init", d)
    assert code == 0 and "already" in out
    code, _, err = run(capsys, "init", d, "--db", url.replace("/t", "/other"))
    assert code != 0 and "a project already" in err and len(err.strip().splitlines()) == 1
    project = Project.open(d)
    try:
        assert store.is_server_store() and current_version(DB.obj) == SCHEMA_VERSION
    finally:
        project.close()


def test_a_url_with_a_password_is_refused_before_anything_is_made(tmp_path, capsys):
    d = tmp_path / "p"
    code, _, err = run(capsys, "init", d, "--db", "postgresql://me:secret@127.0.0.1/db")
    assert code != 0
    assert len(err.strip().splitlines()) == 1
    assert "~/.pgpass" in err and "PGPASSWORD" in err and "secret" not in err
    assert not d.exists()


def test_another_programs_database_is_never_written_to(tmp_path, capsys, pg_cluster):
    url = pg_cluster.new_database(empty=True)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id integer)")
    code, _, err = run(capsys, "init", tmp_path / "p", "--db", url)
    assert code != 0 and "not a Recrawl store" in err and len(err.strip().splitlines()) == 1
    with psycopg.connect(url) as conn:
        tables = [
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        ]
    assert tables == ["invoices"]
    assert not (tmp_path / "p" / PROJECT_FILE).exists()


def test_a_server_that_is_down_gets_one_line(tmp_path, capsys, closed_port):
    url = f"postgresql://someone@127.0.0.1:{closed_port}/db"
    code, _, err = run(capsys, "init", tmp_path / "p", "--db", url)
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "cannot reach the database server" in err


def test_a_password_comes_from_pgpassword_or_the_caller_never_the_project_file(
    tmp_path, capsys, pg_cluster, monkeypatch
):
    url = pg_cluster.new_database(owner=PASSWORD_USER)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with pytest.raises(PasswordNeeded, match="PGPASSWORD"):
        Project.init(tmp_path / "p", db_url=url)
    with pytest.raises(PasswordNeeded, match="refused"):
        Project.init(tmp_path / "p", db_url=url, password="wrong")
    Project.init(tmp_path / "p", db_url=url, password=PASSWORD).close()
    assert PASSWORD not in (tmp_path / "p" / PROJECT_FILE).read_text()
    code, _, err = run(capsys, "urls", tmp_path / "p", "--json")
    assert code != 0 and "~/.pgpass" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    code, out, err = run(capsys, "urls", tmp_path / "p", "--json")
    assert (code, json.loads(out), err) == (0, [], "")


def _schema(db) -> dict[str, tuple[set[tuple[str, bool]], set[tuple[tuple[str, ...], bool]]]]:
    """Per table: its columns (name, nullable) and indexes (columns, unique)."""
    schema = {}
    for table in db.get_tables():
        columns = {(c.name, c.null) for c in db.get_columns(table)}
        indexes = {(tuple(i.columns), i.unique) for i in db.get_indexes(table)}
        schema[table] = (columns, indexes)
    return schema


def test_a_new_postgresql_store_has_the_schema_of_a_migrated_sqlite_one(tmp_path, pg_url):
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(DATA / "schema-1.sqlite", folder / STORE_FILE)
    Project.open(folder).close()  # migrated from version 1 to the current one
    store.open_database(f"sqlite:///{folder / STORE_FILE}")
    migrated = _schema(DB.obj)
    store.close_database()
    store.open_database(pg_url)
    fresh = _schema(DB.obj)
    store.close_database()
    # the words of search's index: SQLite's FTS5 tables, PostgreSQL's tsvector column
    fts = {table for table in migrated if table.startswith("search_fts")}
    assert len(fts) >= 2
    for table in fts:
        del migrated[table]
    assert ("tsv", True) in fresh["search_doc"][0]
    fresh["search_doc"][0].discard(("tsv", True))
    fresh["search_doc"][1].discard((("tsv",), False))
    assert fresh.keys() == migrated.keys()
    for table, (columns, indexes) in migrated.items():
        assert fresh[table][0] == columns, table
        # a primary key's index: PostgreSQL's always, SQLite's but for a rowid
        keys = {(("id",), True), (("key",), True)}
        assert fresh[table][1] - keys == indexes - keys, table


def test_a_compaction_waits_for_no_one_and_two_never_run_at_once(tmp_path, pg_url):
    pg_project = Project.init(tmp_path / "p", db_url=pg_url)
    try:  # the compaction lock held by another process's session
        with psycopg.connect(pg_url, autocommit=True) as other:
            other.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_SPACE, COMPACTION))
            with pytest.raises(StoreBusy, match="compacting"):
                compact(pg_project, below=1.0)
            # released before closing: the server ends a closed session a moment later
            other.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_SPACE, COMPACTION))
        assert compact(pg_project, below=1.0).compacted == []
    finally:
        pg_project.close()


def test_a_migration_waits_for_the_one_running_and_then_finds_nothing_to_do(tmp_path, pg_url):
    with psycopg.connect(pg_url, autocommit=True) as other:
        other.execute("UPDATE setting SET value = '8' WHERE key = 'schema_version'")
        other.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_SPACE, MIGRATION))
        opened: list[object] = []

        def open_it() -> None:
            opened.append(store.open_database(pg_url))
            DB.close()  # this thread's connection

        opener = threading.Thread(target=open_it)
        opener.start()
        waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        while other.execute(waiting).fetchone()[0] == 0:  # until the opener waits for it
            assert opener.is_alive() and not opened
        # meanwhile this session "migrates": the opener must not run 0009 again
        other.execute(f"UPDATE setting SET value = '{SCHEMA_VERSION}' WHERE key = 'schema_version'")
        other.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_SPACE, MIGRATION))
        opener.join(timeout=60)
    assert opened
    db = opened[0]
    assert isinstance(db, Database)
    with store.using(db):  # the opener's store was active in its thread only
        assert current_version(db) == SCHEMA_VERSION
        assert Setting.get(Setting.key == "schema_version").value == SCHEMA_VERSION
        store.close_database()
