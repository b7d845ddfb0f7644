"""Notices another process watching the open project, and the commits it makes.

A ``recrawl watch`` holds the project lock; the app then reads everything and shows
"watched by pid N" (docs/design.md §10). No polling loop of short period: a
``QFileSystemWatcher`` (inotify on Linux) watches

- the lock file, always: a watcher writes "watch, pid N" into it when it starts and
  clears it when it stops, so the app learns of both at once;
- the store file and its ``-wal`` while a watcher runs: each commit changes them; the
  changes are coalesced into one refresh of the panels per :data:`COALESCE_MS`;
- the project folder, for the ``-wal`` and the lock file appearing.

A watcher killed outright (SIGKILL) leaves its text in the lock file: while one runs, a
check every :data:`ALIVE_MS` asks whether its process is still there.

A store in PostgreSQL (docs/design.md §12) has no file that commits change: while a watcher
runs, the store thread compares :func:`recrawl.core.store.commit_mark` every
:data:`COALESCE_MS` instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from recrawl.core import store
from recrawl.core.layout import Layout
from recrawl.gui.jobs.store_jobs import StoreJobs
from recrawl.gui.watch import watch_link
from recrawl.gui.watch.watch_text import WatcherHolder

if TYPE_CHECKING:  # the context module holds this monitor
    from recrawl.gui.context import Changes

COALESCE_MS = 1500
ALIVE_MS = 5000


class WatchMonitor(QObject):
    #: The other process watching the project (a WatcherHolder), or None when none does.
    sig_holder = Signal(object)
    #: The other process committed to the store (coalesced).
    sig_store_changed = Signal()

    def __init__(
        self, project_dir: Path, jobs: StoreJobs, changes: Changes, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._dir = project_dir
        self._jobs = jobs
        self._changes = changes
        self.holder: WatcherHolder | None = None
        self._checking = False
        self._wake_file = Layout(project_dir).wake_file
        self._wake_file_seen = self._wake_file.exists()
        self._files = QFileSystemWatcher(self)
        self._files.fileChanged.connect(self._file_changed)
        self._files.directoryChanged.connect(self._folder_changed)
        self._coalesce = QTimer(self)
        self._coalesce.setSingleShot(True)
        self._coalesce.setInterval(COALESCE_MS)
        self._coalesce.timeout.connect(self._committed)
        self._alive = QTimer(self)
        self._alive.setInterval(ALIVE_MS)
        self._alive.timeout.connect(self.check)
        self._server_store = store.is_server_store()
        self._mark: object = None
        self._poll = QTimer(self)
        self._poll.setInterval(COALESCE_MS)
        self._poll.timeout.connect(self._poll_store)
        self._watch_paths()
        self.check()

    def _store_paths(self) -> list[Path]:
        return Layout(self._dir).store_files()

    def _watch_paths(self) -> None:
        wanted = [self._dir]
        if self.holder is not None:
            wanted += self._store_paths()
        watched = set(self._files.files()) | set(self._files.directories())
        # only paths that exist: Qt warns about the others
        new = [str(p) for p in wanted if str(p) not in watched and p.exists()]
        if new:
            self._files.addPaths(new)

    def _file_changed(self, _path: str) -> None:
        self._watch_paths()  # a file replaced or deleted drops out of the watch list
        if self.holder is not None and not self._coalesce.isActive():
            self._coalesce.start()

    def _folder_changed(self, _path: str) -> None:
        seen = self._wake_file.exists()
        if seen != self._wake_file_seen:  # a watcher started or ended
            self._wake_file_seen = seen
            self.check()
        self._watch_paths()
        if self.holder is not None and not self._coalesce.isActive():
            self._coalesce.start()

    def _committed(self) -> None:
        self.sig_store_changed.emit()
        self._changes.sig_pages.emit()
        self._changes.sig_segments.emit()

    def check(self) -> None:
        """Ask (on the store thread) whether another process watches the project."""
        if self._checking:
            return
        self._checking = True
        folder = self._dir
        self._jobs.submit(
            lambda: watch_link.watcher_holder(folder), self._arrived, self._check_failed
        )

    def _check_failed(self, _message: str) -> None:
        self._checking = False

    def _arrived(self, holder: WatcherHolder | None) -> None:
        self._checking = False
        if holder == self.holder:
            return
        ended = self.holder is not None and holder is None
        self.holder = holder
        if self._server_store and holder is not None:
            self._poll_store()
            self._poll.start()
        else:
            self._poll.stop()
            self._mark = None
        if holder is None:
            self._alive.stop()
            store_files = {str(p) for p in self._store_paths()}
            gone = [p for p in self._files.files() if p in store_files]
            if gone:
                self._files.removePaths(gone)
        else:
            self._alive.start()
            self._watch_paths()
        self.sig_holder.emit(holder)
        if ended:
            self._committed()  # what it did last

    def _poll_store(self) -> None:
        self._jobs.submit(store.commit_mark, self._mark_arrived, lambda _message: None)

    def _mark_arrived(self, mark: object) -> None:
        if self._mark is not None and mark != self._mark and not self._coalesce.isActive():
            self._coalesce.start()
        if self._poll.isActive():
            self._mark = mark

    def stop_watcher(self) -> None:
        """Ask the other process to stop; the lock file says when it has."""
        folder = self._dir
        self._jobs.submit(lambda: watch_link.stop_watcher(folder), lambda _: self.check())

    def shutdown(self) -> None:
        self._alive.stop()
        self._poll.stop()
        self._coalesce.stop()
        paths = self._files.files() + self._files.directories()
        if paths:
            self._files.removePaths(paths)
