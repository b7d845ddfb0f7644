"""The Change rules editor (docs/design.md §17): what counts as a change, per URL prefix.

The project's rules on the left (:class:`~recrawl.gui.changes.change_models.RulesModel`);
on the right the one being edited: its prefix, the CSS selectors removed before the
signature reads a page or the only ones it reads, the text patterns taken out, whether
only added text counts, whether its news is sent. Preview tries the form's rule on the
matching pages' own history (:class:`~recrawl.gui.jobs.long_jobs.ChangePreviewJob`) and
says how many past fetches it would have judged otherwise, with examples whose two
captures open in a diff window (:attr:`ChangeRulesDialog.sig_open_diff`). Save keeps the
rule and re-signs its pages in the background, Delete drops it
(:class:`~recrawl.gui.jobs.long_jobs.ChangeRuleJob`), both with a progress bar and a Stop.
A bad selector or pattern: the core's one line under the form, and nothing saved.

Not modal: the diff windows it opens stay usable beside it. It is reached from the
Sites panel (a site's prefix filled in) and from a diff's "Ignore this text…" (the
rule that applies to the page, else its host, with the text as ignore patterns).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.engine.change_preview import Preview, PreviewExample, PreviewProgress
from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules
from recrawl.gui.changes.change_models import ExamplesModel, RulesModel
from recrawl.gui.changes.rule_text import (
    host_prefix,
    ignore_patterns,
    preview_progress_text,
    preview_text,
    re_signing_text,
    rule_from_form,
)
from recrawl.gui.common.tables import compact_rows
from recrawl.gui.context import AppContext
from recrawl.gui.jobs.long_jobs import ChangePreviewJob, ChangeRuleJob

ERROR_STYLE = "color: #c62828;"


class ChangeRulesDialog(QDialog):
    """The project's change rules, one edited at a time."""

    #: (url, at, before): show what changed between a past fetch's capture and the one
    #: before it (a preview's example).
    sig_open_diff = Signal(str, object, object)
    #: A rule was saved or deleted (the panels read the project's policy again).
    sig_changed = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("Change rules")
        self.setObjectName("change-rules")
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        self.resize(1040, 700)
        self.rules = ChangeRules()
        #: The rules as read (None until they arrive).
        self.loaded = False
        #: What to edit once the rules are read: (prefix, url, patterns).
        self._wanted: tuple[str | None, str | None, list[str]] | None = None
        self.preview_job = ChangePreviewJob(context.project, self)
        self.rule_job = ChangeRuleJob(context.project, self)
        #: The last preview shown (None: none, or the form changed since).
        self.preview: Preview | None = None
        #: "Saved" or "Deleted": what the rule job under way does.
        self._doing = ""
        #: The rule a preview under way judges (its answer is shown only while the
        #: form still holds it).
        self._previewing: ChangeRule | None = None

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._build_list())
        split.addWidget(self._build_form())
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([430, 610])
        split.setChildrenCollapsible(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(buttons)

        self.preview_job.sig_progress.connect(self._preview_progress)
        self.preview_job.sig_finished.connect(self._previewed)
        self.preview_job.sig_failed.connect(self._job_failed)
        self.preview_job.sig_idle.connect(self._update_buttons)
        self.rule_job.sig_progress.connect(self._rule_progress)
        self.rule_job.sig_finished.connect(self._rule_done)
        self.rule_job.sig_failed.connect(self._job_failed)
        self.rule_job.sig_idle.connect(self._update_buttons)
        self._update_buttons()
        self.prefix.setFocus()  # not the list, whose focus would choose its first rule
        self.reload()

    # -- building -----------------------------------------------------------------------

    def _build_list(self) -> QWidget:
        self.rules_model = RulesModel(self)
        self.rules_view = QTableView()
        self.rules_view.setModel(self.rules_model)
        self.rules_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.rules_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.rules_view.verticalHeader().hide()
        self.rules_view.setWordWrap(False)
        compact_rows(self.rules_view)
        header = self.rules_view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.rules_view.selectionModel().currentRowChanged.connect(self._rule_chosen)
        self.empty = QLabel(
            "No rule yet: every page is judged by the project's signature alone. A rule "
            "on a site or a section of one says what of its pages is noise."
        )
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: palette(placeholder-text);")
        self.new_button = QPushButton("New rule")
        self.new_button.setToolTip("An empty form: type the prefix of the URLs it is for")
        self.new_button.clicked.connect(self.new_rule)
        box = QGroupBox("Rules of this project")
        column = QVBoxLayout(box)
        column.addWidget(self.rules_view, 1)
        column.addWidget(self.empty)
        row = QHBoxLayout()
        row.addWidget(self.new_button)
        row.addStretch(1)
        column.addLayout(row)
        return box

    def _build_form(self) -> QWidget:
        self.prefix = QLineEdit()
        self.prefix.setPlaceholderText("example.org, or example.org/news/ for a section")
        self.prefix.setToolTip(
            "The URLs the rule applies to: those starting with it (a host alone is the "
            "whole site; with http:// or https:// only that scheme). The longest matching "
            "prefix applies."
        )
        self.remove = _lines_box(
            "CSS selectors, one a line: .ticker, aside.trending, #live-score",
            "Elements dropped before the signature reads the page (and out of its diffs)",
        )
        self.only = _lines_box(
            "CSS selectors, one a line (empty: the whole main text)",
            "The signature reads these elements alone; nothing else of the page counts",
        )
        self.ignore = _lines_box(
            r"Regular expressions, one a line: Updated \d+ minutes ago",
            "Text taken out of each line of the page before it is compared (RE2 first, "
            "as in filters); what it matches is never a change",
        )
        self.added_only = QCheckBox("Count only added text")
        self.added_only.setToolTip(
            "A fetch is a change only when it adds text; text that went is not news"
        )
        self.notify = QCheckBox("Notify")
        self.notify.setToolTip(
            "Send its pages' news to the notification services (Settings: notify.urls); "
            "off: they show in What's new only"
        )
        checks = QHBoxLayout()
        checks.addWidget(self.added_only)
        checks.addWidget(self.notify)
        checks.addStretch(1)
        self.form = QWidget()
        form = QFormLayout(self.form)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Prefix", self.prefix)
        form.addRow("Remove selectors", self.remove)
        form.addRow("Only selectors", self.only)
        form.addRow("Ignore patterns", self.ignore)
        form.addRow("", checks)
        for editor in (self.prefix, self.remove, self.only, self.ignore):
            editor.textChanged.connect(self._edited)
        self.added_only.toggled.connect(self._edited)
        self.notify.toggled.connect(self._edited)

        self.error = QLabel("")
        self.error.setObjectName("change-rule-error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        self.preview_button = QPushButton("Preview")
        self.preview_button.setToolTip(
            "Judge the matching pages' past fetches again under this rule (nothing is saved)"
        )
        self.preview_button.clicked.connect(self.start_preview)
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip(
            "Keep the rule; its pages are re-signed so their next fetch compares like with like"
        )
        self.save_button.clicked.connect(self.save)
        self.delete_button = QPushButton("Delete")
        self.delete_button.setToolTip("Drop the rule; its pages are judged as without it again")
        self.delete_button.clicked.connect(self.delete)
        actions = QHBoxLayout()
        actions.addWidget(self.preview_button)
        actions.addStretch(1)
        actions.addWidget(self.delete_button)
        actions.addWidget(self.save_button)

        self.bar = QProgressBar()
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.stop)
        progress = QHBoxLayout()
        progress.addWidget(self.bar, 1)
        progress.addWidget(self.stop_button)
        self.bar.hide()
        self.stop_button.hide()
        self.status = QLabel("")
        self.status.setObjectName("change-rule-status")
        self.status.setWordWrap(True)

        box = QGroupBox("Rule")
        intro = QLabel(
            "Pages whose URL starts with the prefix are judged by this rule (the longest "
            "matching prefix applies). Preview tries it on their past fetches; nothing is "
            "kept until Save."
        )
        intro.setWordWrap(True)
        intro.setStyleSheet("color: palette(placeholder-text);")
        column = QVBoxLayout(box)
        column.addWidget(intro)
        column.addWidget(self.form)
        column.addWidget(self.error)
        column.addLayout(actions)
        column.addLayout(progress)
        column.addWidget(self.status)
        # the preview takes the room below the form when shown; hidden, the form stays packed
        column.addWidget(self._build_preview(), 100)
        column.addStretch(1)
        return box

    def _build_preview(self) -> QWidget:
        self.preview_label = QLabel("")
        self.preview_label.setObjectName("change-preview")
        self.preview_label.setWordWrap(True)
        bold = self.preview_label.font()
        bold.setBold(True)
        self.preview_label.setFont(bold)
        self.examples = ExamplesModel(self)
        self.examples_view = QTableView()
        self.examples_view.setModel(self.examples)
        self.examples_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.examples_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.examples_view.verticalHeader().hide()
        self.examples_view.setWordWrap(False)
        compact_rows(self.examples_view)
        header = self.examples_view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.examples_view.doubleClicked.connect(self._example_clicked)
        self.examples_view.selectionModel().currentRowChanged.connect(
            lambda *_: self._update_buttons()
        )
        self.diff_button = QPushButton("Show what changed")
        self.diff_button.setToolTip(
            "The example's capture and the one before it, in a diff window (as the "
            "project's rules read them now)"
        )
        self.diff_button.clicked.connect(self.open_selected_example)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.diff_button)
        self.preview_box = QWidget()
        rows = QVBoxLayout(self.preview_box)
        rows.setContentsMargins(0, 6, 0, 0)
        rows.addWidget(self.preview_label)
        rows.addWidget(self.examples_view, 1)
        rows.addLayout(row)
        self.preview_box.hide()
        return self.preview_box

    # -- the rules ----------------------------------------------------------------------

    def reload(self) -> None:
        """Read the project's rules again (the store thread)."""
        changes = self.context.services.changes
        self.context.jobs.submit(changes.rules, self._loaded, self._load_failed)

    def _loaded(self, rules: ChangeRules) -> None:
        self.rules, self.loaded = rules, True
        shown = self.prefix.text().strip()
        self.rules_model.set_rows(list(rules.rules))
        self.empty.setVisible(not rules.rules)
        wanted, self._wanted = self._wanted, None
        if wanted is not None:
            prefix, url, patterns = wanted
            self._edit_wanted(prefix, url, patterns)
        elif self.rules.get(shown) is not None or not shown:
            self._select(shown or (rules.rules[0].prefix if rules.rules else ""))
        self._update_buttons()

    def _load_failed(self, message: str) -> None:
        self._show_error(f"The project's change rules could not be read: {message}")

    def _select(self, prefix: str) -> None:
        """Choose the kept rule on ``prefix`` in the list and show it (what was said
        stays: this is the list read again, not the user choosing)."""
        row = self.rules_model.row_of(prefix)
        self._mark_row(row)
        if row is not None:
            self.edit_rule(self.rules_model.row(row))

    def _mark_row(self, row: int | None) -> None:
        """Show ``row`` chosen in the list (None: none, and no current row, which the
        list's focus would make its first) without the form showing it."""
        selection = self.rules_view.selectionModel()
        selection.blockSignals(True)
        if row is None:
            selection.clear()
        else:
            self.rules_view.selectRow(row)
        selection.blockSignals(False)
        self.rules_view.viewport().update()

    def _rule_chosen(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.status.setText("")  # what was said was of another rule
            self.edit_rule(self.rules_model.row(current.row()))

    # -- what to edit -------------------------------------------------------------------

    def edit_prefix(self, prefix: str) -> None:
        """The rule on ``prefix``, or a new one for it (the Sites panel's site)."""
        self._want(prefix, None, [])

    def ignore_on_page(self, url: str, selection: str) -> None:
        """The rule that applies to ``url`` (else a new one on its host), with ignore
        patterns matching ``selection`` literally added (a diff's "Ignore this text…")."""
        self._want(None, url, ignore_patterns(selection))

    def _want(self, prefix: str | None, url: str | None, patterns: list[str]) -> None:
        if self.loaded:
            self._edit_wanted(prefix, url, patterns)
        else:
            self._wanted = (prefix, url, patterns)

    def _edit_wanted(self, prefix: str | None, url: str | None, patterns: list[str]) -> None:
        if prefix is None and url is not None:
            # the applied rule, so the pattern works on this page (a host rule would
            # not, under a longer prefix)
            applied = self.rules.rule_for(url)
            prefix = applied.prefix if applied is not None else host_prefix(url)
        prefix = prefix or ""
        rule = self.rules.get(prefix) or ChangeRule(prefix=prefix)
        if patterns:
            added = tuple(p for p in patterns if p not in rule.ignore)
            rule = ChangeRule(
                rule.prefix,
                rule.remove,
                rule.only,
                (*rule.ignore, *added),
                rule.added_only,
                rule.notify,
            )
        self._mark_row(self.rules_model.row_of(prefix))  # the form shows the edited rule
        self.edit_rule(rule)
        self.prefix.setFocus()
        if patterns:
            self.status.setText(
                "The selected text is added as an ignore pattern: Preview shows what it "
                "would have changed, Save keeps it."
            )

    def new_rule(self) -> None:
        """An empty form, no rule chosen in the list."""
        self._mark_row(None)
        self.status.setText("")
        self.edit_rule(ChangeRule(prefix=""))

    def edit_rule(self, rule: ChangeRule) -> None:
        """Show ``rule`` in the form."""
        for editor, values in (
            (self.remove, rule.remove),
            (self.only, rule.only),
            (self.ignore, rule.ignore),
        ):
            editor.blockSignals(True)
            editor.setPlainText("\n".join(values))
            editor.blockSignals(False)
        self.prefix.blockSignals(True)
        self.prefix.setText(rule.prefix)
        self.prefix.blockSignals(False)
        self.added_only.blockSignals(True)
        self.added_only.setChecked(rule.added_only)
        self.added_only.blockSignals(False)
        self.notify.blockSignals(True)
        self.notify.setChecked(rule.notify)
        self.notify.blockSignals(False)
        self._edited()
        if not rule.prefix:
            self.prefix.setFocus()

    def form_rule(self) -> ChangeRule:
        """The rule the form holds."""
        return rule_from_form(
            self.prefix.text(),
            self.remove.toPlainText(),
            self.only.toPlainText(),
            self.ignore.toPlainText(),
            added_only=self.added_only.isChecked(),
            notify=self.notify.isChecked(),
        )

    def _edited(self) -> None:
        self._show_error("")
        self._show_preview(None)
        self._update_buttons()

    @property
    def busy(self) -> bool:
        return self.preview_job.busy or self.rule_job.busy

    def _update_buttons(self) -> None:
        busy = self.busy
        prefix = self.prefix.text().strip()
        self.preview_button.setEnabled(not busy and bool(prefix))
        self.save_button.setEnabled(not busy and bool(prefix) and self.loaded)
        self.delete_button.setEnabled(not busy and self.rules.get(prefix) is not None)
        self.new_button.setEnabled(not busy)
        self.rules_view.setEnabled(not busy)
        self.form.setEnabled(not busy)
        self.diff_button.setEnabled(self.examples_view.currentIndex().isValid())

    def _show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    # -- preview ------------------------------------------------------------------------

    def start_preview(self) -> None:
        if self.busy:
            return
        rule = self.form_rule()
        self._previewing = rule
        self._show_error("")
        self._show_preview(None)
        self._start_bar("Reading the matching pages' history…")
        self.preview_job.start(rule)
        self._update_buttons()

    def _preview_progress(self, state: PreviewProgress) -> None:
        self.bar.setRange(0, max(state.captures, 1))
        self.bar.setValue(state.done)
        if self.stop_button.isEnabled():
            self.status.setText(preview_progress_text(state))

    def _previewed(self, preview: Preview) -> None:
        self._end_bar("")
        if self._previewing == self.form_rule():  # not another rule asked for meanwhile
            self._show_preview(preview)

    def _show_preview(self, preview: Preview | None) -> None:
        self.preview = preview
        self.preview_box.setVisible(preview is not None)
        self.examples.set_rows(list(preview.examples) if preview is not None else [])
        self.preview_label.setText(preview_text(preview) if preview is not None else "")
        self._update_buttons()

    def _example_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.open_example(self.examples.row(index.row()))

    def open_selected_example(self) -> None:
        index = self.examples_view.currentIndex()
        if index.isValid():
            self.open_example(self.examples.row(index.row()))

    def open_example(self, example: PreviewExample) -> None:
        self.sig_open_diff.emit(example.url, example.at, example.before)

    # -- save, delete -------------------------------------------------------------------

    def save(self) -> None:
        if self.busy or not self.loaded:
            return
        rule = self.form_rule()
        self._doing = "Saved"
        self._show_error("")
        self._start_bar(f"Saving the rule on {rule.prefix}…")
        self.rule_job.save(rule)
        self._update_buttons()

    def delete(self) -> None:
        prefix = self.prefix.text().strip()
        if self.busy or self.rules.get(prefix) is None:
            return
        self._doing = "Deleted"
        self._show_error("")
        self._start_bar(f"Deleting the rule on {prefix}…")
        self.rule_job.delete(prefix)
        self._update_buttons()

    def _rule_progress(self, state: ReSigningProgress) -> None:
        self.bar.setRange(0, max(state.total, 1))
        self.bar.setValue(state.done)
        if self.stop_button.isEnabled():
            self.status.setText(re_signing_text(state, self._doing))

    def _rule_done(self, state: ReSigningProgress) -> None:
        text = re_signing_text(state, self._doing)
        if self._doing == "Deleted":
            text += " The form still holds the rule: Save puts it back."
        self._end_bar(text)
        self.context.changes.sig_status.emit(text)
        self.sig_changed.emit()
        self.reload()  # the list as kept; the form stays on the same prefix

    def _job_failed(self, message: str) -> None:
        # the core's one line (a bad selector, a bad pattern): nothing was saved
        self._end_bar("")
        self._show_error(message)

    def _start_bar(self, text: str) -> None:
        self.bar.setRange(0, 0)  # busy until the first count comes
        self.bar.show()
        self.stop_button.show()
        self.stop_button.setEnabled(True)
        self.status.setText(text)

    def _end_bar(self, text: str) -> None:
        self.bar.hide()
        self.stop_button.hide()
        self.status.setText(text)

    def stop(self) -> None:
        """Stop the preview (it says what it judged) or the re-signing (after the batch
        in hand: the rule is kept, saving it again resumes)."""
        self.preview_job.stop()
        self.rule_job.stop()
        self.stop_button.setEnabled(False)
        self.status.setText("Stopping…")

    # -- closing ------------------------------------------------------------------------

    def reject(self) -> None:
        """Close: a preview stops (nobody would read it); a re-signing goes on (the
        window, opened again, shows it) until the project closes."""
        self.preview_job.stop()
        super().reject()

    def shutdown(self) -> None:
        """Stop what runs and wait (the project closes): a re-signing stops after the
        batch in hand, and saving the rule again resumes it."""
        self.preview_job.stop()
        self.rule_job.stop()
        self.preview_job.wait()
        self.rule_job.wait()


def _lines_box(placeholder: str, tip: str) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setPlaceholderText(placeholder)
    box.setToolTip(tip)
    box.setTabChangesFocus(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    box.setFixedHeight(box.fontMetrics().lineSpacing() * 3 + 14)
    return box
