"""Qt models of the Filters panel: the chain's filters, one filter's rules, rejected links.

The chain and rules models edit a :class:`ChainDraft` in place and emit ``sig_edited``
after every change, so the panel can validate and re-check as the user types.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QByteArray,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from recrawl.core.filters.kinds import can_shortcircuit, is_shortcircuit, set_shortcircuit
from recrawl.core.filters.lint import LintWarning
from recrawl.gui.filter_draft import ChainDraft, FilterDraft, rule_count
from recrawl.gui.formatting import local_time

Index = QModelIndex | QPersistentModelIndex
ERROR = QColor("#c62828")
WARNING = QColor("#9a6700")
COMMENT = QColor("#6a737d")
_ROW_MIME = "application/x-recrawl-filter-row"


class ChainModel(QAbstractListModel):
    """The filters in chain order; checkable (enabled), reorderable by drag and drop."""

    sig_edited = Signal()

    def __init__(self, draft: ChainDraft, parent: Any = None) -> None:
        super().__init__(parent)
        self.draft = draft
        self.errors: dict[int, dict[int, str]] = {}

    def set_draft(self, draft: ChainDraft) -> None:
        self.beginResetModel()
        self.draft = draft
        self.endResetModel()

    def set_errors(self, errors: dict[int, dict[int, str]]) -> None:
        self.errors = errors
        if self.rowCount():
            self.dataChanged.emit(self.index(0), self.index(self.rowCount() - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.draft.filters)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        flt = self.draft.filters[index.row()]
        bad = self.errors.get(index.row())
        if role == Qt.ItemDataRole.DisplayRole:
            rules = rule_count(flt)
            text = f"{index.row()}. {flt.name}  ({flt.kind}, {rules} line{'s' * (rules != 1)})"
            if bad:
                text += f"  — {len(bad)} error{'s' * (len(bad) != 1)}"
            return text
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if flt.enabled else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ForegroundRole:
            if bad:
                return QBrush(ERROR)
            if not flt.enabled:
                return QBrush(COMMENT)
        if role == Qt.ItemDataRole.ToolTipRole:
            if bad:
                return "\n".join(f"line {line}: {why}" for line, why in sorted(bad.items()))
            return "Enabled: runs in the chain" if flt.enabled else "Disabled: skipped"
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.CheckStateRole:
            return False
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2)
        self.draft.filters[index.row()].enabled = checked
        self.dataChanged.emit(index, index)
        self.sig_edited.emit()
        return True

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsDropEnabled
        if not index.isValid():
            return base
        return (
            base
            | Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsUserCheckable
            | Qt.ItemFlag.ItemIsDragEnabled
        )

    # -- editing -----------------------------------------------------------------------

    def insert(self, row: int, flt: FilterDraft) -> None:
        self.beginInsertRows(QModelIndex(), row, row)
        self.draft.filters.insert(row, flt)
        self.endInsertRows()
        self._renumbered()

    def remove(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.draft.filters[row]
        self.endRemoveRows()
        self._renumbered()

    def move(self, row: int, to: int) -> bool:
        """Move filter ``row`` so that it ends up at position ``to``."""
        count = len(self.draft.filters)
        if row == to or not (0 <= row < count and 0 <= to < count):
            return False
        # Qt counts the destination before the move: one past ``to`` when moving down
        self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), to + 1 if to > row else to)
        flt = self.draft.filters.pop(row)
        self.draft.filters.insert(to, flt)
        self.endMoveRows()
        self._renumbered()
        return True

    def _renumbered(self) -> None:
        # the displayed numbers are chain indexes: every row may have changed
        if self.rowCount():
            self.dataChanged.emit(self.index(0), self.index(self.rowCount() - 1))
        self.sig_edited.emit()

    def moveRows(self, source: Index, row: int, count: int, destination: Index, child: int) -> bool:
        # QListView's internal move calls this when it can (Qt's own destination rule)
        if source.isValid() or destination.isValid() or count != 1:
            return False
        return self.move(row, child - 1 if child > row else child)

    # -- drag and drop (internal moves only) ---------------------------------------------

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [_ROW_MIME]

    def mimeData(self, indexes: list[QModelIndex]) -> QMimeData:
        mime = QMimeData()
        rows = sorted({i.row() for i in indexes if i.isValid()})
        mime.setData(_ROW_MIME, QByteArray(str(rows[0] if rows else -1).encode()))
        return mime

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        if action != Qt.DropAction.MoveAction or not data.hasFormat(_ROW_MIME):
            return False
        source = int(bytes(data.data(_ROW_MIME).data()).decode() or -1)
        if source < 0:
            return False
        if row < 0:  # dropped on an item (or past the end)
            row = parent.row() if parent.isValid() else self.rowCount()
        target = row - 1 if row > source else row
        self.move(source, target)
        # the move is done: returning False keeps the view from removing the source row
        return False


class RulesModel(QAbstractTableModel):
    """One filter's non-blank lines: line number, short-circuit toggle, text, problem."""

    sig_edited = Signal()
    LINE, SHORT, RULE, PROBLEM = range(4)
    HEADERS = ("Line", "Short-circuit", "Rule", "Problem")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.flt: FilterDraft | None = None
        self.rows: list[tuple[int, str]] = []
        self.errors: dict[int, str] = {}
        self.warnings: dict[int, str] = {}

    def set_filter(self, flt: FilterDraft | None) -> None:
        self.beginResetModel()
        self.flt = flt
        self.rows = flt.shown_lines() if flt is not None else []
        self.endResetModel()

    def set_problems(self, errors: dict[int, str], warnings: list[LintWarning]) -> None:
        self.errors = errors
        self.warnings = {}
        for warning in warnings:
            if warning.line is not None:
                self.warnings.setdefault(warning.line, warning.message)
        if self.rows:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self.rows) - 1, len(self.HEADERS) - 1)
            )

    def line_of(self, row: int) -> int:
        return self.rows[row][0]

    def row_of(self, line: int) -> int | None:
        return next((r for r, (n, _) in enumerate(self.rows) if n == line), None)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def _comment(self, text: str) -> bool:
        return text.strip().startswith("#")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.flt is None:
            return None
        line, text = self.rows[index.row()]
        column = index.column()
        kind = self.flt.kind
        if column == self.SHORT:
            if role == Qt.ItemDataRole.CheckStateRole and can_shortcircuit(kind, text):
                on = is_shortcircuit(kind, text)
                return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
            if role == Qt.ItemDataRole.ToolTipRole:
                if can_shortcircuit(kind, text):
                    return "A URL this rule accepts skips the rest of the chain"
                return "This rule cannot short-circuit"
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if column == self.LINE:
                return line if role == Qt.ItemDataRole.DisplayRole else None
            if column == self.RULE:
                return text.strip()
            if column == self.PROBLEM and role == Qt.ItemDataRole.DisplayRole:
                if line in self.errors:
                    return self.errors[line]
                return self.warnings.get(line, "")
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == self.PROBLEM:
                return QBrush(ERROR if line in self.errors else WARNING)
            if column == self.RULE and line in self.errors:
                return QBrush(ERROR)
            if self._comment(text):
                return QBrush(COMMENT)
        if role == Qt.ItemDataRole.ToolTipRole and column in (self.RULE, self.PROBLEM):
            return self.errors.get(line) or self.warnings.get(line)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid() or self.flt is None:
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == self.RULE:
            flags |= Qt.ItemFlag.ItemIsEditable
        if index.column() == self.SHORT and can_shortcircuit(
            self.flt.kind, self.rows[index.row()][1]
        ):
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or self.flt is None:
            return False
        line, text = self.rows[index.row()]
        if index.column() == self.RULE and role == Qt.ItemDataRole.EditRole:
            new = str(value).strip()
            if not new:
                return False  # an emptied rule is removed with "Remove rule", not blanked
        elif index.column() == self.SHORT and role == Qt.ItemDataRole.CheckStateRole:
            on = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2)
            new = set_shortcircuit(self.flt.kind, text, on)
        else:
            return False
        self.flt.set_line(line, new)
        self.rows[index.row()] = (line, new)
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), self.PROBLEM))
        self.sig_edited.emit()
        return True

    def add_rule(self, text: str) -> int:
        """Append a rule to the filter; returns its row."""
        assert self.flt is not None
        self.flt.add_line(text)
        self.set_filter(self.flt)
        self.sig_edited.emit()
        return len(self.rows) - 1

    def remove_rule(self, row: int) -> None:
        assert self.flt is not None
        self.flt.remove_line(self.rows[row][0])
        self.set_filter(self.flt)
        self.sig_edited.emit()


@dataclass(frozen=True)
class RejectedRow:
    url: str
    filter: str
    line: int | None
    first_seen: datetime
    count: int


class RejectedModel(QAbstractTableModel):
    """The rejected-links record, shown a batch at a time (it can be large)."""

    HEADERS = ("URL", "Filter", "Line", "Times", "First seen")
    BATCH = 500

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[RejectedRow] = []
        self.shown = 0

    def set_rows(self, rows: list[RejectedRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.shown = min(len(rows), self.BATCH)
        self.endResetModel()

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and self.shown < len(self.rows)

    def fetchMore(self, parent: Index) -> None:
        more = min(self.BATCH, len(self.rows) - self.shown)
        if more <= 0:
            return
        self.beginInsertRows(QModelIndex(), self.shown, self.shown + more - 1)
        self.shown += more
        self.endInsertRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.shown

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            return None
        row = self.rows[index.row()]
        values = (
            row.url,
            row.filter or "—",
            "—" if row.line is None else row.line,
            row.count,
            local_time(row.first_seen),
        )
        return values[index.column()]
