"""The main window: navigation between the panels, menus, status bar, the open project.

It owns the project and the background services (store jobs, the crawl job, the
compaction job) and hands them to the panels in an :class:`AppContext`. Opening another
project rebuilds the panels on it. Closing the window while a crawl runs stops the
crawl first and closes once it has stopped; while the app watches and the platform has a
system tray, closing can leave it watching in the tray instead (asked once, remembered:
the Crawl menu changes it back). The tray icon (:mod:`.tray`) outlives project switches.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QWidget,
)
from recrawl.core.errors import RecrawlError
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.gui.changes.change_rules_dialog import ChangeRulesDialog
from recrawl.gui.common.address_note import AddressNote
from recrawl.gui.common.elided_label import ElidedLabel
from recrawl.gui.context import AppContext, Changes
from recrawl.gui.crawl.crawl_panel import CrawlPanel
from recrawl.gui.export.export_dialog import WaczExport
from recrawl.gui.filters.filters_panel import FiltersPanel
from recrawl.gui.jobs.long_jobs import CompactionJob, CrawlJob
from recrawl.gui.jobs.store_jobs import StoreJobs
from recrawl.gui.news.news_panel import NewsPanel
from recrawl.gui.pages.pages_panel import PagesPanel
from recrawl.gui.panel import Panel
from recrawl.gui.preferences import Preferences
from recrawl.gui.project.new_project_dialog import NewProjectDialog
from recrawl.gui.project.password import AskPassword, open_asking_password, password_dialog
from recrawl.gui.replay import ReplayService
from recrawl.gui.resources import icon
from recrawl.gui.schedule.schedule_panel import SchedulePanel
from recrawl.gui.search.search_panel import SearchPanel
from recrawl.gui.segments.segments_panel import SegmentsPanel
from recrawl.gui.settings.settings_dialog import SettingsDialog
from recrawl.gui.sites.sites_panel import SitesPanel
from recrawl.gui.storage.storage_panel import StoragePanel
from recrawl.gui.watch.tray import TrayController
from recrawl.gui.watch.watch_menu import WatchMenu, ask_keep_watching
from recrawl.gui.watch.watch_monitor import WatchMonitor
from recrawl.gui.workers.workers_panel import WorkersPanel

from recrawl import __version__

PANELS: tuple[type[Panel], ...] = (
    NewsPanel,
    CrawlPanel,
    SitesPanel,
    PagesPanel,
    SearchPanel,
    FiltersPanel,
    SchedulePanel,
    SegmentsPanel,
    WorkersPanel,
    StoragePanel,
)

CRAWL_STATES = {
    "idle": "Idle",
    "running": "Crawling…",
    "paused": "Paused",
    "stopping": "Stopping…",
}


class MainWindow(QMainWindow):
    #: The window has closed for good (not hidden in the tray): the app may quit.
    sig_closed = Signal()

    def __init__(
        self,
        project: Project,
        prefs: Preferences | None = None,
        *,
        tray_available: bool | None = None,
    ) -> None:
        super().__init__()
        self.prefs = prefs or Preferences()
        self.setWindowIcon(icon("app"))
        self.resize(1200, 780)
        self._closing = False
        #: Quit asked (the tray's Quit): no question, the watch stops, the window closes.
        self._quitting = False
        self.tray = TrayController(self, available=tray_available)
        self.tray.sig_open.connect(self.show_from_tray)
        self.tray.sig_quit.connect(self.quit_app)
        self.context: AppContext | None = None
        #: File → Export WACZ… on the open project (rebuilt with it).
        self.wacz_export: WaczExport | None = None
        #: File → Settings…, while it is open (or was last).
        self.settings: SettingsDialog | None = None
        #: The Change rules editor of the open project (made when first asked for).
        self.change_rules: ChangeRulesDialog | None = None
        #: File → New Project's dialog while it is open (tests answer it).
        self.new_project: NewProjectDialog | None = None
        self.panels: dict[str, Panel] = {}
        #: Asks for a database password when a project's server wants one (a dialog).
        self.ask_password: AskPassword = password_dialog(self)

        self.nav = QListWidget()
        self.nav.setObjectName("nav")
        self.nav.setIconSize(QSize(20, 20))
        self.nav.setFixedWidth(150)
        self.stack = QStackedWidget()
        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.nav)
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self._show_row)

        self.crawl_state = QLabel(CRAWL_STATES["idle"])
        self.crawl_state.setObjectName("crawl-state")
        self.project_label = ElidedLabel()  # a long path gives way in a narrow window
        #: The last address handed to the browser, with Copy (a capture's replay URL).
        self.address_note = AddressNote()
        self.statusBar().addWidget(self.address_note, 1)
        self.statusBar().addPermanentWidget(self.project_label)
        self.statusBar().addPermanentWidget(self.crawl_state)

        self._build_menus()
        self.open_project(project)
        geometry, state = self.prefs.window_geometry(), self.prefs.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    # -- menus and shortcuts -------------------------------------------------------------

    def _build_menus(self) -> None:
        menu = self.menuBar().addMenu("&File")
        self._action(menu, "&New Project…", self.new_project_dialog, QKeySequence.StandardKey.New)
        self._action(
            menu, "&Open Project…", self.open_project_dialog, QKeySequence.StandardKey.Open
        )
        self.recent_menu = menu.addMenu("Open &Recent")
        menu.addSeparator()
        self.export_action = self._action(menu, "&Export WACZ…", self.export_wacz_dialog)
        self.settings_action = self._action(menu, "&Settings…", self.settings_dialog, "Ctrl+,")
        menu.addSeparator()
        self._action(menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        menu = self.menuBar().addMenu("&Crawl")
        self.start_action = self._action(menu, "&Start", self._start_crawl, "Ctrl+R")
        self.pause_action = self._action(menu, "&Pause / Resume", self._toggle_pause, "Ctrl+P")
        self.stop_action = self._action(menu, "S&top", self._stop_crawl, "Ctrl+.")
        self.watch_menu = WatchMenu(menu, self.prefs, self)
        self.watch_menu.sig_watch.connect(self._watch_from_menu)
        self.watch_menu.sig_status.connect(lambda text: self.statusBar().showMessage(text, 8000))

        menu = self.menuBar().addMenu("&View")
        numbered = (panel for panel in PANELS if panel.shortcut is None)
        numbers = {panel.key: f"Ctrl+{n}" for n, panel in enumerate(numbered, 1)}
        for panel in PANELS:
            shortcut = panel.shortcut or numbers[panel.key]
            if panel is SearchPanel:  # Ctrl+F: the field too, ready for a query
                self._action(menu, panel.title, self.show_search, shortcut)
            else:
                self._action(
                    menu, panel.title, lambda _=False, k=panel.key: self.show_panel(k), shortcut
                )

        menu = self.menuBar().addMenu("&Help")
        self._action(menu, "&About Recrawl", self.about)

    def _action(
        self,
        menu: QMenu,
        text: str,
        slot: Callable[..., object],
        shortcut: str | QKeySequence.StandardKey | None = None,
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)  # shortcuts work while the menu is closed, on every platform
        return action

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.prefs.recent_projects():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_project_path(p))
        self.recent_menu.setEnabled(bool(self.prefs.recent_projects()))

    # -- projects ------------------------------------------------------------------------

    def open_project(self, project: Project) -> None:
        """Show ``project``: the panels are rebuilt on it."""
        gc.unfreeze()  # the old panels' objects may be collected again
        self._close_context()
        changes = Changes(self)
        jobs = StoreJobs(project, self)
        context = AppContext(
            project=project,
            jobs=jobs,
            crawl=CrawlJob(project, self),
            compaction=CompactionJob(project, self),
            prefs=self.prefs,
            changes=changes,
            watch=WatchMonitor(project.path, jobs, changes, self),
            replay=ReplayService(project.path, self),
            services=Services(project),
        )
        self.context = context
        self.wacz_export = WaczExport(project, self)
        self.wacz_export.sig_status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        context.crawl.sig_state.connect(self._crawl_state_changed)
        context.compaction.sig_idle.connect(self._compaction_idle)
        context.jobs.sig_failed.connect(self._job_failed)
        changes.sig_status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.address_note.hide()  # the old project's server stops with it
        context.replay.sig_opened.connect(self.address_note.show_address)
        for key in list(self.panels):
            panel = self.panels.pop(key)
            self.stack.removeWidget(panel)
            panel.deleteLater()
        self.nav.blockSignals(True)
        self.nav.clear()
        for panel_class in PANELS:
            panel = panel_class(context)
            self.panels[panel.key] = panel
            self.stack.addWidget(panel)
            item = QListWidgetItem(icon(panel.key), panel.title)
            item.setData(Qt.ItemDataRole.UserRole, panel.key)
            self.nav.addItem(item)
            panel.sig_title.connect(item.setText)
        news = self.panels[NewsPanel.key]
        assert isinstance(news, NewsPanel)
        news.sig_open_diff.connect(self.show_page_diff)
        sites = self.panels[SitesPanel.key]
        assert isinstance(sites, SitesPanel)
        sites.sig_change_rules.connect(self.edit_change_rules)
        pages = self.panels[PagesPanel.key]
        assert isinstance(pages, PagesPanel)
        pages.sig_ignore_text.connect(self.ignore_text)
        search = self.panels[SearchPanel.key]
        assert isinstance(search, SearchPanel)
        search.sig_show_content.connect(pages.show_content)
        search.sig_open_capture.connect(pages.open_capture)
        search.sig_compare.connect(self.show_fetches_diff)
        self.nav.blockSignals(False)
        self.setWindowTitle(f"Recrawl — {project.path}")
        self.project_label.setText(str(project.path))
        self.prefs.add_recent_project(project.path)
        self._fill_recent()
        self._crawl_state_changed("idle")
        if project.notes:  # what opening did, or could not (a full disk: reading only)
            self.statusBar().showMessage(project.notes[-1], 60_000)
        self.tray.attach(context, context.watch)
        self.watch_menu.set_project(project.path)
        self.show_panel(self.prefs.last_panel())
        # Everything alive now (modules, Qt wrappers, the panels) lives as long as the
        # window: frozen out of the cyclic collector, whose full passes over half a
        # million such objects otherwise stall the event loop for 50-150 ms mid-crawl.
        gc.collect()
        gc.freeze()

    def open_project_path(self, path: str, create: bool = False) -> bool:
        if not self._may_leave_project():
            return False
        old = self.context.project if self.context else None
        # the old project's services stop first: nothing queued for it may run on the new one
        self._close_context()
        try:
            project = open_asking_password(
                lambda password: (
                    Project.init(path, password=password)
                    if create
                    else Project.open(path, password=password)
                ),
                self.ask_password,
            )
        except RecrawlError as exc:
            if not create:
                self.prefs.forget_project(path)
                self._fill_recent()
            QMessageBox.warning(self, "Recrawl", str(exc))
            if old is not None:
                self.open_project(old)  # its store is still the open one
            return False
        if old is not None and old is not project:
            old.close()  # its store and lock; the new project is the active one here
        self.open_project(project)
        return True

    def new_project_dialog(self) -> None:
        """File → New Project: a folder made by name, beside the open project's."""
        beside = self.context.project.path.parent if self.context is not None else Path.home()
        dialog = NewProjectDialog(beside, self)
        dialog.sig_chosen.connect(lambda path, create: self.open_project_path(path, create))
        dialog.finished.connect(dialog.deleteLater)
        self.new_project = dialog
        dialog.open()

    def open_project_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a Recrawl project")
        if folder:
            self.open_project_path(folder)

    def export_wacz_dialog(self) -> None:
        """File → Export WACZ…: what to export, then the export with its progress."""
        if self.wacz_export is not None:
            self.wacz_export.ask()

    def settings_dialog(self) -> None:
        """File → Settings…: the crawl settings the project keeps (window-modal)."""
        if self.context is None:
            return
        if self.settings is not None:
            self.settings.deleteLater()  # the one opened before, closed
        dialog = SettingsDialog(self.context, self)
        dialog.sig_saved.connect(self.context.changes.sig_settings)
        self.settings = dialog
        dialog.open()

    def change_rules_editor(self) -> ChangeRulesDialog:
        """The open project's Change rules editor, shown (not modal: diff windows it
        opens stay usable beside it)."""
        assert self.context is not None
        dialog = self.change_rules
        if dialog is None:
            dialog = ChangeRulesDialog(self.context, self)
            dialog.sig_changed.connect(self.context.changes.sig_policy)
            dialog.sig_open_diff.connect(self.show_fetches_diff)
            self.change_rules = dialog
        elif not dialog.isVisible():
            dialog.reload()  # the rules may have changed meanwhile (the command line)
        dialog.show()
        if QGuiApplication.platformName() != "offscreen":  # which warns it cannot raise
            dialog.raise_()
        dialog.activateWindow()
        return dialog

    def edit_change_rules(self, prefix: str = "") -> None:
        """Edit what counts as a change: the rule on ``prefix`` (a site), or a new one."""
        if self.context is not None:
            editor = self.change_rules_editor()
            if prefix:
                editor.edit_prefix(prefix)

    def ignore_text(self, url: str, text: str) -> None:
        """A diff's "Ignore this text…": the rule applying to ``url``, with ``text`` to ignore."""
        if self.context is not None:
            self.change_rules_editor().ignore_on_page(url, text)

    def _may_leave_project(self) -> bool:
        context = self.context
        if context is not None and (context.crawl.busy or context.compaction.busy):
            QMessageBox.information(
                self, "Recrawl", "Stop the crawl (or let the compaction finish) first."
            )
            return False
        return True

    def _close_context(self) -> None:
        context, self.context = self.context, None
        export, self.wacz_export = self.wacz_export, None
        if export is not None:  # stopped: its partial file goes, an older file stays
            export.shutdown()
            export.deleteLater()
        if context is None:
            return
        for panel in self.panels.values():
            panel.shutdown()
        rules, self.change_rules = self.change_rules, None
        if rules is not None:
            rules.shutdown()
            rules.close()
            rules.deleteLater()
        context.watch.shutdown()
        context.replay.shutdown()
        context.crawl.wait()
        context.compaction.wait()
        context.jobs.shutdown()
        services = (
            context.jobs,
            context.crawl,
            context.compaction,
            context.changes,
            context.watch,
            context.replay,
        )
        for service in services:
            service.deleteLater()

    # -- panels --------------------------------------------------------------------------

    def show_panel(self, key: str) -> None:
        keys = [panel.key for panel in PANELS]
        self.nav.setCurrentRow(keys.index(key) if key in keys else 0)

    def show_page_diff(self, url: str, at: datetime | None = None) -> None:
        """The page of ``url`` in the Pages panel (its history beside), and a window with
        what changed on it by its fetch at ``at`` (None: at its latest change): the What's
        new panel's double-click."""
        self.show_panel("pages")
        panel = self.panels.get("pages")
        if isinstance(panel, PagesPanel):
            row = panel.model.row_of(url)
            if row is not None:
                panel.table.selectRow(row)
            else:
                panel.select_url(url)  # its detail and history, though not listed yet
            if at is None:
                panel.show_latest_diff(url)
            else:
                panel.compare(url, at, None)

    def show_search(self) -> None:
        """Ctrl+F, from any panel: the Search panel, its field ready for a query."""
        self.show_panel(SearchPanel.key)
        panel = self.panels.get(SearchPanel.key)
        if isinstance(panel, SearchPanel):
            panel.focus_query()

    def show_fetches_diff(self, url: str, at: datetime, before: datetime | None) -> None:
        """What changed on ``url`` between the captures of its fetches at ``before`` and
        ``at`` (a change rule preview's example), in the Pages panel's diff window."""
        panel = self.panels.get("pages")
        if isinstance(panel, PagesPanel):
            panel.compare(url, at, before)

    def current_panel(self) -> Panel:
        panel = self.stack.currentWidget()
        assert isinstance(panel, Panel)  # the stack holds the panels and nothing else
        return panel

    def _show_row(self, row: int) -> None:
        if row < 0:
            return
        key = self.nav.item(row).data(Qt.ItemDataRole.UserRole)
        panel = self.panels[key]
        self.stack.setCurrentWidget(panel)
        self.prefs.set_last_panel(key)
        panel.activate()

    # -- crawl ---------------------------------------------------------------------------

    def _start_crawl(self) -> None:
        self.show_panel("crawl")
        panel = self.panels["crawl"]
        if hasattr(panel, "start"):
            panel.start()

    def _toggle_pause(self) -> None:
        if self.context is None:
            return
        crawl = self.context.crawl
        if self.crawl_state.text() == CRAWL_STATES["paused"]:
            crawl.resume()
        else:
            crawl.pause()

    def _stop_crawl(self) -> None:
        if self.context is not None:
            self.context.crawl.stop()

    def start_watching(self) -> None:
        """Watch the project (as the Crawl panel's Watch does), once its settings are read."""
        panel = self.panels["crawl"]
        if isinstance(panel, CrawlPanel):
            panel.start(watch=True)

    def _watch_from_menu(self, on: bool) -> None:
        panel = self.panels["crawl"]
        if isinstance(panel, CrawlPanel):
            panel.watch_toggled(on)
        if self.context is not None:
            self.watch_menu.watch_action.setChecked(self.context.crawl.watching)

    def _crawl_state_changed(self, state: str) -> None:
        watching = self.context is not None and self.context.crawl.watching
        text = CRAWL_STATES.get(state, state)
        self.crawl_state.setText("Watching…" if watching and state == "running" else text)
        self.watch_menu.watch_action.setChecked(watching and state != "stopping")
        running = state != "idle"
        self.start_action.setEnabled(not running)
        self.pause_action.setEnabled(running and state != "stopping")
        self.stop_action.setEnabled(running and state != "stopping")
        if state == "idle" and self._closing:
            self.close()

    def _compaction_idle(self) -> None:
        if self._closing:
            self.close()

    def _job_failed(self, message: str) -> None:
        self.statusBar().showMessage(message, 10_000)

    # -- about and closing ---------------------------------------------------------------

    def about(self) -> None:
        QMessageBox.about(
            self,
            "About Recrawl",
            f"<h3>Recrawl {__version__}</h3>"
            "<p>A crawl manager for web archivists: first-seen tracking, self-adjusting "
            "revisits, short-circuit filter chains, WARC segments.</p>",
        )

    def show_from_tray(self) -> None:
        """The tray's Open: the window shown, raised and active."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        if QGuiApplication.platformName() != "offscreen":  # which warns it cannot raise
            self.raise_()
        self.activateWindow()

    def quit_app(self) -> None:
        """The tray's Quit: stop watching (or crawling) cleanly, then close for good."""
        self._quitting = True
        self.close()

    def _keep_in_tray(self) -> bool | None:
        """Whether closing now hides the window in the tray: True, False, or None (the
        user cancelled the close)."""
        context = self.context
        watching = context is not None and context.crawl.busy and context.crawl.watching
        if not watching or not self.tray.available or self._quitting or self._closing:
            return False
        choice = self.prefs.close_while_watching()
        if choice == "ask":
            answer, remember = ask_keep_watching(self)
            if answer is None:
                return None
            if remember:
                self.prefs.set_close_while_watching(answer)
                self.watch_menu.show_close_choice()
            choice = answer
        return choice == "tray"

    def closeEvent(self, event: QCloseEvent) -> None:
        keep = self._keep_in_tray()
        if keep is None or keep:
            event.ignore()
            if keep:
                self.hide()
                self.statusBar().showMessage("Watching in the tray")
            return
        context = self.context
        if context is not None and context.crawl.busy:
            # stop cleanly; the window closes when the crawl reports it has stopped
            self._closing = True
            context.crawl.stop()
            self.statusBar().showMessage("Stopping the crawl before closing…")
            event.ignore()
            return
        if context is not None and context.compaction.busy:
            # a compaction is not interrupted (a kill would be safe, but this is politer):
            # the window closes when it is done
            self._closing = True
            self.statusBar().showMessage("Finishing the compaction before closing…")
            event.ignore()
            return
        self.prefs.save_window(self.saveGeometry(), self.saveState())
        self.prefs.sync()
        self._close_context()
        self.tray.hide()
        event.accept()
        self.sig_closed.emit()

    def project_path(self) -> Path | None:
        return self.context.project.path if self.context else None
