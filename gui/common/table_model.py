"""One base for the app's Qt table models: the rows in a list, the columns declared once.

Every table in the app shows a list of plain rows (tuples, dicts, dataclasses) under
fixed columns. :class:`TableModel` holds what they all need from Qt — ``rowCount``,
``columnCount``, ``headerData``, the index check in ``data``, the alignment of number
columns, resets and appends — so a model declares its :data:`~TableModel.COLUMNS` and
says what one cell shows (:meth:`~TableModel.cell`), and keeps only what differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")

#: How a number sits in its cell.
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


@dataclass(frozen=True)
class Column:
    """One column of a table: its header, and how its cells sit."""

    title: str
    #: The header's tool tip.
    tip: str | None = None
    #: Numbers: the cells are right-aligned.
    numeric: bool = False


class TableModel(QAbstractTableModel, Generic[Row]):
    """Rows of type ``Row`` in a list, under the columns a subclass declares.

    The model keeps the list it is given (no copy), so a model may share it with the
    object it edits; whoever changes the list in place tells the views (``refresh``, or
    Qt's ``begin…``/``end…`` calls).
    """

    #: The table's columns, in order.
    COLUMNS: ClassVar[tuple[Column, ...]] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Row] = []

    # -- the rows -----------------------------------------------------------------------

    def set_rows(self, rows: list[Row]) -> None:
        """Show ``rows`` instead (views start over: selection and scroll position go)."""
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def append_rows(self, rows: Sequence[Row]) -> None:
        """Add ``rows`` at the end (views keep their selection)."""
        if not rows:
            return
        start = len(self._rows)
        self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    def row(self, number: int) -> Row:
        return self._rows[number]

    def refresh(self) -> None:
        """Redraw every cell: what the cells show changed, not which rows there are."""
        if self._rows and self.COLUMNS:
            last = self.index(len(self._rows) - 1, len(self.COLUMNS) - 1)
            self.dataChanged.emit(self.index(0, 0), last)

    def cell(self, row: Row, column: int, role: int) -> Any:
        """What cell ``column`` of ``row`` shows in ``role`` (None: nothing)."""
        return None

    # -- Qt's table surface -------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section].title
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.COLUMNS[section].tip
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and self.COLUMNS[index.column()].numeric:
            return RIGHT
        return self.cell(self._rows[index.row()], index.column(), role)
