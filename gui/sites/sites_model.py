"""The Sites list's table model: one row per host, loaded a block at a time.

Like the page listing, it never queries on the GUI thread: the store thread reads
blocks of hosts, grouped and ordered in SQL (``policy.sites.sites_block``), and the view
asks for the next block when it scrolls near the end (``canFetchMore``/``fetchMore``).
Every request carries the generation it was asked in; an answer to an older one is
dropped, so a reload never mixes two listings.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from recrawl.core.clock import human_duration, utcnow
from recrawl.core.policy.sites import ANY_HOST, Site, SitesBlock, sites_block
from recrawl.gui.common import formatting
from recrawl.gui.common.table_model import Column, Index, TableModel
from recrawl.gui.jobs.store_jobs import StoreJobs

#: Hosts asked for at a time.
BLOCK = 200

#: The row's :class:`~recrawl.core.policy.sites.Site`, for the panel and tests.
SITE_ROLE = Qt.ItemDataRole.UserRole + 1

OUT_OF_SCOPE = QBrush(QColor("#888888"))


def scope_text(site: Site) -> str:
    if site.scope is None:
        return "out of scope"
    if site.scope == ANY_HOST:
        return "any host"
    return "in scope" if site.scope == site.host else f"via {site.scope}"


def rule_prefix(site: Site) -> str:
    """The prefix a change rule on the whole site starts from: its host, with the port
    its seed names (a rule on a bare host matches no URL that has a port)."""
    seed = site.summary.first_seed
    if seed is not None:
        parts = urlsplit(seed)
        if parts.hostname == site.host and parts.port is not None:
            return parts.netloc.lower()
    return site.host


#: The column of a site's capture mode.
CAPTURE_COLUMN = 2


def capture_tip(site: Site) -> str:
    how = "in a browser (Chromium)" if site.capture == "browser" else "over HTTP"
    if site.capture_entry is None:
        why = "the project's capture mode (Settings: capture.mode)"
    elif site.capture_entry == site.host:
        why = f"its own mode (capture.mode@{site.host})"
    else:
        why = f"the mode of {site.capture_entry} (capture.mode@{site.capture_entry})"
    return f"Captured {how}: {why}"


class SitesModel(TableModel[Site]):
    """Rows are :class:`~recrawl.core.policy.sites.Site` values, by host name."""

    COLUMNS = (
        Column("Site"),
        Column("Scope", tip="Whether the chain's scope filter lets the crawl onto the host"),
        Column("Capture", tip="How its pages are captured: over HTTP, or in a browser (Chromium)"),
        Column("Seeds", tip="The URLs you added for it", numeric=True),
        Column("Pages", numeric=True),
        Column("Due now", numeric=True),
        Column("Last fetch", tip="Local time"),
        Column("Next fetch", tip="Local time"),
    )

    #: A block failed (the message is for the status bar).
    sig_failed = Signal(str)
    #: The first block of a listing arrived (the number of its rows).
    sig_loaded = Signal(int)

    def __init__(self, jobs: StoreJobs, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs = jobs
        self._generation = 0
        self._after: str | None = None
        self._pending = False
        self._complete = True  # nothing asked yet: nothing to fetch
        self._now = utcnow()

    def reload(self) -> None:
        """Start over from the first host."""
        self._generation += 1
        self._after = None
        self._complete = False
        self._now = utcnow()
        self.set_rows([])
        self._request()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._complete and not self._pending

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._request()

    def _request(self) -> None:
        self._pending = True
        generation, after, now = self._generation, self._after, self._now
        self._jobs.submit(
            lambda: sites_block(now, after, BLOCK),
            lambda block: self._arrived(generation, block),
            lambda message: self._failed(generation, message),
        )

    def _arrived(self, generation: int, block: SitesBlock) -> None:
        if generation != self._generation:
            return
        first = self._after is None
        self._pending = False
        self._after = block.after
        self._complete = block.complete
        self.append_rows(block.sites)
        if first:
            self.sig_loaded.emit(len(block.sites))

    def _failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self._pending = False
            self._complete = True  # a reload tries again
        self.sig_failed.emit(message)

    @property
    def loading(self) -> bool:
        return self._pending

    def row_of(self, host: str) -> int | None:
        return next((n for n, site in enumerate(self._rows) if site.host == host), None)

    # -- cells ------------------------------------------------------------------------

    def cell(self, site: Site, column: int, role: int) -> Any:
        if role == SITE_ROLE:
            return site
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(site, column)
        if role == Qt.ItemDataRole.ForegroundRole and not site.in_scope:
            return OUT_OF_SCOPE
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tip(site, column)
        return None

    def _text(self, site: Site, column: int) -> str:
        s = site.summary
        if column == 0:
            return s.host
        if column == 1:
            return scope_text(site)
        if column == CAPTURE_COLUMN:
            return site.capture
        if column in (3, 4, 5):
            return f"{(s.seeds, s.pages, s.due)[column - 3]:,}"
        if column == 6:
            return formatting.local_time(s.last_fetched)
        if s.next_fetch is not None:
            return formatting.local_time(s.next_fetch)
        return "never" if s.pages else ""

    def _tip(self, site: Site, column: int) -> str | None:
        s = site.summary
        if column in (0, 3) and s.first_seed is not None:
            more = f" and {s.seeds - 1:,} more" if s.seeds > 1 else ""
            return f"Seed: {s.first_seed}{more}"
        if column == CAPTURE_COLUMN:
            return capture_tip(site)
        if column == 4 and s.filtered:
            return f"{s.filtered:,} of them kept but no longer fetched (out of the crawl)"
        if column == 7 and s.next_fetch is not None:
            return _when(s.next_fetch, self._now)
        return None


def _when(at: datetime, now: datetime) -> str:
    if at <= now:
        return "due now"
    return f"in {human_duration((at - now).total_seconds())}"
