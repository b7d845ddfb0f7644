"""A project owns its store: two open in one process never see each other's pages."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.errors import NoActiveStore
from recrawl.core.project import Project
from recrawl.core.store import connection

DATA = Path(__file__).resolve().parents[1] / "data"


def _add(urls: list[str]) -> None:
    now = utcnow()
    store.add_pages([store.NewPage(u, u.split("/")[2], now, 3600.0) for u in urls], now)


def _urls() -> list[str]:
    return sorted(page["url"] for page in store.list_pages())


@pytest.fixture
def two(tmp_path: Path):
    a = Project.init(tmp_path / "a")
    b = Project.init(tmp_path / "b")
    yield a, b
    b.close()
    a.close()


def test_two_projects_one_after_the_other_in_one_thread(two):
    a, b = two
    with a.active():
        _add(["http://a.example/1", "http://a.example/2"])
    with b.active():
        _add(["http://b.example/1"])
    with a.active():
        assert _urls() == ["http://a.example/1", "http://a.example/2"]
        with b.active():  # nested: the inner one, then the outer one again
            assert _urls() == ["http://b.example/1"]
        assert store.page_count() == 2
    with b.active():
        assert store.page_count() == 1


def test_two_projects_from_two_threads_at_once(two):
    a, b = two
    # both threads hold a transaction open at the same point: each sees only its own rows
    inside = threading.Barrier(2, timeout=30)
    seen: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def work(project: Project, host: str) -> None:
        try:
            with project.active():
                with store.transaction():
                    _add([f"http://{host}/{i}" for i in range(50)])
                    inside.wait()
                    seen[host] = _urls()
                store.close_database()
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [
        threading.Thread(target=work, args=(a, "a.example")),
        threading.Thread(target=work, args=(b, "b.example")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert {u.split("/")[2] for u in seen["a.example"]} == {"a.example"}
    assert {u.split("/")[2] for u in seen["b.example"]} == {"b.example"}
    assert len(seen["a.example"]) == len(seen["b.example"]) == 50


def test_a_query_where_no_project_is_active_fails_clearly(two):
    a, _ = two
    failed: list[BaseException] = []

    def query() -> None:  # a new thread: nothing is active in it
        try:
            store.page_count()
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=query)
    thread.start()
    thread.join(30)
    assert len(failed) == 1 and isinstance(failed[0], NoActiveStore)
    assert "no project is active" in str(failed[0])
    with a.active():
        assert store.page_count() == 0


def test_closing_a_project_leaves_no_store_active(tmp_path):
    store.activate(None)  # what an earlier test in this process left active: nothing
    project = Project.init(tmp_path / "p")
    assert store.page_count() == 0  # opening made it active here
    project.close()
    with pytest.raises(NoActiveStore):
        store.page_count()


def test_opening_a_second_project_leaves_the_first_one_usable(two):
    a, _ = two
    with a.active():
        _add(["http://a.example/"])
    # b was opened last: it is active here, and a is as it was
    assert store.page_count() == 0
    with a.active():
        assert _urls() == ["http://a.example/"]


def test_an_older_store_is_opened_once_to_be_upgraded(tmp_path, monkeypatch):
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(DATA / "schema-1.sqlite", folder / "recrawl.sqlite")
    connects: list[object] = []
    real = connection._connect

    def counted(where, password):
        connects.append(where)
        return real(where, password)

    monkeypatch.setattr(connection, "_connect", counted)
    project = Project.open(folder)
    try:
        assert connects == [folder / "recrawl.sqlite"]  # a path, never made a URL
        assert any("upgraded the store" in note for note in project.notes)
        assert store.page_count() > 0
    finally:
        project.close()


def test_a_project_opened_and_closed_inside_another_leaves_the_first_active(two):
    a, _ = two
    with a.active():
        _add(["http://a.example/"])
    a.enter()
    inner = Project.open(two[1].path)  # as a command run in the app's process does
    assert store.page_count() == 0
    inner.close()
    assert _urls() == ["http://a.example/"]


def test_a_closed_project_is_never_made_active_again(tmp_path):
    store.activate(None)
    first = Project.init(tmp_path / "first")
    second = Project.init(tmp_path / "second")
    first.close()
    second.close()  # first was active before it, but is closed
    with pytest.raises(NoActiveStore):
        store.page_count()
