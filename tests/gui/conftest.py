"""GUI test fixtures: isolated preferences, and no test may leave a thread running."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings
from recrawl.gui.jobs.threads import running_threads
from recrawl.gui.main_window import MainWindow
from recrawl.gui.preferences import Preferences

from tests.gui.helpers import open_window

#: pytest-qt waits 5 s by default. A wait on a condition costs nothing once it holds, so
#: the bound only limits how long a failing test hangs: generous, as a loaded 2-core
#: machine (CI) can take seconds for what an idle one does at once.
WAIT_MS = 30_000


@pytest.fixture
def qtbot(qtbot):
    for name in (
        "waitUntil",
        "waitSignal",
        "waitSignals",
        "waitCallback",
        "waitActive",
        "waitExposed",
    ):
        setattr(qtbot, name, _at_least(getattr(qtbot, name), WAIT_MS))
    return qtbot


def _at_least(wait, timeout_ms: int):
    """``wait`` with a timeout of ``timeout_ms``, or the test's own if that is longer: a
    test's shorter bound would fail it on a loaded machine (a parallel suite's)."""

    @functools.wraps(wait)
    def waiting(*args, timeout: int = timeout_ms, **kwargs):
        return wait(*args, timeout=max(timeout, timeout_ms), **kwargs)

    return waiting


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if "tests/gui/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.gui)


@pytest.fixture
def prefs(tmp_path) -> Preferences:
    return Preferences(QSettings(str(tmp_path / "prefs.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def window(qtbot, project, prefs) -> Iterator[MainWindow]:
    """The main window on a fresh project (the ``project`` fixture), shown and active."""
    win = open_window(qtbot, project, prefs)
    yield win
    if win.context is not None and win.context.crawl.busy:
        win.context.crawl.stop()
        win.context.crawl.wait()
    win.close()


@pytest.fixture(autouse=True)
def no_threads_left(qtbot) -> Iterator[None]:
    """Fail a test that leaves a QThread or a Python thread of ours running."""
    before = set(threading.enumerate())
    yield

    def ours(thread: threading.Thread) -> bool:
        # Qt's own threads show up in Python as dummies that never end: running_threads()
        # watches those
        return (
            thread not in before
            and thread.is_alive()
            and not isinstance(thread, threading._DummyThread)
        )

    def quiet() -> bool:
        return not running_threads() and not any(ours(t) for t in threading.enumerate())

    try:
        qtbot.waitUntil(quiet, timeout=10_000)
    except AssertionError:
        leftover = [t.objectName() for t in running_threads()] + [
            t.name for t in threading.enumerate() if ours(t)
        ]
        pytest.fail(f"threads left running: {leftover}")
