"""The core's watching calls as the app makes them, in one place.

The watcher of another process (``recrawl watch``), telling a watcher that something
changed, and the count of unseen news. The functions run on the store thread
(``context.jobs``), never on the GUI thread: they read files, ask the watcher over its
wake channel (:mod:`recrawl.core.watch.wake`, an answer within milliseconds) or read the
store.
"""

from __future__ import annotations

import os
from pathlib import Path

from recrawl.core import store
from recrawl.core.watch import wake
from recrawl.gui.jobs import StoreJobs
from recrawl.gui.watch_text import WatcherHolder


def watcher_holder(project_dir: Path) -> WatcherHolder | None:
    """The other process watching the project, if one does (this app's own watch is not)."""
    info = wake.watcher_of(project_dir)
    if info is None or info.pid == os.getpid():
        return None
    return WatcherHolder(info.pid, info.since)


def stop_watcher(project_dir: Path) -> bool:
    """Ask the project's watcher to stop (after the fetches in flight, docs/design.md §10)."""
    return wake.stop_watcher(project_dir)


def wake_watcher(project_dir: Path) -> bool:
    """Tell the project's watcher, ours or another process's, that something changed."""
    return wake.wake_watcher(project_dir)


def wake_soon(jobs: StoreJobs, project_dir: Path) -> None:
    """:func:`wake_watcher` on the store thread, after what was queued there before (the
    change the watcher should see)."""
    jobs.submit(lambda: wake_watcher(project_dir), lambda _: None)


def unseen_news() -> int | None:
    """Unseen news items of the open project."""
    return store.unseen_news_count()
