"""The Sites panel: what the project watches, site by site, and what to do with one.

Every host the project has pages of, and every host the chain's scope filter names,
with its seeds, pages, what is due and when it was and will be fetched (a lazy
:class:`~recrawl.gui.sites.sites_model.SitesModel`). A site can be fetched again now (its
pages made due) or taken out of the crawl: its scope entry leaves the filter chain and
its pages stay, with their captures, marked filtered and never fetched again
(:mod:`recrawl.core.policy.sites` says why that, and how to bring a site back). "Change
rules…" opens the editor of what counts as a change, on the chosen site
(:attr:`SitesPanel.sig_change_rules`: the window opens it).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.policy import sites
from recrawl.core.policy.refetch import Refetched
from recrawl.core.policy.sites import Removal, Site
from recrawl.core.services.sites import SiteCapture
from recrawl.core.words import plural
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.common.tables import compact_rows
from recrawl.gui.context import AppContext
from recrawl.gui.panel import Panel
from recrawl.gui.sites.sites_model import SITE_ROLE, SitesModel, rule_prefix

EMPTY_HINT = (
    "<h3>No sites yet</h3>"
    "<p>Add seed URLs in the <b>Crawl</b> panel (Ctrl+2). Each seed's host joins the "
    "crawl's scope and is listed here, with its pages, what is due and when it was last "
    "fetched; from here a site can be fetched again at once, or taken out of the crawl.</p>"
)

#: Sample texts the columns are sized for (a project has thousands of hosts: no
#: ResizeToContents, which measures every row on each reload).
SAMPLES = (
    "www.some-archive.example.org",
    "via example.org",
    "browser",
    "1,000",
    "1,000,000",
    "1,000,000",
    "2026-11-30 07:48",
    "2026-11-30 07:48",
)


class SitesPanel(Panel):
    title = "Sites"
    key = "sites"

    #: Edit the change rules, on this prefix (the chosen site's host; "" for none).
    sig_change_rules = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.model = SitesModel(context.jobs, self)
        self._selected: str | None = None
        #: The open confirmation of a removal (tests click its buttons).
        self.confirm: QMessageBox | None = None

        self.summary = QLabel("")
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Read the sites again")
        self.refresh_button.clicked.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.refresh_button)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        compact_rows(self.table)
        header = self.table.horizontalHeader()
        metrics = self.table.fontMetrics()
        for column, sample in enumerate(SAMPLES):
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            width = max(metrics.horizontalAdvance(sample), metrics.horizontalAdvance(title))
            self.table.setColumnWidth(column, width + 24)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)

        self.seeds_label = QLabel("")
        self.seeds_label.setWordWrap(True)
        self.seeds_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refetch_button = QPushButton("Refetch this site now")
        self.refetch_button.setToolTip("Make all its pages due: the next crawl round fetches them")
        self.refetch_button.clicked.connect(self.refetch_selected)
        self.remove_button = QPushButton("Remove from the crawl…")
        self.remove_button.setToolTip(
            "Take the site out of the crawl's scope; its pages and captures are kept"
        )
        self.remove_button.clicked.connect(self.ask_remove_selected)
        # one checkable action: the button beside the others and the table's context menu
        self.capture_action = QAction("Capture with a browser", self)
        self.capture_action.setCheckable(True)
        self.capture_action.setToolTip(
            "Load the site's pages in Chromium and archive what their scripts load, with "
            "a screenshot of each capture (off: fetched over HTTP)"
        )
        self.capture_action.triggered.connect(self.capture_selected)
        self.capture_button = QToolButton()
        self.capture_button.setDefaultAction(self.capture_action)
        self.capture_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.rules_button = QPushButton("Change rules…")
        self.rules_button.setToolTip(
            "What counts as a change on the site or a section of it: parts to remove or "
            "read alone, text to ignore, tried first on its pages' own history"
        )
        self.rules_button.clicked.connect(self.edit_change_rules)
        #: The open context menu (tests read its actions).
        self.menu: QMenu | None = None
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._table_menu)
        self._capturing = False
        self.message = QLabel("")
        self.message.setWordWrap(True)
        actions = FlowLayout()  # the buttons wrap in a narrow window
        actions.addWidget(self.refetch_button)
        actions.addWidget(self.remove_button)
        actions.addWidget(self.capture_button)
        actions.addWidget(self.rules_button)
        actions.addStretch(1)

        listing = QWidget()
        rows = QVBoxLayout(listing)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.addLayout(top)
        rows.addWidget(self.table, 1)
        rows.addWidget(self.seeds_label)
        rows.addLayout(actions)
        rows.addWidget(self.message)
        self.listing = listing
        self.hint = QLabel(EMPTY_HINT)
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.stack = QStackedWidget()
        self.stack.addWidget(listing)
        self.stack.addWidget(self.hint)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack)

        self.model.sig_loaded.connect(self._loaded_first)
        self.model.sig_failed.connect(self.context.changes.sig_status)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.context.changes.sig_pages.connect(self.changed)
        self.context.changes.sig_policy.connect(self.changed)
        self.context.changes.sig_settings.connect(self.changed)  # capture.mode, say
        self._update_buttons()

    # -- the list ---------------------------------------------------------------------

    def query(self) -> None:
        self.model.reload()
        self.context.jobs.submit(lambda: (store.count_hosts(), store.page_count()), self._counted)

    def _counted(self, counts: tuple[int, int]) -> None:
        hosts, pages = counts
        self.summary.setText(f"{plural(hosts, 'host')} with pages, {plural(pages, 'page')} in all")

    def _loaded_first(self, rows: int) -> None:
        self.stack.setCurrentWidget(self.listing if rows else self.hint)
        row = self.model.row_of(self._selected) if self._selected else None
        if row is not None:
            self.table.selectRow(row)
        else:
            self._selected = None
            self.seeds_label.setText("")
        self._update_buttons()

    # -- selection --------------------------------------------------------------------

    def selected_site(self) -> Site | None:
        index = self.table.selectionModel().currentIndex()
        if not index.isValid():
            return None
        site = self.model.index(index.row(), 0).data(SITE_ROLE)
        return site if isinstance(site, Site) else None

    def select_host(self, host: str) -> bool:
        row = self.model.row_of(host)
        if row is None:
            return False
        self.table.selectRow(row)
        return True

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        site = self.selected_site() if current.isValid() else None
        self._selected = site.host if site else None
        self._update_buttons()
        if site is None or not site.summary.seeds:
            self.seeds_label.setText("No seeds: its pages were found by links." if site else "")
            return
        host = site.host
        self.context.jobs.submit(
            lambda: store.host_seeds(host, 20), lambda urls: self._seeds_arrived(host, urls)
        )

    def _seeds_arrived(self, host: str, urls: list[str]) -> None:
        if host != self._selected:
            return
        site = self.selected_site()
        more = site.summary.seeds - len(urls) if site else 0
        tail = f" and {more:,} more" if more > 0 else ""
        self.seeds_label.setText(f"Seeds of {host}: " + ", ".join(urls) + tail)

    def _update_buttons(self) -> None:
        site = self.selected_site()
        crawled = site is not None and site.summary.filtered < site.summary.pages
        pages = site is not None and site.summary.pages > 0
        self.refetch_button.setEnabled(site is not None and site.in_scope and pages)
        # out of scope with every page kept already: nothing left to take out
        self.remove_button.setEnabled(site is not None and (site.in_scope or crawled))
        self.refetch_button.setToolTip(
            "Out of scope: add one of its URLs as a seed to watch it again"
            if site is not None and not site.in_scope
            else "Make all its pages due: the next crawl round fetches them"
        )
        self.capture_action.setEnabled(site is not None and not self._capturing)
        self.capture_action.setChecked(site is not None and site.capture == "browser")

    def _table_menu(self, at: QPoint) -> None:
        if self.selected_site() is not None:
            self.menu = self.make_menu()
            self.menu.popup(self.table.viewport().mapToGlobal(at))

    def make_menu(self) -> QMenu:
        """The table's context menu: the chosen site's actions."""
        menu = QMenu(self)
        refetch = menu.addAction(self.refetch_button.text())
        refetch.setEnabled(self.refetch_button.isEnabled())
        refetch.triggered.connect(self.refetch_selected)
        menu.addAction(self.capture_action)
        rules = menu.addAction(self.rules_button.text())
        rules.triggered.connect(self.edit_change_rules)
        menu.addSeparator()
        remove = menu.addAction(self.remove_button.text())
        remove.setEnabled(self.remove_button.isEnabled())
        remove.triggered.connect(self.ask_remove_selected)
        return menu

    def edit_change_rules(self) -> None:
        """The Change rules editor, on the chosen site (none chosen: its list alone)."""
        site = self.selected_site()
        self.sig_change_rules.emit(rule_prefix(site) if site is not None else "")

    # -- capture mode -----------------------------------------------------------------

    def capture_selected(self, browser: bool) -> None:
        """Capture the chosen site in a browser (or over HTTP again), from its next fetch."""
        site = self.selected_site()
        if site is None:
            return
        host, mode = site.host, "browser" if browser else "http"
        operations = self.context.services.sites
        self._capturing = True
        self._update_buttons()
        self.context.jobs.submit(
            lambda: operations.capture_site(host, mode), self._captured, self._capture_failed
        )

    def _captured(self, done: SiteCapture) -> None:
        self._capturing = False
        how = "in a browser" if done.mode == "browser" else "over HTTP"
        if done.missing is not None:
            # kept all the same: the site waits for a Chromium, and says why
            self._say(f"{done.host} is to be captured {how}, but {done.missing}")
        else:
            pages = done.switch.pages
            afresh = (
                f"; {plural(pages, 'page')} compared afresh then (not a change)" if pages else ""
            )
            self._say(f"{done.host}: captured {how} from its next fetch{afresh}.")
        self.context.changes.sig_settings.emit()  # the list shows the mode, Settings too
        self._update_buttons()
        self.capture_action.setChecked(done.mode == "browser")  # until the list is read again

    def _capture_failed(self, message: str) -> None:
        self._capturing = False
        self._say(message)
        self._update_buttons()  # the toggle says the mode kept

    # -- refetch ----------------------------------------------------------------------

    def refetch_selected(self) -> None:
        site = self.selected_site()
        if site is None:
            return
        host, now, schedule = site.host, utcnow(), self.context.services.schedule
        self.context.jobs.submit(
            lambda: schedule.refetch(now, hosts=[host]),  # as `recrawl refetch --site`
            lambda done: self._refetched(host, done),
            self._say,
        )

    def _refetched(self, host: str, done: Refetched) -> None:
        crawl = self.context.crawl
        when = "this crawl's next round" if crawl.busy else "the next crawl"
        if crawl.watching or self.context.watch.holder is not None:
            when = "the watch"
        moved, already = done.made_due, done.already_due
        if moved or not already:
            pages = "1 more page is" if moved == 1 else f"{moved:,} more pages are"
            self._say(f"{host}: {pages} due now; {when} fetches them.")
        else:
            pages = "its page was" if already == 1 else f"its {already:,} pages were"
            self._say(f"{host}: {pages} due already; {when} fetches them.")
        self.context.changes.sig_pages.emit()

    # -- remove -----------------------------------------------------------------------

    def ask_remove_selected(self) -> None:
        site = self.selected_site()
        if site is None:
            return
        host = site.host
        self.context.jobs.submit(lambda: sites.plan_removal(host), self._confirm, self._say)

    def _confirm(self, plan: Removal) -> None:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Remove from the crawl")
        box.setText(f"Take {plan.host} out of the crawl?")
        box.setInformativeText(removal_text(plan))
        remove = box.addButton("Remove from the crawl", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        remove.clicked.connect(lambda: self.remove(plan.host))
        self.confirm = box
        box.open()  # window-modal; the event loop keeps running

    def remove(self, host: str) -> None:
        operations = self.context.services.sites
        self.context.jobs.submit(lambda: operations.remove(host), self._removed, self._say)

    def _removed(self, done: Removal) -> None:
        others = [h for h in done.hosts if h != done.host]
        also = f" (and {', '.join(others)})" if others else ""
        pages = "1 page" if done.pages == 1 else f"{done.pages:,} pages"
        self._say(f"{done.host}{also} is out of the crawl: {pages} kept, never fetched again.")
        self.context.changes.sig_policy.emit()  # the chain's scope filter changed
        self.context.changes.sig_pages.emit()

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.context.changes.sig_status.emit(text)


def removal_text(plan: Removal) -> str:
    """What a removal does, for the confirmation."""
    if plan.entry is None:
        scope = "It has no entry of its own in the crawl's scope filter."
    else:
        scope = (
            f"The scope filter loses its entry {plan.entry}: links to the site are turned "
            "away from now on."
        )
    others = [h for h in plan.hosts if h != plan.host]
    also = f" (with {', '.join(others)}, which {plan.entry} covered)" if others else ""
    kept = f"Its page{also} stays" if plan.pages == 1 else f"Its {plan.pages:,} pages{also} stay"
    return (
        f"{scope}\n\n{kept} in the project with their captures and history: marked "
        "filtered, never fetched again.\n\n"
        "To watch it again, add one of its URLs as a seed: its kept pages come back, due now."
    )
