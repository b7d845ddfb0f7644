"""The core's watching calls as the app makes them, in one place.

The watcher of another process (``recrawl watch``) and the count of unseen news (a
change tells the watcher itself: :mod:`recrawl.core.services`). The functions run on the
store thread (``context.jobs``), never on the GUI thread: they read files, ask the
watcher over its wake channel (:mod:`recrawl.core.watch.wake`, an answer within milliseconds) or read the
store.
"""

from __future__ import annotations

import os
from pathlib import Path

from recrawl.core import store
from recrawl.core.watch import wake
from recrawl.gui.watch.watch_text import WatcherHolder


def watcher_holder(project_dir: Path) -> WatcherHolder | None:
    """The other process watching the project, if one does (this app's own watch is not)."""
    info = wake.watcher_of(project_dir)
    if info is None or info.pid == os.getpid():
        return None
    return WatcherHolder(info.pid, info.since)


def stop_watcher(project_dir: Path) -> bool:
    """Ask the project's watcher to stop (after the fetches in flight, docs/design.md §10)."""
    return wake.stop_watcher(project_dir)


def unseen_news() -> int | None:
    """Unseen news items of the open project."""
    return store.unseen_news_count()
