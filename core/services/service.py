"""What every service shares: its project, and telling the project's watcher."""

from __future__ import annotations

from recrawl.core.project import Project
from recrawl.core.watch.wake import wake_watcher


class Service:
    def __init__(self, project: Project) -> None:
        self.project = project

    def changed(self) -> None:
        """What is due, or how it is crawled, changed: a sleeping watcher looks again (it
        reads what was written, so this comes after the commit)."""
        wake_watcher(self.project.path)
