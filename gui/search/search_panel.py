"""The Search panel (docs/design.md §19): which pages said it, and from when to when.

Results come as the user types: a pause of :data:`SEARCH_DELAY_MS` runs the query on
the store thread (``core.archive.search``); a query overtaken by a newer one before its
turn is not run, and an answer that comes after a newer query was asked is dropped. A
query with nothing to search for, and what the query language made of the text (an
unclosed quote), read as one line under the field, never as a dialog.

Each result is a page: its title, URL, the passage of its latest matching text with the
matches bold, when the text was first and last seen and when it went (local time), and
a timeline of the periods it was there (:mod:`.result_delegate`). Its captures open in
the app's existing views: the window routes :attr:`SearchPanel.sig_show_content`,
:attr:`~SearchPanel.sig_open_capture` and :attr:`~SearchPanel.sig_compare` to the Pages
panel's content window, replay and diff window.

A project whose index is not complete (made before search, or of an older format) is
indexed in the background once the panel is first shown, with its progress and a Stop;
results meanwhile come from what is indexed.
"""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QDateTime, QEvent, QModelIndex, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.archive.search import SearchHit
from recrawl.core.archive.search_build import BuildReport, ensure_search_index
from recrawl.core.words import plural
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.common.formatting import local_time
from recrawl.gui.context import AppContext
from recrawl.gui.jobs.long_jobs import SearchIndexJob
from recrawl.gui.panel import Panel
from recrawl.gui.search import search_jobs
from recrawl.gui.search.result_delegate import ResultDelegate
from recrawl.gui.search.search_jobs import Answer, Asked, Start
from recrawl.gui.search.search_model import HIT_ROLE, ResultsModel, Span

#: Typing pauses this long (ms) before the query runs.
SEARCH_DELAY_MS = 250
#: While the index is built, the shown query runs again at most this often (ms).
REQUERY_MS = 1500
#: The note the core adds while the index is incomplete: the progress bar says it better.
_INCOMPLETE = "the search index is not complete yet"
ERROR_STYLE = "color: #b00020;"
NOTE_STYLE = "color: #6e7781;"

PLACEHOLDER = 'Search the text of every capture: words, "exact phrases", prefix*, -excluded'
EMPTY_HINT = (
    "<h3>Find any text the archive holds, and when it was there</h3>"
    "<p>Type words to find the pages whose captures have them all, "
    '<b>"an exact phrase"</b> for words in a row, <b>harb*</b> for a word\'s start, '
    "<b>-word</b> to leave out pages that have it. Each page found says when the text "
    "was first seen, last seen and gone, with a timeline of when it was there; open its "
    "captures, or the diff where it appeared or went.</p>"
)
QUERY_TIP = (
    "Words match in any order; quotes match a phrase; a trailing * matches a word's "
    "start; a leading - leaves out pages whose text has that word. Case and accents "
    "don't matter."
)


class SearchPanel(Panel):
    title = "Search"
    key = "search"
    shortcut = "Ctrl+F"

    #: (url, at): the payload of the capture at ``at`` (the Pages panel's content window).
    sig_show_content = Signal(str, object)
    #: (url, at): the capture at ``at``, replayed in the browser.
    sig_open_capture = Signal(str, object)
    #: (url, at, before or None): what changed between the captures at ``before`` and
    #: ``at`` (None: ``at``'s and the one before it), in the diff window.
    sig_compare = Signal(str, object, object)
    #: An answer was shown (tests wait for it).
    sig_shown = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        #: The query asked last, and its number: an answer of an older one is dropped.
        self.asked: Asked | None = None
        self._generation = 0
        #: The answer shown (None: none yet, or the field is empty).
        self.answer: Answer | None = None
        folder = context.project.path
        self.index_job = SearchIndexJob(
            context.project,
            lambda progress, stop: ensure_search_index(folder, progress, stop),
            self,
        )
        #: Whether the index is complete, as last read (None: not read yet).
        self.index_complete: bool | None = None
        self._index_stopped = False
        #: The project's first and latest capture: the timelines' span.
        self.project_span: Span | None = None

        self._build_controls()
        self._build_results()
        self._build_actions()
        layout = QVBoxLayout(self)
        layout.addLayout(self.bar)
        layout.addWidget(self.message)
        layout.addLayout(self.filters)
        layout.addLayout(self.index_row)
        layout.addWidget(self.legend)
        layout.addWidget(self.stack, 1)
        layout.addLayout(self.action_row)
        self._connect()
        self._show_index(None)
        self._say("")
        self._selection_changed()

    # -- building --------------------------------------------------------------------------

    def _build_controls(self) -> None:
        self.query_edit = QLineEdit()
        self.query_edit.setObjectName("search-query")
        self.query_edit.setPlaceholderText(PLACEHOLDER)
        self.query_edit.setToolTip(QUERY_TIP)
        self.query_edit.setClearButtonEnabled(True)
        self.refresh_button = QPushButton("Search again")
        self.refresh_button.setToolTip("Run the query again on the captures there are now")
        self.bar = QHBoxLayout()
        self.bar.addWidget(self.query_edit, 1)
        self.bar.addWidget(self.refresh_button)
        #: The query's error or notes, one line under the field.
        self.message = QLabel("")
        self.message.setObjectName("search-message")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.site = QComboBox()
        self.site.setObjectName("search-site")
        self.site.addItem("All sites", None)
        self.site.setMinimumContentsLength(18)
        self.site.setToolTip("Only the pages of one site")
        month_ago = QDateTime.currentDateTime().addDays(-30)
        self.since_check = QCheckBox("Captured since")
        self.since = self._time_edit(month_ago)
        self.until_check = QCheckBox("until")
        self.until = self._time_edit(QDateTime.currentDateTime())
        self.count_label = QLabel("")
        self.count_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.filters = FlowLayout()
        self.filters.addWidget(self.site)
        self.filters.addSpacing(12)
        self.filters.addWidget(self.since_check)
        self.filters.addWidget(self.since)
        self.filters.addWidget(self.until_check)
        self.filters.addWidget(self.until)
        self.filters.addSpacing(12)
        self.filters.addWidget(self.count_label, 1)

        # the background build of the index: its progress, and a Stop (or Index the rest)
        self.index_label = QLabel("")
        self.index_label.setObjectName("search-index")
        self.index_progress = QProgressBar()
        self.index_progress.setMaximumWidth(240)
        self.index_progress.setTextVisible(False)
        self.index_button = QPushButton("Stop")
        self.index_row = QHBoxLayout()
        self.index_row.addWidget(self.index_label, 1)
        self.index_row.addWidget(self.index_progress)
        self.index_row.addWidget(self.index_button)

    @staticmethod
    def _time_edit(at: QDateTime) -> QDateTimeEdit:
        edit = QDateTimeEdit(at)
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        edit.setToolTip("Local time; only captures made in this time count")
        edit.setEnabled(False)
        return edit

    def _build_results(self) -> None:
        self.model = ResultsModel(self)
        self.delegate = ResultDelegate(self)
        self.results = QListView()
        self.results.setObjectName("search-results")
        self.results.setModel(self.model)
        self.results.setItemDelegate(self.delegate)
        self.results.setUniformItemSizes(True)  # laid out without asking each row
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        # before a query: what to type, in place of an empty list
        self.hint = QLabel(EMPTY_HINT)
        self.hint.setObjectName("search-hint")
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.results)
        self.stack.addWidget(self.hint)
        self.stack.setCurrentWidget(self.hint)
        self.legend = QLabel("")
        self.legend.setObjectName("search-legend")
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet(NOTE_STYLE)

    def _build_actions(self) -> None:
        self.which = QComboBox()
        self.which.setObjectName("search-which")
        self.which.addItem("Last match", "last")
        self.which.addItem("First match", "first")
        self.which.setToolTip("Which of the page's matching captures Show content and Open use")
        self.content_button = QPushButton("Show content")
        self.content_button.setToolTip("The payload of that capture (double-click: the last match)")
        self.capture_button = QPushButton("Open capture in browser")
        self.capture_button.setToolTip(
            "That capture as it looked, served from the project's archive"
        )
        self.appeared_button = QPushButton("Diff where it appeared")
        self.appeared_button.setToolTip(
            "What changed on the page between the capture before the first match and the "
            "first match"
        )
        self.went_button = QPushButton("Diff where it went")
        self.went_button.setToolTip(
            "What changed on the page between the last match and the first capture after "
            "it without the text"
        )
        self.action_row = FlowLayout()
        for widget in (
            self.which,
            self.content_button,
            self.capture_button,
            self.appeared_button,
            self.went_button,
        ):
            self.action_row.addWidget(widget)
        self.action_row.addStretch(1)

    def _connect(self) -> None:
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.run_query)
        self._requery = QTimer(self)
        self._requery.setSingleShot(True)
        self._requery.setInterval(REQUERY_MS)
        self._requery.timeout.connect(self.run_query)
        self.query_edit.textChanged.connect(lambda _: self._timer.start())
        self.query_edit.returnPressed.connect(self.run_query)
        self.refresh_button.clicked.connect(self.refresh)
        self.site.activated.connect(lambda _: self.run_query())
        for check, edit in ((self.since_check, self.since), (self.until_check, self.until)):
            check.toggled.connect(lambda on, e=edit: self._time_toggled(e, on))
            edit.dateTimeChanged.connect(lambda _: self._timer.start())
        self.results.selectionModel().currentRowChanged.connect(
            lambda *_: self._selection_changed()
        )
        self.results.doubleClicked.connect(lambda _: self._show_content("last"))
        # the keyboard: Down from the field to the results, Enter on one shows it
        self.query_edit.installEventFilter(self)
        self.results.installEventFilter(self)
        self.results.customContextMenuRequested.connect(self._menu)
        self.content_button.clicked.connect(lambda: self._show_content(self.which.currentData()))
        self.capture_button.clicked.connect(lambda: self._open_capture(self.which.currentData()))
        self.appeared_button.clicked.connect(self.diff_appeared)
        self.went_button.clicked.connect(self.diff_went)
        self.index_button.clicked.connect(self._index_button_clicked)
        self.index_job.sig_progress.connect(self._indexing)
        self.index_job.sig_finished.connect(self._indexed)
        self.index_job.sig_failed.connect(self._index_failed)
        self.context.changes.sig_pages.connect(self.changed)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if watched is self.query_edit and key == Qt.Key.Key_Down and self.model.rowCount():
                self.results.setFocus(Qt.FocusReason.OtherFocusReason)
                return True
            if watched is self.results and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._show_content(self.which.currentData())
                return True
        return super().eventFilter(watched, event)

    # -- the panel ---------------------------------------------------------------------------

    def query(self) -> None:
        """The sites and the index's state; the shown query again (the store changed)."""
        self.context.jobs.submit(search_jobs.start, self._started)
        if self.query_edit.text().strip():
            self.run_query()

    def reading(self) -> bool:
        # new results would take a reader back to the top of the list (the chosen page
        # stays chosen)
        return self.results.verticalScrollBar().value() > 0

    def show_stale(self, stale: bool) -> None:
        self.refresh_button.setText("Search again (new captures)" if stale else "Search again")

    def shutdown(self) -> None:
        super().shutdown()
        self._timer.stop()
        self._requery.stop()
        self.index_job.stop()
        self.index_job.wait()

    def focus_query(self) -> None:
        """Ctrl+F: the field has the focus, its text selected (typing replaces it)."""
        self.query_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.query_edit.selectAll()

    def _started(self, start: Start) -> None:
        chosen = self.site.currentData()
        self.site.blockSignals(True)
        self.site.clear()
        self.site.addItem("All sites", None)
        for host in start.hosts:
            self.site.addItem(host, host)
        self.site.setCurrentIndex(max(0, self.site.findData(chosen)) if chosen else 0)
        self.site.blockSignals(False)
        self.index_complete = start.complete
        if start.span is not None:
            self.project_span = Span(*start.span)
            for edit, check, at in (
                (self.since, self.since_check, start.span[0]),
                (self.until, self.until_check, start.span[1]),
            ):
                if not check.isChecked():  # the user's own choice stays
                    edit.blockSignals(True)
                    edit.setDateTime(_local(at))
                    edit.blockSignals(False)
        if not start.complete and not self.index_job.busy and not self._index_stopped:
            self.build_index()
        elif not self.index_job.busy:
            self._show_index(None)

    # -- the query ---------------------------------------------------------------------------

    def _time_toggled(self, edit: QDateTimeEdit, on: bool) -> None:
        edit.setEnabled(on)
        self.run_query()

    @staticmethod
    def _utc(edit: QDateTimeEdit) -> datetime:
        seconds = edit.dateTime().toSecsSinceEpoch()  # the edit shows local time
        return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)

    def asking(self) -> Asked:
        """The search the controls say now."""
        return Asked(
            self.query_edit.text().strip(),
            self.site.currentData(),
            self._utc(self.since) if self.since_check.isChecked() else None,
            self._utc(self.until) if self.until_check.isChecked() else None,
        )

    def run_query(self) -> None:
        """Run the search the controls say (on the store thread)."""
        self._timer.stop()
        self._requery.stop()
        self.queried = True
        asked = self.asking()
        self._generation += 1
        generation = self._generation
        self.asked = asked
        if not asked.text:
            self._show(Answer(asked, None))
            return
        self.count_label.setText("Searching…")
        self.context.jobs.submit(
            lambda: search_jobs.search_for(asked, lambda: generation == self._generation),
            lambda answer: self._arrived(generation, answer),
            self._failed,
        )

    def _arrived(self, generation: int, answer: Answer) -> None:
        if generation != self._generation or answer.skipped:
            return  # a newer query was asked meanwhile: its answer is the one wanted
        self._show(answer)

    def _failed(self, message: str) -> None:
        self._say(f"The search failed: {message}", error=True)
        self.count_label.setText("")

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet(ERROR_STYLE if error else NOTE_STYLE)
        self.message.setVisible(bool(text))

    def _show(self, answer: Answer) -> None:
        self.answer = answer
        results = answer.results
        hits = list(results.hits) if results is not None else []
        if answer.error is not None:
            self._say(answer.error, error=True)
        else:
            notes = results.notes if results is not None else ()
            shown = [n for n in notes if not (self.index_job.busy and n.startswith(_INCOMPLETE))]
            line = "; ".join(shown)
            self._say(line[:1].upper() + line[1:])
        self.stack.setCurrentWidget(self.results if answer.asked.text else self.hint)
        span = Span.of_hits(hits, self.project_span)
        self.delegate.span = span
        chosen = self.current_hit()
        self.model.set_rows(hits)
        if hits:  # the page chosen before stays chosen (the same query, searched again)
            urls = [hit.url for hit in hits]
            row = urls.index(chosen.url) if chosen is not None and chosen.url in urls else 0
            self.results.setCurrentIndex(self.model.index(row, 0))
        if not answer.asked.text or results is None:
            self.count_label.setText("")
        elif not hits:
            self.count_label.setText("No page matches")
        else:
            more = " (the best ones)" if len(hits) >= search_jobs.LIMIT else ""
            verb = "matches" if len(hits) == 1 else "match"
            self.count_label.setText(f"{plural(len(hits), 'page')} {verb}{more}")
        self.legend.setText(_legend(span) if span is not None else "")
        self.legend.setVisible(span is not None)
        self._selection_changed()
        self.sig_shown.emit()

    # -- the chosen result -------------------------------------------------------------------

    def current_hit(self) -> SearchHit | None:
        index = self.results.currentIndex()
        hit = index.data(HIT_ROLE) if index.isValid() else None
        return hit if isinstance(hit, SearchHit) else None

    def _selection_changed(self) -> None:
        hit = self.current_hit()
        for widget in (self.which, self.content_button, self.capture_button, self.appeared_button):
            widget.setEnabled(hit is not None)
        self.went_button.setEnabled(hit is not None and hit.gone_at is not None)
        if hit is not None:
            self.which.setItemText(0, f"Last match ({local_time(hit.last_seen)})")
            self.which.setItemText(1, f"First match ({local_time(hit.first_seen)})")
        else:
            self.which.setItemText(0, "Last match")
            self.which.setItemText(1, "First match")

    @staticmethod
    def _at(hit: SearchHit, which: str) -> datetime:
        return hit.first_seen if which == "first" else hit.last_seen

    def _show_content(self, which: str) -> None:
        hit = self.current_hit()
        if hit is not None:
            self.sig_show_content.emit(hit.url, self._at(hit, which))

    def _open_capture(self, which: str) -> None:
        hit = self.current_hit()
        if hit is not None:
            self.sig_open_capture.emit(hit.url, self._at(hit, which))

    def diff_appeared(self) -> None:
        """The capture before the first match against the first match."""
        hit = self.current_hit()
        if hit is not None:
            self.sig_compare.emit(hit.url, hit.first_seen, None)

    def diff_went(self) -> None:
        """The last match against the first capture after it without the text."""
        hit = self.current_hit()
        if hit is not None and hit.gone_at is not None:
            self.sig_compare.emit(hit.url, hit.gone_at, hit.last_seen)

    def _menu(self, at: QPoint) -> None:
        index: QModelIndex = self.results.indexAt(at)
        if not index.isValid():
            return
        self.results.setCurrentIndex(index)
        self.menu = self.make_menu()
        self.menu.popup(self.results.viewport().mapToGlobal(at))

    def make_menu(self) -> QMenu:
        """The chosen result's context menu: its matches' content and replay, its diffs."""
        menu = QMenu(self)
        hit = self.current_hit()
        if hit is None:
            return menu
        first, last = local_time(hit.first_seen), local_time(hit.last_seen)
        for text, slot in (
            (f"Show content of the first match ({first})", lambda: self._show_content("first")),
            (f"Show content of the last match ({last})", lambda: self._show_content("last")),
            (f"Open the first match in browser ({first})", lambda: self._open_capture("first")),
            (f"Open the last match in browser ({last})", lambda: self._open_capture("last")),
        ):
            menu.addAction(text).triggered.connect(slot)
        menu.addSeparator()
        menu.addAction("Diff where it appeared").triggered.connect(self.diff_appeared)
        went = menu.addAction("Diff where it went")
        went.setEnabled(hit.gone_at is not None)
        went.triggered.connect(self.diff_went)
        return menu

    # -- the index's build -------------------------------------------------------------------

    def build_index(self) -> None:
        """Index what the index lacks, in the background (Stop keeps what is done)."""
        if self.index_job.busy:
            return
        self._index_stopped = False
        self.index_job.start()
        self._show_index((0, 0))

    def _index_button_clicked(self) -> None:
        if self.index_job.busy:
            self._index_stopped = True
            self.index_job.stop()
            self.index_button.setEnabled(False)
            self.index_label.setText("Stopping after the batch in hand…")
        else:
            self.build_index()

    def _indexing(self, done: int, total: int) -> None:
        self._show_index((done, total))
        if self.asked is not None and self.asked.text and not self._requery.isActive():
            self._requery.start()  # the newly indexed texts join the results

    def _show_index(self, progress: tuple[int, int] | None) -> None:
        """The build's row: its progress, or (None) hidden while nothing is to build."""
        building = progress is not None
        for widget in (self.index_label, self.index_progress, self.index_button):
            widget.setVisible(building)
        if progress is None:
            return
        done, total = progress
        self.index_button.setText("Stop")
        self.index_button.setEnabled(True)
        self.index_progress.setVisible(True)
        self.index_progress.setRange(0, max(total, 1) if total else 0)  # 0, 0: busy
        self.index_progress.setValue(min(done, total))
        self.index_label.setText(
            f"Indexing {done:,} of {plural(total, 'page version')}…"
            if total
            else "Indexing: counting the page versions to index…"
        )

    def _indexed(self, report: BuildReport) -> None:
        if report.stopped or self._index_stopped:
            self.index_complete = False
            self.index_progress.setVisible(False)
            self.index_label.setText(
                f"Indexing stopped at {report.done:,} of {plural(report.total, 'page version')}: "
                "results come from what is indexed so far."
            )
            self.index_button.setText("Index the rest")
            self.index_button.setEnabled(True)
        else:
            self.index_complete = True
            self._show_index(None)
        if report.unreadable:  # a WARC missing or damaged: said once, the rest is searched
            self.context.changes.sig_status.emit(
                f"Search: {plural(report.unreadable, 'page version')} could not be read from "
                "the archive and are not indexed"
            )
        if self.asked is not None and self.asked.text:
            self.run_query()

    def _index_failed(self, message: str) -> None:
        self.index_progress.setVisible(False)
        self.index_label.setText(f"Indexing failed: {message}")
        self.index_button.setText("Try again")
        self.index_button.setEnabled(True)


def _legend(span: Span) -> str:
    return (
        f"Timelines {local_time(span.start)} → {local_time(span.end)} (local time). Dark: "
        "the text was there; light: it went between two captures; red: gone."
    )


def _local(at: datetime) -> QDateTime:
    """A stored (naive UTC) time for a date edit, which shows local time."""
    return QDateTime.fromSecsSinceEpoch(int(at.replace(tzinfo=UTC).timestamp()))
