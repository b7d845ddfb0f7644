"""The Filters panel (DESIGN.md §6, §9): edit, check, preview and apply the URL filter chain.

The editor works on a draft (:mod:`recrawl.gui.filter_draft`); every edit is validated at once
by the core's own loader, so a bad pattern is marked with its reason and the draft
cannot be applied. The rule checker runs the draft on typed URLs; the preview runs it
over the project's known URLs on the store thread; Apply saves it with
``choices.set_chain`` on the store thread and tells the other panels.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import parse_chain
from recrawl.core.filters.kinds import KINDS
from recrawl.core.filters.nutch import export_nutch, import_nutch
from recrawl.core.policy import choices
from recrawl.core.policy.filter_impact import known_urls, preview
from recrawl.gui.context import AppContext
from recrawl.gui.filter_checker import RuleChecker
from recrawl.gui.filter_draft import ChainDraft, Validation, new_filter
from recrawl.gui.filter_models import ChainModel, RulesModel
from recrawl.gui.filter_why import WhyNotCrawled
from recrawl.gui.panel import Panel

KIND_HINTS = {
    "prefix": "One URL prefix per line (SHORTCIRCUIT: marks one). The longest matching "
    "prefix decides; a URL no prefix matches is rejected.",
    "suffix": "An optional mode line: - (listed suffixes accepted, others rejected; the "
    "default) or + (listed suffixes rejected), with I (any case) and/or P (path only). "
    "Then one suffix per line; the longest match decides.",
    "regex": "+pattern accepts, -pattern rejects, +SHORTCIRCUIT:pattern accepts and ends "
    "the chain. Tried in order; the first pattern found anywhere in the URL decides; no "
    "match rejects. RE2 syntax.",
    "automaton": "As regex, but a pattern must match the whole URL: +pattern, -pattern, "
    "+SHORTCIRCUIT:pattern, tried in order; no match rejects.",
    "domain": "One host, domain or suffix per line (SHORTCIRCUIT: marks one); the longest "
    "match decides; no match rejects (an empty list accepts every URL).",
    "domain-deny": "One host, domain or suffix per line: a URL on a listed one is rejected.",
}

PREVIEW_DELAY_MS = 500  # a preview runs once typing pauses, not at every key


def _preview_job(text: str) -> dict:
    urls = known_urls()
    result = preview(choices.project_chain(), parse_chain(text), urls)
    return {**result, "known": len(urls)}


def _export_job(text: str, folder: str) -> list[tuple[int, str, str | None]]:
    written = export_nutch(parse_chain(text), Path(folder))
    return [(e.index, e.name, str(e.path) if e.path else None) for e in written]


def _apply_job(text: str, base: str | None) -> tuple[int, str]:
    """Apply ``text`` unless the stored chain moved on since the editor loaded ``base``."""
    if base is not None and choices.chain_text() != base:
        # e.g. new seeds added their hosts to the scope filter: writing the old draft
        # back would silently take them out again
        raise InvalidArgument(
            "the project's chain changed since it was loaded (adding seeds adds their hosts "
            "to the scope filter); Revert to see it, then make your edit again"
        )
    count = len(choices.set_chain(text).filters)
    return count, choices.chain_text()


class FiltersPanel(Panel):
    title = "Filters"
    key = "filters"

    sig_validated = Signal()  # after every edit (Signal(bool) leaks refs to True in PySide 6.12)
    sig_previewed = Signal(dict)
    sig_applied = Signal()
    sig_loaded = Signal()
    sig_rejected_loaded = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        #: The stored chain the editor started from (Apply refuses if it moved on).
        self._base_text: str | None = None
        self.saved = ChainDraft()  # the applied chain, as last loaded or applied
        self.draft = ChainDraft()
        self.validation: Validation = self.draft.validate()
        self.loaded = False
        self.last_preview: dict | None = None
        self._preview_ticket = 0

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
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self._build_chain_box())
        top.addWidget(self._build_filter_box())
        top.setStretchFactor(1, 1)
        top.setSizes([300, 700])
        split.addWidget(top)
        split.addWidget(self._build_tabs())
        split.setSizes([380, 320])
        layout.addWidget(split, 1)

        self.chain_model.sig_edited.connect(self._edited)
        self.rules_model.sig_edited.connect(self._edited)
        self.context.changes.sig_policy.connect(self._policy_changed)
        self.context.changes.sig_pages.connect(self._pages_changed)
        self._select_filter(None)

    # -- layout --------------------------------------------------------------------------

    def _build_header(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.status = QLabel("Loading the chain…")
        self.status.setObjectName("chain-status")
        self.status.setWordWrap(True)
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
        for button in (
            self.import_button,
            self.export_button,
            self.revert_button,
            self.apply_button,
        ):
            row.addWidget(button)
        return row

    def _build_chain_box(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Filters, run top to bottom. Drag to reorder; untick to disable.")
        label.setWordWrap(True)
        self.chain_view = QListView()
        self.chain_view.setObjectName("chain-view")
        self.chain_view.setModel(self.chain_model)
        self.chain_view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.chain_view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.chain_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.chain_view.selectionModel().currentRowChanged.connect(self._filter_selected)
        buttons = QHBoxLayout()
        self.add_filter_button = QToolButton()
        self.add_filter_button.setText("Add filter")
        self.add_filter_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_filter_button)
        for kind in KINDS:
            menu.addAction(kind, lambda _=False, k=kind: self.add_filter(k))
        self.add_filter_button.setMenu(menu)
        self.remove_filter_button = QPushButton("Remove")
        self.up_button = QPushButton("Up")
        self.down_button = QPushButton("Down")
        self.up_button.setToolTip("Run this filter earlier")
        self.down_button.setToolTip("Run this filter later")
        self.remove_filter_button.clicked.connect(self.remove_filter)
        self.up_button.clicked.connect(lambda: self.move_filter(-1))
        self.down_button.clicked.connect(lambda: self.move_filter(+1))
        buttons.addWidget(self.add_filter_button)
        buttons.addWidget(self.remove_filter_button)
        buttons.addWidget(self.up_button)
        buttons.addWidget(self.down_button)
        layout.addWidget(label)
        layout.addWidget(self.chain_view, 1)
        layout.addLayout(buttons)
        return box

    def _build_filter_box(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(QLabel("Name:"))
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("filter-name")
        self.name_edit.textEdited.connect(self._rename)
        head.addWidget(self.name_edit, 1)
        self.kind_label = QLabel()
        head.addWidget(self.kind_label)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: palette(mid)")
        self.rules_view = QTableView()
        self.rules_view.setObjectName("rules-view")
        self.rules_view.setModel(self.rules_model)
        self.rules_view.verticalHeader().hide()
        self.rules_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.rules_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.rules_view.horizontalHeader()
        header.setSectionResizeMode(RulesModel.LINE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(RulesModel.SHORT, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(RulesModel.RULE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(RulesModel.PROBLEM, QHeaderView.ResizeMode.Stretch)
        adder = QHBoxLayout()
        self.new_rule = QLineEdit()
        self.new_rule.setObjectName("new-rule")
        self.new_rule.setPlaceholderText("A new rule, in this filter's syntax (Enter adds it)")
        self.new_rule.returnPressed.connect(self._add_rule)
        self.add_rule_button = QPushButton("Add rule")
        self.add_rule_button.clicked.connect(self._add_rule)
        self.remove_rule_button = QPushButton("Remove rule")
        self.remove_rule_button.clicked.connect(self._remove_rule)
        adder.addWidget(self.new_rule, 1)
        adder.addWidget(self.add_rule_button)
        adder.addWidget(self.remove_rule_button)
        layout.addLayout(head)
        layout.addWidget(self.hint)
        layout.addWidget(self.rules_view, 1)
        layout.addLayout(adder)
        return box

    def _build_tabs(self) -> QTabWidget:
        self.tabs = QTabWidget()
        self.checker = RuleChecker()
        self.tabs.addTab(self.checker, "Check URLs")
        self.tabs.addTab(self._build_preview_tab(), "Preview")
        self.lint_list = QListWidget()
        self.lint_list.setObjectName("lint-list")
        self.lint_list.itemActivated.connect(self._lint_activated)
        self.tabs.addTab(self.lint_list, "Lint")
        self.tabs.addTab(self._build_why_tab(), "Why not crawled?")
        return self.tabs

    def _build_preview_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        row = QHBoxLayout()
        self.preview_label = QLabel()
        self.preview_label.setObjectName("preview-summary")
        self.preview_label.setWordWrap(True)
        self.preview_button = QPushButton("Preview now")
        self.preview_button.clicked.connect(self.run_preview)
        row.addWidget(self.preview_label, 1)
        row.addWidget(self.preview_button)
        lists = QHBoxLayout()
        self.rejected_examples = QListWidget()
        self.accepted_examples = QListWidget()
        for title, widget in (
            ("Newly rejected (examples)", self.rejected_examples),
            ("Newly accepted (examples)", self.accepted_examples),
        ):
            column = QVBoxLayout()
            column.addWidget(QLabel(title))
            column.addWidget(widget)
            lists.addLayout(column)
        layout.addLayout(row)
        layout.addLayout(lists, 1)
        return tab

    def _build_why_tab(self) -> QWidget:
        self.why = WhyNotCrawled(
            self.context.jobs,
            lambda: self.validation.chain,
            self._rule_text,
            self.checker.set_urls,
        )
        self.why.sig_loaded.connect(self.sig_rejected_loaded)
        self.why.sig_status.connect(self.context.changes.sig_status)
        # the tab's parts, under the names the panel has always had
        self.why_edit, self.why_answer = self.why.edit, self.why.answer
        self.rejected_model, self.rejected_view = self.why.model, self.why.view
        return self.why

    # -- loading -------------------------------------------------------------------------

    def activate(self) -> None:
        if not self.loaded or not self.dirty:
            self.load()
        self.load_rejected()

    def load(self) -> None:
        self.context.jobs.submit(choices.chain_text, self._loaded, self._load_failed)

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
            self.set_draft(draft, self.current_filter() or 0)
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
        if draft.filters:
            self.select_filter(min(select, len(draft.filters) - 1))
        else:
            self._select_filter(None)

    # -- the chain's filters -------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        return not self.draft.same_as(self.saved)

    def current_filter(self) -> int | None:
        index = self.chain_view.currentIndex()
        return index.row() if index.isValid() else None

    def select_filter(self, row: int) -> None:
        self.chain_view.selectionModel().setCurrentIndex(
            self.chain_model.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self._select_filter(row)

    def _select_filter(self, row: int | None) -> None:
        has = row is not None and 0 <= row < len(self.draft.filters)
        flt = self.draft.filters[row] if has and row is not None else None
        self.rules_model.set_filter(flt)
        for widget in (
            self.name_edit,
            self.new_rule,
            self.add_rule_button,
            self.remove_rule_button,
            self.remove_filter_button,
            self.up_button,
            self.down_button,
        ):
            widget.setEnabled(flt is not None)
        if flt is None:
            self.name_edit.clear()
            self.kind_label.setText("")
            self.hint.setText(
                "The chain has no filters: every URL is accepted. Add a filter, or import "
                "a Nutch conf folder."
                if not self.draft.filters
                else "Select a filter to edit its rules."
            )
            return
        self.name_edit.setText(flt.name)
        self.kind_label.setText(f"kind: {flt.kind}")
        self.hint.setText(KIND_HINTS[flt.kind])
        self._show_problems()

    def _filter_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._select_filter(current.row() if current.isValid() else None)

    def add_filter(self, kind: str) -> None:
        row = self.current_filter()
        row = len(self.draft.filters) if row is None else row + 1
        self.chain_model.insert(row, new_filter(kind, [f.name for f in self.draft.filters]))
        self.select_filter(row)
        self.new_rule.setFocus()

    def remove_filter(self) -> None:
        row = self.current_filter()
        if row is None:
            return
        self.chain_model.remove(row)
        if self.draft.filters:
            self.select_filter(min(row, len(self.draft.filters) - 1))
        else:
            self._select_filter(None)

    def move_filter(self, delta: int) -> None:
        row = self.current_filter()
        if row is not None and self.chain_model.move(row, row + delta):
            self.select_filter(row + delta)

    def _rename(self, text: str) -> None:
        row = self.current_filter()
        if row is None:
            return
        self.draft.filters[row].name = text.strip() or self.draft.filters[row].kind
        index = self.chain_model.index(row)
        self.chain_model.dataChanged.emit(index, index)
        self._edited()

    # -- rules ---------------------------------------------------------------------------

    def _add_rule(self) -> None:
        text = self.new_rule.text().strip()
        if not text or self.rules_model.flt is None:
            return
        row = self.rules_model.add_rule(text)
        self.new_rule.clear()
        self.rules_view.scrollTo(self.rules_model.index(row, RulesModel.RULE))

    def _remove_rule(self) -> None:
        index = self.rules_view.currentIndex()
        if index.isValid():
            self.rules_model.remove_rule(index.row())

    # -- validation, lint, checker --------------------------------------------------------

    def _edited(self) -> None:
        self.validation = self.draft.validate()
        self.chain_model.set_errors(self.validation.errors)
        self._show_problems()
        if self.validation.ok:
            self.error_label.hide()
        else:
            self.error_label.setText(
                f"{self.validation.message}. The chain cannot be applied until this is fixed."
            )
            self.error_label.show()
        self._show_lint()
        self.checker.set_chain(self.validation.chain)
        self._update_state()
        self.last_preview = None
        self.preview_timer.start()
        self.sig_validated.emit()

    def _show_problems(self) -> None:
        row = self.current_filter()
        if row is None:
            return
        warnings = [w for w in self.validation.warnings if w.filter == row]
        self.rules_model.set_problems(self.validation.errors.get(row, {}), warnings)

    def _show_lint(self) -> None:
        self.lint_list.clear()
        warnings = self.validation.warnings
        for warning in warnings:
            item = QListWidgetItem(str(warning))
            item.setData(Qt.ItemDataRole.UserRole, (warning.filter, warning.line))
            self.lint_list.addItem(item)
        if not warnings and self.validation.ok:
            self.lint_list.addItem("No warnings: every rule can decide something.")
        self.tabs.setTabText(2, f"Lint ({len(warnings)})" if warnings else "Lint")

    def _lint_activated(self, item: QListWidgetItem) -> None:
        where = item.data(Qt.ItemDataRole.UserRole)
        if not where:
            return
        index, line = where
        self.select_filter(index)
        row = self.rules_model.row_of(line) if line is not None else None
        if row is not None:
            self.rules_view.selectRow(row)

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
        self.apply_button.setEnabled(self.loaded and self.validation.ok and self.dirty)
        self.revert_button.setEnabled(self.loaded and self.dirty)
        self.export_button.setEnabled(self.validation.ok and count > 0)

    # -- preview and apply ---------------------------------------------------------------

    def run_preview(self) -> None:
        self.preview_timer.stop()
        if not self.loaded:
            return
        if not self.validation.ok:
            self.preview_label.setText("The edited chain has an error: no preview until it loads.")
            return
        if not self.dirty:
            self._clear_examples()
            self.preview_label.setText(
                "No edit to preview: the editor shows the applied chain. Edit it to see "
                "which known URLs the change would newly reject or accept."
            )
            return
        text = self.draft.to_toml()
        self._preview_ticket += 1
        ticket = self._preview_ticket
        self.preview_label.setText("Previewing over the project's known URLs…")
        self.context.jobs.compute(  # every known URL: off the store lane
            lambda: _preview_job(text),
            lambda result: self._previewed(ticket, result),
            lambda message: self.preview_label.setText(f"Preview failed: {message}"),
        )

    def _previewed(self, ticket: int, result: dict) -> None:
        if ticket != self._preview_ticket:
            return  # an older edit's preview
        self.last_preview = result
        self._clear_examples()
        if result["known"] == 0:
            self.preview_label.setText(
                "The project knows no URLs yet: inject seeds and crawl, and the preview "
                "will show what an edit changes for them."
            )
        else:
            self.preview_label.setText(
                f"Over the {result['known']} URLs the project knows: "
                f"{result['newly_rejected']} newly rejected, "
                f"{result['newly_accepted']} newly accepted."
            )
        self.rejected_examples.addItems(result["examples"]["newly_rejected"])
        self.accepted_examples.addItems(result["examples"]["newly_accepted"])
        self.sig_previewed.emit(result)

    def _clear_examples(self) -> None:
        self.rejected_examples.clear()
        self.accepted_examples.clear()

    def apply(self) -> None:
        if not (self.validation.ok and self.dirty):
            return
        text = self.draft.to_toml()
        applied = ChainDraft.from_toml(text)
        self.apply_button.setEnabled(False)
        base = self._base_text
        self.context.jobs.submit(
            lambda: _apply_job(text, base),
            lambda result: self._applied(applied, *result),
            self._apply_failed,
        )

    def _apply_failed(self, message: str) -> None:
        self._update_state()  # Apply is possible again...
        self.status.setText(f"Not applied: {message}")  # ...and this says why it failed

    def _applied(self, applied: ChainDraft, count: int, stored: str) -> None:
        self._base_text = stored
        self.saved = applied
        self._update_state()
        self.run_preview()
        self.context.changes.sig_status.emit(f"Filter chain applied: {count} filters")
        self.sig_applied.emit()
        self.context.changes.sig_policy.emit()

    def revert(self) -> None:
        row = self.current_filter() or 0
        self.set_draft(ChainDraft([type(f)(**vars(f)) for f in self.saved.filters]), row)

    # -- Nutch files ---------------------------------------------------------------------

    def _import_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A Nutch conf folder")
        if folder:
            self.import_nutch_folder(folder)

    def import_nutch_folder(self, folder: str) -> None:
        """Fill the editor with a Nutch conf folder's filters (applied only on Apply)."""
        self.context.jobs.submit(
            lambda: import_nutch(Path(folder)),
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
            lambda: _export_job(text, folder),
            self._exported,
            lambda message: self.status.setText(f"Not exported: {message}"),
        )

    def _exported(self, written: list[tuple[int, str, str | None]]) -> None:
        files = [Path(path).name for _, _, path in written if path]
        skipped = [name for _, name, path in written if path is None]
        text = f"Exported {len(files)} Nutch files: {', '.join(files)}"
        if skipped:
            text += f" (disabled, not written: {', '.join(skipped)})"
        self.context.changes.sig_status.emit(text)

    # -- why was this URL not crawled? ---------------------------------------------------

    def explain_url(self, text: str) -> None:
        self.why.explain(text)

    def _rule_text(self, name: str, line: int | None) -> str | None:
        if line is None:
            return None
        flt = next((f for f in self.saved.filters if f.name == name), None)
        if flt is None:
            return None
        lines = flt.lines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else None

    def shutdown(self) -> None:
        self.preview_timer.stop()
