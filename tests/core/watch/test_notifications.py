"""The per-project switch for the app's desktop notifications, kept in the store."""

from __future__ import annotations

from recrawl.core.project import Project
from recrawl.core.watch.notifications import notifications_on, set_notifications


def test_on_by_default_and_kept_in_the_project(tmp_path):
    project = Project.init(tmp_path / "p")
    try:
        assert notifications_on()
        set_notifications(False)
        assert not notifications_on()
    finally:
        project.close()
    again = Project.open(tmp_path / "p")
    try:
        assert not notifications_on()
        set_notifications(True)
        assert notifications_on()
    finally:
        again.close()
