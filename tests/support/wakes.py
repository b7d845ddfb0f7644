"""A watcher's wake channel in a test (docs/design.md §10): the wakes the services send."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core.clock import utcnow
from recrawl.core.project import Project
from recrawl.core.watch.wake import WakeChannel


class Woken:
    """A watcher's wake channel in the test: counts the wakes it is sent."""

    def __init__(self, folder: Path) -> None:
        self.count = 0
        self._changed = threading.Condition()
        self.channel = WakeChannel(folder, wake=self._wake, stop=lambda: None, since=utcnow())

    def _wake(self) -> None:
        with self._changed:
            self.count += 1
            self._changed.notify_all()

    def wait_for(self, count: int) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.count >= count, 30)


@pytest.fixture
def woken(project: Project) -> Iterator[Woken]:
    watching = Woken(project.path)
    yield watching
    watching.channel.close()
    watching.channel.release_stoppers()
