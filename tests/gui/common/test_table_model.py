"""The table models' base: declared columns, rows in a list, Qt's contract kept."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTableView
from recrawl.gui.common.table_model import RIGHT, Column, TableModel


class Sizes(TableModel[tuple[str, int]]):
    """Names and sizes: the smallest real subclass."""

    COLUMNS = (Column("Name"), Column("Size", tip="In bytes", numeric=True))

    def cell(self, row: tuple[str, int], column: int, role: int) -> Any:
        return str(row[column]) if role == Qt.ItemDataRole.DisplayRole else None


def test_columns_are_declared_once(qtmodeltester):
    model = Sizes()
    model.set_rows([("a", 1), ("b", 22)])
    qtmodeltester.check(model)
    assert (model.rowCount(), model.columnCount()) == (2, 2)
    horizontal = Qt.Orientation.Horizontal
    assert [model.headerData(c, horizontal) for c in range(2)] == ["Name", "Size"]
    assert model.headerData(1, horizontal, Qt.ItemDataRole.ToolTipRole) == "In bytes"
    assert model.headerData(0, horizontal, Qt.ItemDataRole.ToolTipRole) is None
    assert model.headerData(2, horizontal) is None
    assert model.headerData(0, Qt.Orientation.Vertical) is None
    assert model.index(1, 1).data() == "22"
    assert model.index(1, 1).data(Qt.ItemDataRole.TextAlignmentRole) == RIGHT
    assert model.index(1, 0).data(Qt.ItemDataRole.TextAlignmentRole) is None
    assert model.rowCount(model.index(0, 0)) == 0  # a table: no children


def test_appended_rows_keep_the_views_selection(qtbot, qtmodeltester):
    model = Sizes()
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    model.set_rows([("a", 1)])
    view.selectRow(0)
    with qtbot.waitSignal(model.rowsInserted) as inserted:
        model.append_rows([("b", 2), ("c", 3)])
    assert inserted.args[1:] == [1, 2]
    with qtbot.assertNotEmitted(model.rowsInserted):
        model.append_rows([])  # nothing to insert
    assert [model.row(r)[0] for r in range(model.rowCount())] == ["a", "b", "c"]
    assert [i.row() for i in view.selectionModel().selectedRows()] == [0]
    qtmodeltester.check(model)


def test_set_rows_resets_and_refresh_redraws_every_cell(qtbot):
    model = Sizes()
    rows = [("a", 1), ("b", 2)]
    with qtbot.waitSignal(model.modelReset):
        model.set_rows(rows)
    rows[1] = ("b", 5)  # the model shares the list it was given
    with qtbot.waitSignal(model.dataChanged) as changed:
        model.refresh()
    top, bottom = changed.args[:2]
    assert (top.row(), top.column(), bottom.row(), bottom.column()) == (0, 0, 1, 1)
    assert model.index(1, 1).data() == "5"
    assert model.data(QModelIndex()) is None
    assert model.index(2, 0).data() is None  # past the last row
