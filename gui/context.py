"""What every panel works with: the open project and the shared background services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.gui.jobs.long_jobs import CompactionJob, CrawlJob
from recrawl.gui.jobs.store_jobs import StoreJobs
from recrawl.gui.preferences import Preferences
from recrawl.gui.replay import ReplayService

if TYPE_CHECKING:  # it reports to Changes, below
    from recrawl.gui.watch.watch_monitor import WatchMonitor


class Changes(QObject):
    """Tells panels that the store changed under them (a crawl round, a compaction)."""

    sig_pages = Signal()
    sig_segments = Signal()
    sig_policy = Signal()  # schedule, signature or filter chain
    #: The project's crawl settings were saved (File → Settings…).
    sig_settings = Signal()
    #: A watch round ended: there may be news (the What's new panel, the tray).
    sig_news = Signal()
    #: A message for the status bar.
    sig_status = Signal(str)


@dataclass
class AppContext:
    project: Project
    jobs: StoreJobs
    crawl: CrawlJob
    compaction: CompactionJob
    prefs: Preferences
    changes: Changes
    #: Another process watching the project (``recrawl watch``), and its commits.
    watch: WatchMonitor
    #: The project's replay server (pywb), for "Open capture in browser".
    replay: ReplayService
    #: The operations on the project (each wakes its watcher when what is due changed).
    services: Services
