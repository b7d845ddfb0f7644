"""The system-tray icon: what the watch does, its news, and a way back to the window.

One per app (it outlives project switches): the main window attaches it to each
project's crawl job and watch monitor. Its tooltip says the state (idle, crawling,
watching and when the next page is due, paused, watched by pid N) and the unseen news;
its menu pauses or resumes watching, opens the window, and quits (stopping the watch
cleanly first). After a watch round with news it shows one desktop notification,
unless the project has them switched off (:mod:`recrawl.core.watch.notifications`).

Where the platform has no tray (offscreen, some desktops) the controller is built all
the same, menu and state included, and shows nothing: the window then never hides
into a tray it does not have.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon
from recrawl.core.clock import utcnow
from recrawl.core.engine import Event, RoundStarted, WatchRound, WatchSleeping
from recrawl.core.watch.notifications import notifications_on
from recrawl.gui.context import AppContext
from recrawl.gui.resources import icon
from recrawl.gui.watch import watch_link
from recrawl.gui.watch.watch_monitor import WatchMonitor
from recrawl.gui.watch.watch_text import (
    Mode,
    NewsBatcher,
    TrayState,
    WatcherHolder,
    news_message,
    tray_tooltip,
)

MESSAGE_MS = 10_000
#: While the watch sleeps, the tooltip's "in 3.2 h" is refreshed this often.
TOOLTIP_MS = 60_000

_JOB_MODES = {"running": Mode.CRAWLING, "paused": Mode.PAUSED, "stopping": Mode.STOPPING}


class TrayController(QObject):
    sig_open = Signal()
    sig_quit = Signal()

    def __init__(self, parent: QObject | None = None, *, available: bool | None = None) -> None:
        super().__init__(parent)
        has_tray = QSystemTrayIcon.isSystemTrayAvailable()
        #: Whether the window may hide into the tray (tests say True offscreen, where
        #: the platform has no tray: the controller then shows no icon of its own).
        self.available = has_tray if available is None else available
        self.state = TrayState()
        self.project = ""
        self.tooltip = ""
        #: The notifications shown, (title, text), newest last (the tests read them).
        self.messages: list[tuple[str, str]] = []
        self._context: AppContext | None = None
        self._job_state = "idle"
        self._asleep = False
        self._batcher = NewsBatcher()
        self._clock = QTimer(self)
        self._clock.setInterval(TOOLTIP_MS)
        self._clock.timeout.connect(self._show)

        self.menu = QMenu()
        self.state_action = QAction("", self)
        self.state_action.setEnabled(False)
        self.pause_action = QAction("Pause Watching", self)
        self.pause_action.triggered.connect(self._toggle_pause)
        self.open_action = QAction("Open Recrawl", self)
        self.open_action.triggered.connect(self.sig_open)
        self.quit_action = QAction("Quit", self)
        self.quit_action.triggered.connect(self.sig_quit)
        self.menu.addAction(self.state_action)
        self.menu.addSeparator()
        for action in (self.pause_action, self.open_action):
            self.menu.addAction(action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)

        self.icon: QSystemTrayIcon | None = None
        if has_tray:
            self.icon = QSystemTrayIcon(icon("app"), self)
            self.icon.setContextMenu(self.menu)
            self.icon.activated.connect(self._activated)
            self.icon.show()
        self._show()

    # -- what it follows -------------------------------------------------------------

    def attach(self, context: AppContext, monitor: WatchMonitor) -> None:
        """Follow ``context``'s crawl job and ``monitor`` (a newly opened project)."""
        self._context = context
        self.project = str(context.project.path)
        self._job_state = "idle"
        self._batcher = NewsBatcher()
        self.state = TrayState(unseen=self.state.unseen)
        context.crawl.sig_state.connect(self._job_state_changed)
        context.crawl.sig_events.connect(self._events)
        monitor.sig_holder.connect(self._holder)
        monitor.sig_store_changed.connect(self.refresh_unseen)
        context.changes.sig_news.connect(self.refresh_unseen)  # e.g. "mark all as seen"
        self.refresh_unseen()
        self._show()

    def _job_state_changed(self, state: str) -> None:
        self._job_state = state
        if state == "idle":
            self._asleep = False
            self._set(next_due=None)
        self._update_mode()

    def _holder(self, holder: WatcherHolder | None) -> None:
        self._set(holder=holder)
        self._update_mode()

    def _update_mode(self) -> None:
        context = self._context
        watching = context is not None and context.crawl.watching
        mode = _JOB_MODES.get(self._job_state, Mode.IDLE)
        if mode is Mode.CRAWLING and watching:
            mode = Mode.SLEEPING if self._asleep else Mode.WATCHING
        elif mode is Mode.IDLE and self.state.holder is not None:
            mode = Mode.EXTERNAL
        self._set(mode=mode)

    def _events(self, events: list[Event]) -> None:
        context = self._context
        if context is None or not context.crawl.watching:
            return
        self._batcher.feed(events)
        for event in events:
            if isinstance(event, WatchSleeping):
                self.sleeping(event.until)
            elif isinstance(event, RoundStarted) and self._asleep:
                self._asleep = False
                self._set(next_due=None)
                self._update_mode()
            elif isinstance(event, WatchRound):
                self.round_ended()

    def sleeping(self, until: datetime | None) -> None:
        """The watch sleeps until ``until`` (None: nothing will be due)."""
        self._asleep = True
        self._set(next_due=until)
        self._update_mode()

    def round_ended(self) -> None:
        """A watch round ended: one notification if it brought news and the project wants it."""
        text = news_message(self._batcher.take())
        if text is None or self._context is None:
            self.refresh_unseen()
            return
        self._context.jobs.submit(
            lambda: (notifications_on(), watch_link.unseen_news()),
            lambda answer: self._notify_if_on(text, *answer),
        )

    def _notify_if_on(self, text: str, on: bool, unseen: int | None) -> None:
        self._set(unseen=unseen)
        if on:
            self.notify(f"Recrawl — {self.project}", text)

    def refresh_unseen(self) -> None:
        if self._context is not None:
            self._context.jobs.submit(watch_link.unseen_news, lambda n: self._set(unseen=n))

    # -- what it shows ---------------------------------------------------------------

    def notify(self, title: str, text: str) -> None:
        self.messages.append((title, text))
        if self.icon is not None and QSystemTrayIcon.supportsMessages():
            self.icon.showMessage(title, text, icon("app"), MESSAGE_MS)

    def _set(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)
        self._show()

    def _show(self) -> None:
        self.tooltip = tray_tooltip(self.state, self.project or "no project", utcnow())
        self.state_action.setText(self.tooltip.splitlines()[1])
        paused = self.state.mode is Mode.PAUSED
        watching = self._context is not None and self._context.crawl.watching
        self.pause_action.setText("Resume Watching" if paused else "Pause Watching")
        self.pause_action.setEnabled(watching and self.state.mode is not Mode.STOPPING)
        if self.icon is not None:
            self.icon.setToolTip(self.tooltip)
        if self.state.mode is Mode.SLEEPING and self.state.next_due is not None:
            if not self._clock.isActive():
                self._clock.start()
        else:
            self._clock.stop()

    def _toggle_pause(self) -> None:
        context = self._context
        if context is None:
            return
        if self.state.mode is Mode.PAUSED:
            context.crawl.resume()
        else:
            context.crawl.pause()

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.sig_open.emit()

    def hide(self) -> None:
        self._clock.stop()
        if self.icon is not None:
            self.icon.hide()
