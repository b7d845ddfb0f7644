"""The Filters panel's chain editor: the filters in order beside the selected one's rules.

A view over the panel's two models (:mod:`recrawl.gui.filters.filter_models`), which edit the
draft in place: the editor adds, removes, moves, renames filters and adds and removes
rules through them, and says ``sig_edited`` after every change. It never validates or
saves: the panel does, and hands back what validation found (:meth:`show_problems`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.filters.kinds import KINDS
from recrawl.gui.common.flow_layout import FlowLayout
from recrawl.gui.filters.filter_draft import ChainDraft, FilterDraft, Validation, new_filter
from recrawl.gui.filters.filter_models import ChainModel, RulesModel

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


#: Move the selected filter or rule (in the list or table that has the focus).
_UP = QKeySequence(Qt.Modifier.ALT | Qt.Key.Key_Up)
_DOWN = QKeySequence(Qt.Modifier.ALT | Qt.Key.Key_Down)


class ChainEditor(QSplitter):
    """The chain's filters (left) and the selected filter's name and rules (right)."""

    #: The draft changed: a filter or rule added, removed, moved, toggled, renamed, edited.
    sig_edited = Signal()

    def __init__(
        self, chain_model: ChainModel, rules_model: RulesModel, parent: QWidget | None = None
    ) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.chain_model = chain_model
        self.rules_model = rules_model
        self._validation: Validation | None = None
        self.addWidget(self._build_chain_box())
        self.addWidget(self._build_filter_box())
        self.setStretchFactor(1, 1)
        self.setSizes([300, 700])
        chain_model.sig_edited.connect(self.sig_edited)
        rules_model.sig_edited.connect(self.sig_edited)
        self.show_filter(None)

    @property
    def draft(self) -> ChainDraft:
        return self.chain_model.draft

    # -- layout --------------------------------------------------------------------------

    def _build_chain_box(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel(
            "Filters, run top to bottom. Drag to reorder (or Up/Down, Alt+↑/↓); untick to disable."
        )
        label.setWordWrap(True)
        self.chain_view = QListView()
        self.chain_view.setObjectName("chain-view")
        self.chain_view.setModel(self.chain_model)
        self.chain_view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.chain_view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.chain_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.chain_view.selectionModel().currentRowChanged.connect(self._filter_selected)
        buttons = FlowLayout()  # wraps in a narrow window
        self.add_filter_button = QToolButton()
        self.add_filter_button.setText("Add filter")
        self.add_filter_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_filter_button)
        for kind in KINDS:
            menu.addAction(kind, self._adder(kind))
        self.add_filter_button.setMenu(menu)
        self.remove_filter_button = QPushButton("Remove")
        self.up_button = QPushButton("Up")
        self.down_button = QPushButton("Down")
        self.up_button.setToolTip(f"Run this filter earlier ({_UP.toString()})")
        self.down_button.setToolTip(f"Run this filter later ({_DOWN.toString()})")
        for key, delta in ((_UP, -1), (_DOWN, +1)):
            shortcut = QShortcut(key, self.chain_view)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda delta=delta: self.move_filter(delta))
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
        # regex rules run in order: a rule is dragged to its place (or moved by Up/Down)
        self.rules_view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.rules_view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.rules_view.setDragDropOverwriteMode(False)
        self.rules_view.setDropIndicatorShown(True)
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
        self.rule_up_button = QPushButton("Up")
        self.rule_down_button = QPushButton("Down")
        self.rule_up_button.setToolTip(f"Move this rule up ({_UP.toString()})")
        self.rule_down_button.setToolTip(f"Move this rule down ({_DOWN.toString()})")
        self.rule_up_button.clicked.connect(lambda: self.move_rule(-1))
        self.rule_down_button.clicked.connect(lambda: self.move_rule(+1))
        for key, delta in ((_UP, -1), (_DOWN, +1)):
            shortcut = QShortcut(key, self.rules_view)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda delta=delta: self.move_rule(delta))
        adder.addWidget(self.new_rule, 1)
        adder.addWidget(self.add_rule_button)
        adder.addWidget(self.remove_rule_button)
        adder.addWidget(self.rule_up_button)
        adder.addWidget(self.rule_down_button)
        layout.addLayout(head)
        layout.addWidget(self.hint)
        layout.addWidget(self.rules_view, 1)
        layout.addLayout(adder)
        return box

    # -- the selected filter -------------------------------------------------------------

    def current_filter(self) -> int | None:
        index = self.chain_view.currentIndex()
        return index.row() if index.isValid() else None

    def select_filter(self, row: int) -> None:
        self.chain_view.selectionModel().setCurrentIndex(
            self.chain_model.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.show_filter(row)

    def select_near(self, row: int) -> None:
        """Select filter ``row``, or the last one if there are fewer (none if none)."""
        if self.draft.filters:
            self.select_filter(min(row, len(self.draft.filters) - 1))
        else:
            self.show_filter(None)

    def select_line(self, index: int, line: int | None) -> None:
        """Select filter ``index`` and, when it is shown, the row of rule ``line``."""
        self.select_filter(index)
        row = self.rules_model.row_of(line) if line is not None else None
        if row is not None:
            self.rules_view.selectRow(row)

    def show_filter(self, row: int | None) -> None:
        """Show filter ``row``'s name and rules (None: no filter, and why)."""
        has = row is not None and 0 <= row < len(self.draft.filters)
        flt: FilterDraft | None = self.draft.filters[row] if has and row is not None else None
        self.rules_model.set_filter(flt)
        for widget in (
            self.name_edit,
            self.new_rule,
            self.add_rule_button,
            self.remove_rule_button,
            self.rule_up_button,
            self.rule_down_button,
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
        self.show_filter(current.row() if current.isValid() else None)

    def show_problems(self, validation: Validation) -> None:
        """Mark what ``validation`` found: errors on the filters, errors and lint on rules."""
        self._validation = validation
        self.chain_model.set_errors(validation.errors)
        self._show_problems()

    def _show_problems(self) -> None:
        row = self.current_filter()
        if row is None or self._validation is None:
            return
        warnings = [w for w in self._validation.warnings if w.filter == row]
        self.rules_model.set_problems(self._validation.errors.get(row, {}), warnings)

    # -- editing the chain ---------------------------------------------------------------

    def _adder(self, kind: str) -> Callable[..., None]:
        def add(_checked: bool = False) -> None:  # a menu action may pass its checked state
            self.add_filter(kind)

        return add

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
        self.select_near(row)

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
        self.sig_edited.emit()

    # -- editing the rules ---------------------------------------------------------------

    def _add_rule(self) -> None:
        text = self.new_rule.text().strip()
        if not text or self.rules_model.flt is None:
            return
        row = self.rules_model.add_rule(text)
        self.new_rule.clear()
        self.rules_view.selectRow(row)
        self.rules_view.scrollTo(self.rules_model.index(row, RulesModel.RULE))

    def move_rule(self, delta: int) -> None:
        """Move the selected rule up (-1) or down (+1); it stays selected."""
        index = self.rules_view.currentIndex()
        if not index.isValid():
            return
        row = index.row()
        if self.rules_model.move(row, row + delta):
            self.rules_view.setCurrentIndex(self.rules_model.index(row + delta, index.column()))
            self.rules_view.selectRow(row + delta)

    def _remove_rule(self) -> None:
        index = self.rules_view.currentIndex()
        if index.isValid():
            self.rules_model.remove_rule(index.row())
