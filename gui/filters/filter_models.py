"""Qt models of the Filters panel: the chain's filters, one filter's rules, rejected links.

The chain and rules models edit a :class:`ChainDraft` in place and emit ``sig_edited``
after every change, so the panel can validate and re-check as the user types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from PySide6.QtCore import QByteArray, QMimeData, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from recrawl.core.filters.kinds import can_shortcircuit, is_shortcircuit, set_shortcircuit
from recrawl.core.filters.lint import LintWarning
from recrawl.gui.common.formatting import local_time
from recrawl.gui.common.table_model import Column, Index, TableModel
from recrawl.gui.filters.filter_draft import ChainDraft, FilterDraft, rule_count

ERROR = QColor("#c62828")
WARNING = QColor("#9a6700")
COMMENT = QColor("#6a737d")
_ROW_MIME = "application/x-recrawl-filter-row"
_RULE_MIME = "application/x-recrawl-rule-row"

Row = TypeVar("Row")


class MovableRows(TableModel[Row]):
    """Rows the view reorders by an internal drag (one row at a time) and by :meth:`move`:
    a subclass says where a drop puts the row (:meth:`drop_target`) and moves it."""

    #: The drag's MIME type, one per model: a row of one cannot be dropped on the other.
    row_mime = ""

    def move(self, row: int, to: int) -> bool:
        raise NotImplementedError

    def drop_target(self, source: int, row: int, parent: Index) -> int:
        raise NotImplementedError

    def moveRows(self, source: Index, row: int, count: int, destination: Index, child: int) -> bool:
        # QListView's internal move calls this when it can (Qt's own destination rule)
        if source.isValid() or destination.isValid() or count != 1:
            return False
        return self.move(row, child - 1 if child > row else child)

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [self.row_mime]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        mime = QMimeData()
        rows = sorted({i.row() for i in indexes if i.isValid()})
        mime.setData(self.row_mime, QByteArray(str(rows[0] if rows else -1).encode()))
        return mime

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        if action != Qt.DropAction.MoveAction or not data.hasFormat(self.row_mime):
            return False
        source = int(bytes(data.data(self.row_mime).data()).decode() or -1)
        if not 0 <= source < self.rowCount():
            return False
        self.move(source, self.drop_target(source, row, parent))
        # the move is done: returning False keeps the view from removing the source row
        return False


class ChainModel(MovableRows[FilterDraft]):
    """The filters in chain order (one column, for a list view); checkable (enabled),
    reorderable by drag and drop. The rows are the draft's own list of filters."""

    row_mime = _ROW_MIME

    sig_edited = Signal()
    COLUMNS = (Column("Filter"),)

    def __init__(self, draft: ChainDraft, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.draft = draft
        self._rows = draft.filters
        self.errors: dict[int, dict[int, str]] = {}

    def set_draft(self, draft: ChainDraft) -> None:
        self.draft = draft
        self.set_rows(draft.filters)

    def set_errors(self, errors: dict[int, dict[int, str]]) -> None:
        self.errors = errors
        self.refresh()

    def index(
        self,
        row: int,
        column: int = 0,  # a list: the column is always 0
        parent: Index = QModelIndex(),  # noqa: B008
    ) -> QModelIndex:
        return super().index(row, column, parent)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # not cell(): the text and the errors go by the filter's position in the chain
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        flt = self._rows[index.row()]
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
        self.refresh()  # the displayed numbers are chain indexes: every row may have changed
        self.sig_edited.emit()

    def drop_target(self, source: int, row: int, parent: Index) -> int:
        if row < 0:  # dropped on an item (or past the end)
            row = parent.row() if parent.isValid() else self.rowCount()
        return row - 1 if row > source else row


class RulesModel(MovableRows[tuple[int, str]]):
    """One filter's non-blank lines: line number, short-circuit toggle, text, problem.

    A row is (line number, text) of one line of the filter's rules.
    """

    row_mime = _RULE_MIME

    sig_edited = Signal()
    LINE, SHORT, RULE, PROBLEM = range(4)
    COLUMNS = (Column("Line"), Column("Short-circuit"), Column("Rule"), Column("Problem"))

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.flt: FilterDraft | None = None
        self.errors: dict[int, str] = {}
        self.warnings: dict[int, str] = {}

    def set_filter(self, flt: FilterDraft | None) -> None:
        self.flt = flt
        self.set_rows(flt.shown_lines() if flt is not None else [])

    def set_problems(self, errors: dict[int, str], warnings: list[LintWarning]) -> None:
        self.errors = errors
        self.warnings = {}
        for warning in warnings:
            if warning.line is not None:
                self.warnings.setdefault(warning.line, warning.message)
        self.refresh()

    def row_of(self, line: int) -> int | None:
        return next((r for r, (n, _) in enumerate(self._rows) if n == line), None)

    def _comment(self, text: str) -> bool:
        return text.strip().startswith("#")

    def cell(self, row: tuple[int, str], column: int, role: int) -> Any:
        if self.flt is None:
            return None
        line, text = row
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
        if self.flt is None:
            return Qt.ItemFlag.NoItemFlags
        if not index.isValid():
            return Qt.ItemFlag.ItemIsDropEnabled  # a drop between rows, or past the last
        flags = (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsDragEnabled
            | Qt.ItemFlag.ItemIsDropEnabled
        )
        if index.column() == self.RULE:
            flags |= Qt.ItemFlag.ItemIsEditable
        if index.column() == self.SHORT and can_shortcircuit(
            self.flt.kind, self._rows[index.row()][1]
        ):
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or self.flt is None:
            return False
        line, text = self._rows[index.row()]
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
        self._rows[index.row()] = (line, new)
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), self.PROBLEM))
        self.sig_edited.emit()
        return True

    def add_rule(self, text: str) -> int:
        """Add a rule to the filter (at its end, or before its trailing catch-all);
        returns its row."""
        assert self.flt is not None
        line = self.flt.add_line(text)
        self.set_filter(self.flt)
        self.sig_edited.emit()
        row = self.row_of(line)
        return row if row is not None else len(self._rows) - 1

    # -- reordering: buttons, and drag and drop (internal moves only) ----------------------

    def move(self, row: int, to: int) -> bool:
        """Move rule row ``row`` so that it ends up at row ``to`` (regex rules run in order)."""
        if self.flt is None or not self.flt.move_shown(row, to):
            return False
        # Qt counts the destination before the move: one past ``to`` when moving down
        self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), to + 1 if to > row else to)
        self._rows = self.flt.shown_lines()
        self.endMoveRows()
        # the rows between took the moved one's place: their line numbers changed
        first, last = min(row, to), max(row, to)
        self.dataChanged.emit(self.index(first, 0), self.index(last, self.PROBLEM))
        self.sig_edited.emit()
        return True

    def drop_target(self, source: int, row: int, parent: Index) -> int:
        last = len(self._rows) - 1
        if row < 0:  # dropped on a rule: it takes that rule's place (past the end: last)
            return parent.row() if parent.isValid() else last
        return min(row - 1 if row > source else row, last)  # between two: between them

    def remove_rule(self, row: int) -> None:
        assert self.flt is not None
        self.flt.remove_line(self._rows[row][0])
        self.set_filter(self.flt)
        self.sig_edited.emit()


@dataclass(frozen=True)
class RejectedRow:
    url: str
    filter: str
    line: int | None
    first_seen: datetime
    count: int


class RejectedModel(TableModel[RejectedRow]):
    """The rejected-links record, shown a batch at a time (it can be large)."""

    COLUMNS = (
        Column("URL"),
        Column("Filter"),
        Column("Line"),
        Column("Times", tip="How many times crawls met the link and turned it away"),
        Column("Rejected since", tip="When a crawl first turned the link away (local time)"),
    )
    BATCH = 500

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._later: list[RejectedRow] = []  # not shown until the view scrolls to them

    def set_rows(self, rows: list[RejectedRow]) -> None:
        self._later = rows[self.BATCH :]
        super().set_rows(rows[: self.BATCH])

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and bool(self._later)

    def fetchMore(self, parent: Index) -> None:
        more, self._later = self._later[: self.BATCH], self._later[self.BATCH :]
        self.append_rows(more)

    def cell(self, row: RejectedRow, column: int, role: int) -> Any:
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        values = (
            row.url,
            row.filter or "—",
            "—" if row.line is None else row.line,
            row.count,
            local_time(row.first_seen),
        )
        return values[column]
