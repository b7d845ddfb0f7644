"""The app opens a PostgreSQL project whose server wants a password (docs/design.md §12): it
asks, uses the answer for this session, and never stores it."""

from __future__ import annotations

from recrawl.core import store
from recrawl.core.layout import PROJECT_FILE
from recrawl.core.project import Project

from tests.gui.helpers import capture_warnings, open_window
from tests.support.postgres import PASSWORD, PASSWORD_USER


def test_a_password_is_asked_for_used_and_never_stored(
    qtbot, project, prefs, tmp_path, pg_cluster, monkeypatch
):
    monkeypatch.delenv("PGPASSWORD", raising=False)
    url = pg_cluster.new_database(owner=PASSWORD_USER)
    folder, other = tmp_path / "shared", tmp_path / "other"
    for path in (folder, other):
        Project.init(path, db_url=url, password=PASSWORD).close()
    window = open_window(qtbot, project, prefs)
    asked: list[str] = []
    answers = iter(["wrong", PASSWORD])

    def ask(reason: str) -> str | None:
        asked.append(reason)
        return next(answers)

    window.ask_password = ask
    assert window.open_project_path(str(folder))
    assert window.project_path() == folder
    assert "PGPASSWORD" in asked[0] and "refused" in asked[1]
    assert store.is_server_store()
    for path in [folder / PROJECT_FILE, tmp_path / "prefs.ini"]:
        assert PASSWORD not in path.read_text()
    # cancelled: the server's refusal is shown, the project open stays open
    window.ask_password = lambda reason: None
    shown = capture_warnings(monkeypatch)
    assert not window.open_project_path(str(other))
    assert shown and "password" in shown[0]
    window.close()
    store.close_database()
