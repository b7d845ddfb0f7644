"""The What's new tree's columns, sized to what they hold (issue 25).

Fixed widths cut "changed" to "ch…ed" once a row was bold, and left an empty Published
column taking a third of the row. Here the short columns (kind, time, publication) are
as wide as their widest text in the bold font (unseen rows are bold, and a column must
not jump when they stop being so); a column no row has a value in is hidden; the title
takes what its titles need, the URL's path the remainder; where both do not fit, the
path gives way first, down to its share. Texts are measured as rows are read, a block at a time, never the whole store.

A width the reader drags is theirs: from then on only the hiding and showing of empty
columns goes on.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTreeView
from recrawl.gui.common import formatting
from recrawl.gui.news.news_model import (
    AT_COLUMN,
    COLUMNS,
    KIND_COLUMN,
    KIND_LABELS,
    PUBLISHED_COLUMN,
    TITLE_COLUMN,
    URL_COLUMN,
    NewsModel,
)

#: Where titles and paths do not both fit, the title column keeps at least this share of
#: the width the short columns leave...
TITLE_SHARE = 0.6
#: ... and this many pixels.
TITLE_MIN = 240
#: Room between a column's text and the next column's.
GAP = 12
#: A time as wide as any ``formatting.local_time`` gives (digits are as wide as each other
#: in most fonts; 0 and 8 are the widest in the others).
SAMPLE_TIME = datetime(2028, 8, 28, 20, 58, 58)

Index = QModelIndex | QPersistentModelIndex


class PathDelegate(QStyledItemDelegate):
    """A URL's path cut in the middle: its start says where, its end which page."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class NewsColumns(QObject):
    """Keeps ``tree``'s columns fitted to ``model``'s rows as they are read."""

    def __init__(self, tree: QTreeView, model: NewsModel) -> None:
        super().__init__(tree)
        self.tree, self.model = tree, model
        #: The widest text read so far in each column (pixels, bold).
        self.content: dict[int, int] = {}
        #: The reader dragged a column's edge: widths are theirs.
        self.user_sized = False
        self._fitting = False
        tree.setTextElideMode(Qt.TextElideMode.ElideRight)  # a title's start says what it is
        self._paths = PathDelegate(tree)
        tree.setItemDelegateForColumn(URL_COLUMN, self._paths)
        header = tree.header()
        header.setStretchLastSection(True)
        header.sectionResized.connect(self._section_resized)
        model.modelReset.connect(self._reset)
        model.rowsInserted.connect(self._rows_inserted)
        tree.installEventFilter(self)
        self._reset()

    # -- measuring ----------------------------------------------------------------------

    def _metrics(self) -> QFontMetrics:
        bold = QFont(self.tree.font())
        bold.setBold(True)
        return QFontMetrics(bold)

    def _margin(self) -> int:
        # what the item delegate puts either side of a text
        style = self.tree.style()
        return 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.tree) + 1)

    def _reset(self) -> None:
        """A new listing: only the texts every listing can hold are known."""
        metrics = self._metrics()
        kinds = max(metrics.horizontalAdvance(label) for label in KIND_LABELS.values())
        at = metrics.horizontalAdvance(formatting.local_time(SAMPLE_TIME, seconds=True))
        self.content = {KIND_COLUMN: kinds, AT_COLUMN: at}
        self.fit()

    def _rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        model = self.model
        if model.site_at(parent) is None:
            return  # days and sites span the columns
        metrics = self._metrics()
        indent = self.tree.indentation() * 3  # an item is two levels down, root decorated
        for row in range(first, last + 1):
            item = model.item_at(model.index(row, 0, parent))
            if item is None:
                continue  # the "N more…" row
            for column in (TITLE_COLUMN, KIND_COLUMN, PUBLISHED_COLUMN, URL_COLUMN):
                text = model.index(row, column, parent).data()
                if text:
                    width = metrics.horizontalAdvance(text)
                    if column == TITLE_COLUMN:
                        width += indent
                    self.content[column] = max(self.content.get(column, 0), width)
        self.fit()

    # -- fitting ------------------------------------------------------------------------

    def fit(self) -> None:
        """Hide the columns with nothing to show, and size the others to their texts."""
        tree, header = self.tree, self.tree.header()
        self._fitting = True
        try:
            tree.setColumnHidden(PUBLISHED_COLUMN, not self.content.get(PUBLISHED_COLUMN))
            if self.user_sized:
                return
            pad = self._margin() + GAP
            fixed = 0
            for column in (KIND_COLUMN, AT_COLUMN, PUBLISHED_COLUMN):
                if tree.isColumnHidden(column):
                    continue
                width = max(self.content.get(column, 0) + pad, header.sectionSizeHint(column))
                header.resizeSection(column, width)
                fixed += width
            # the title takes what it needs if the paths still fit beside it, else the
            # paths give way down to their share (they are cut in the middle), the
            # titles the rest (cut at their end)
            rest = tree.viewport().width() - fixed
            title = self.content.get(TITLE_COLUMN, 0) + pad
            path = self.content.get(URL_COLUMN, 0) + pad
            if title + path > rest:
                title = rest - min(path, int(rest * (1 - TITLE_SHARE)))
            header.resizeSection(TITLE_COLUMN, max(title, TITLE_MIN, header.sectionSizeHint(0)))
        finally:
            self._fitting = False

    def _section_resized(self, column: int, old: int, new: int) -> None:
        # the last column stretches when the others change: that is not the reader
        if not self._fitting and column != len(COLUMNS) - 1:
            self.user_sized = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree and event.type() == QEvent.Type.Resize:
            self.fit()
        return False
