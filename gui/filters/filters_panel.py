"""The Filters panel (docs/design.md §6, §9): edit, check, preview and apply the URL filter chain.

The panel is the controller: it owns the draft and wires its views to the core through
the job threads (:mod:`recrawl.gui.filters.filter_jobs`). The views hold the layout: the chain
editor (:mod:`~recrawl.gui.filters.filter_editor`), and the tabs below it — the rule checker
(:mod:`~recrawl.gui.filters.filter_checker`), the preview (:mod:`~recrawl.gui.filters.filter_preview`),
lint (:mod:`~recrawl.gui.filters.filter_lint`), "why not crawled?"
(:mod:`~recrawl.gui.filters.filter_why`) and the chain's embed rules, read-only
(:mod:`~recrawl.gui.filters.filter_embeds`).

The editor works on a draft (:mod:`recrawl.gui.filters.filter_draft`); every edit is validated at
once by the core's own loader, so a bad pattern is marked with its reason and the draft
cannot be applied. The rule checker runs the draft on typed URLs; the preview runs it
over the project's known URLs on the compute thread; Apply saves it with
``choices.apply_chain`` on the compute thread (it judges every known page, with its
progress shown here: docs/design.md §10) and tells the other panels.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.filters.nutch import Exported
from recrawl.core.policy.filter_reach import Reach
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.context import AppContext
from recrawl.gui.filters import filter_jobs
from recrawl.gui.filters.filter_checker import RuleChecker
from recrawl.gui.filters.filter_draft import ChainDraft, Validation
from recrawl.gui.filters.filter_editor import ChainEditor
from recrawl.gui.filters.filter_embeds import EmbedRulesView
from recrawl.gui.filters.filter_lint import LintList
from recrawl.gui.filters.filter_models import ChainModel, RulesModel
from recrawl.gui.filters.filter_preview import PreviewTab
from recrawl.gui.filters.filter_why import WhyNotCrawled
from recrawl.gui.panel import Panel

PREVIEW_DELAY_MS = 500  # a preview runs once typing pauses, not at every key
LINT_TAB = 2
EMBEDS_TAB = 4


class FiltersPanel(Panel):
    title = "Filters"
    key = "filters"

    sig_validated = Signal()  # after every edit (Signal(bool) leaks refs to True in PySide 6.12)
    sig_previewed = Signal(dict)
    sig_applied = Signal()
    sig_loaded = Signal()
    #: Apply's progress, emitted on the compute thread: (pages judged, of how many).
    sig_apply_progress = Signal(int, int)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        #: The stored chain the editor started from (Apply refuses if it moved on).
        self._base_text: str | None = None
        self.saved = ChainDraft()  # the applied chain, as last loaded or applied
        self.draft = ChainDraft()
        self.validation: Validation = self.draft.validate()
        self.loaded = False
        self._preview_ticket = 0
        #: What the last Apply did to the known pages (None before one).
        self.last_applied: Reach | None = None
        #: An Apply is running (on the compute thread).
        self.applying = False

        self.chain_model = ChainModel(self.draft, self)
        self.rules_model = RulesModel(self)
        self.preview_timer = QTimer(self)
        self.preview_timer.setSingleShot(True)
        self.preview_timer.setInterval(PREVIEW_DELAY_MS)
        self.preview_timer.timeout.connect(self.run_preview)

        layout = QVBoxLayout(self)
        layout.addLayout(self._build_header())
        self.error_label = QLabel()
        self.error_label.setObjectName("chain-error")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c62828; font-weight: bold")
        self.error_label.hide()
        layout.addWidget(self.error_label)
        split = QSplitter(Qt.Orientation.Vertical)
        self.editor = ChainEditor(self.chain_model, self.rules_model)
        split.addWidget(self.editor)
        split.addWidget(self._build_tabs())
        split.setSizes([380, 320])
        layout.addWidget(split, 1)

        self.editor.sig_edited.connect(self._edited)
        self.sig_apply_progress.connect(self._apply_progress)
        self.context.changes.sig_policy.connect(self._policy_changed)
        self.context.changes.sig_pages.connect(self._pages_changed)

    # -- layout --------------------------------------------------------------------------

    def _build_header(self) -> FlowLayout:
        row = FlowLayout()  # wraps in a narrow window
        self.status = QLabel("Loading the chain…")
        self.status.setObjectName("chain-status")
        self.status.setWordWrap(True)
        self.apply_progress = QProgressBar()
        self.apply_progress.setObjectName("apply-progress")
        self.apply_progress.setFormat("%v of %m pages")
        self.apply_progress.setMaximumWidth(260)
        self.apply_progress.hide()
        self.import_button = QPushButton("Import Nutch folder…")
        self.import_button.setToolTip(
            "Fill the editor with the *-urlfilter.txt files of a Nutch conf folder"
        )
        self.export_button = QPushButton("Export Nutch files…")
        self.export_button.setToolTip("Write the edited chain's enabled filters as Nutch files")
        self.revert_button = QPushButton("Revert")
        self.revert_button.setToolTip("Drop the edits: back to the applied chain")
        self.apply_button = QPushButton("Apply")
        self.apply_button.setObjectName("apply-chain")
        self.apply_button.setToolTip("Make the edited chain the project's chain")
        self.import_button.clicked.connect(self._import_clicked)
        self.export_button.clicked.connect(self._export_clicked)
        self.revert_button.clicked.connect(self.revert)
        self.apply_button.clicked.connect(self.apply)
        row.addWidget(self.status, 1)
        row.addWidget(self.apply_progress)
        for button in (
            self.import_button,
            self.export_button,
            self.revert_button,
            self.apply_button,
        ):
            row.addWidget(button)
        return row

    def _build_tabs(self) -> QTabWidget:
        self.tabs = QTabWidget()
        self.checker = RuleChecker()
        self.preview = PreviewTab()
        self.preview.button.clicked.connect(self.run_preview)
        self.lint = LintList()
        self.lint.sig_chosen.connect(self.editor.select_line)
        self.why = WhyNotCrawled(
            self.context.jobs,
            lambda: self.validation.chain,
            self.saved_line_text,
            self.checker.set_urls,
        )
        self.why.sig_status.connect(self.context.changes.sig_status)
        self.tabs.addTab(self.checker, "Check URLs")
        self.tabs.addTab(self.preview, "Preview")
        self.tabs.addTab(self.lint, "Lint")
        self.tabs.addTab(self.why, "Why not crawled?")
        self.embed_rules = EmbedRulesView()
        self.tabs.addTab(self.embed_rules, "Embed rules")
        return self.tabs

    # -- loading -------------------------------------------------------------------------

    def activate(self) -> None:
        if not self.loaded or not self.dirty:
            self.load()
        self.load_rejected()

    def load(self) -> None:
        self.context.jobs.submit(filter_jobs.load, self._loaded, self._load_failed)

    def _loaded(self, text: str) -> None:
        self._base_text = text
        try:
            self.saved = ChainDraft.from_toml(text)
        except Exception as exc:  # a stored chain always loads; say so if it did not
            self._load_failed(str(exc))
            return
        draft = ChainDraft.from_toml(text)
        if self.loaded and draft.same_as(self.draft):
            self._update_state()  # e.g. our own Apply coming back: keep the selection
        else:
            self.loaded = True
            self.set_draft(draft, self.editor.current_filter() or 0)
        self.sig_loaded.emit()

    def _load_failed(self, message: str) -> None:
        self.status.setText(f"Could not read the project's chain: {message}")

    def load_rejected(self) -> None:
        self.why.load()

    def _policy_changed(self) -> None:
        # another panel (or inject) changed the chain: follow it unless the user is editing
        if self.loaded and not self.dirty:
            self.load()

    def _pages_changed(self) -> None:
        if self.isVisible():
            self.load_rejected()

    def set_draft(self, draft: ChainDraft, select: int = 0) -> None:
        self.draft = draft
        self.chain_model.set_draft(draft)
        self._edited()
        self.editor.select_near(select)

    @property
    def dirty(self) -> bool:
        return not self.draft.same_as(self.saved)

    def saved_line_text(self, name: str, line: int | None) -> str | None:
        """Rule ``line`` of the applied chain's filter ``name`` (what a record refers to)."""
        return self.saved.line_text(name, line)

    # -- validation ----------------------------------------------------------------------

    def _edited(self) -> None:
        self.validation = self.draft.validate()
        self.editor.show_problems(self.validation)
        if self.validation.ok:
            self.error_label.hide()
        else:
            self.error_label.setText(
                f"{self.validation.message}. The chain cannot be applied until this is fixed."
            )
            self.error_label.show()
        self.lint.show_validation(self.validation)
        warnings = len(self.validation.warnings)
        self.tabs.setTabText(LINT_TAB, f"Lint ({warnings})" if warnings else "Lint")
        rules = len(self.draft.embeds)
        self.embed_rules.show_rules(self.draft.embeds_toml())
        self.tabs.setTabText(EMBEDS_TAB, f"Embed rules ({rules})" if rules else "Embed rules")
        self.checker.set_chain(self.validation.chain)
        self._update_state()
        self.preview_timer.start()
        self.sig_validated.emit()

    def _update_state(self) -> None:
        count = len(self.draft.filters)
        what = f"{count} filter{'s' * (count != 1)}"
        if not self.loaded:
            text = "Loading the chain…"
        elif not self.validation.ok:
            text = f"{what}, edited: fix the error before applying."
        elif self.dirty:
            text = f"{what}, edited (not applied yet): check the preview, then Apply."
        else:
            text = f"{what}: the project's chain, as applied."
        self.status.setText(text)
        self.apply_button.setEnabled(
            self.loaded and self.validation.ok and self.dirty and not self.applying
        )
        self.revert_button.setEnabled(self.loaded and self.dirty)
        self.export_button.setEnabled(self.validation.ok and count > 0)

    # -- preview and apply ---------------------------------------------------------------

    def run_preview(self) -> None:
        self.preview_timer.stop()
        if not self.loaded:
            return
        if not self.validation.ok:
            self.preview.show_invalid()
            return
        if not self.dirty:
            self.preview.show_no_edit()
            return
        text = self.draft.to_toml()
        self._preview_ticket += 1
        ticket = self._preview_ticket
        self.preview.show_running()
        self.context.jobs.compute(  # every known URL: off the store lane
            lambda: filter_jobs.preview_edit(text),
            lambda result: self._previewed(ticket, result),
            self.preview.show_failed,
        )

    def _previewed(self, ticket: int, result: dict[str, Any]) -> None:
        if ticket != self._preview_ticket:
            return  # an older edit's preview
        self.preview.show_result(result)
        self.sig_previewed.emit(result)

    def apply(self) -> None:
        if not (self.validation.ok and self.dirty) or self.applying:
            return
        text = self.draft.to_toml()
        applied = ChainDraft.from_toml(text)
        base, services = self._base_text, self.context.services
        progress = self.sig_apply_progress.emit  # queued to this thread
        self.applying = True
        self.apply_progress.setRange(0, 0)
        self.apply_progress.show()
        self.apply_button.setEnabled(False)
        self.status.setText("Applying the chain to the known pages…")
        self.context.jobs.compute(  # every known page: off the store lane
            lambda: filter_jobs.apply(services, text, base, progress),
            lambda result: self._applied(applied, result),
            self._apply_failed,
        )

    def _apply_progress(self, done: int, total: int) -> None:
        if not self.applying:
            return
        self.apply_progress.setRange(0, max(total, 1))
        self.apply_progress.setValue(done)
        if done >= total:
            self.status.setText("Saving the chain and the filtered pages…")
        else:
            self.status.setText(f"Applying the chain to the known pages: {done:,} of {total:,}…")

    def _apply_failed(self, message: str) -> None:
        self.applying = False
        self.apply_progress.hide()
        self._update_state()  # Apply is possible again...
        self.status.setText(f"Not applied: {message}")  # ...and this says why it failed

    def _applied(self, applied: ChainDraft, result: filter_jobs.Applied) -> None:
        self.applying = False
        self.apply_progress.hide()
        self._base_text = result.stored
        self.saved = applied
        self._update_state()
        self.run_preview()
        self.last_applied = result.reach
        self.context.changes.sig_status.emit(
            f"Filter chain applied: {result.filters} filters; {result.reach.describe()}"
        )
        self.sig_applied.emit()
        self.context.changes.sig_policy.emit()
        if result.reach.filtered or result.reach.back:
            self.context.changes.sig_pages.emit()

    def revert(self) -> None:
        self.set_draft(self.saved.copy(), self.editor.current_filter() or 0)

    # -- Nutch files ---------------------------------------------------------------------

    def _import_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A Nutch conf folder")
        if folder:
            self.import_nutch_folder(folder)

    def import_nutch_folder(self, folder: str) -> None:
        """Fill the editor with a Nutch conf folder's filters (applied only on Apply)."""
        self.context.jobs.submit(
            lambda: filter_jobs.import_folder(folder),
            lambda text: self._imported(folder, text),
            lambda message: self.status.setText(f"Not imported: {message}"),
        )

    def _imported(self, folder: str, text: str) -> None:
        self.set_draft(ChainDraft.from_toml(text))
        names = ", ".join(f"{f.name} ({f.kind})" for f in self.draft.filters)
        self.context.changes.sig_status.emit(
            f"Imported from {folder}: {names}. Check the preview, then Apply."
        )

    def _export_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for the Nutch filter files")
        if folder:
            self.export_nutch_folder(folder)

    def export_nutch_folder(self, folder: str) -> None:
        if not self.validation.ok:
            return
        text = self.draft.to_toml()
        self.context.jobs.submit(
            lambda: filter_jobs.export_folder(text, folder),
            self._exported,
            lambda message: self.status.setText(f"Not exported: {message}"),
        )

    def _exported(self, written: list[Exported]) -> None:
        files = [e.path.name for e in written if e.path is not None]
        skipped = [e.name for e in written if e.path is None]
        text = f"Exported {len(files)} Nutch files: {', '.join(files)}"
        if skipped:
            text += f" (disabled, not written: {', '.join(skipped)})"
        self.context.changes.sig_status.emit(text)

    def shutdown(self) -> None:
        self.preview_timer.stop()
