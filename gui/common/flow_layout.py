"""A row of buttons that wraps onto more lines when the window is narrow.

A :class:`QHBoxLayout` of six buttons is as wide as all six, and so is the window that
holds it: a row of this layout is as wide as its widest button, and as tall as the lines
it needs at the width it has (Qt's own flow layout example, with ``heightForWidth``).
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QSpacerItem, QWidget


class FlowLayout(QLayout):
    """Items left to right, wrapping onto the next line where the row is too narrow.

    A stretch (``addStretch``, as in a QHBoxLayout) takes the room left on its line, so
    a row wide enough for everything looks as the QHBoxLayout it replaces.
    """

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(QMargins(0, 0, 0, 0))

    # -- the QLayout interface ----------------------------------------------------------

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def addWidget(self, widget: QWidget, stretch: int = 0) -> None:
        """As QHBoxLayout's (``stretch`` is had by the stretches between items)."""
        super().addWidget(widget)

    def addSpacing(self, size: int) -> None:
        """Nothing: items are spaced already, and a gap must not start a line."""

    def addStretch(self, stretch: int = 1) -> None:
        policy = QSizePolicy.Policy
        self.addItem(QSpacerItem(0, 0, policy.Expanding, policy.Minimum))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """All items on one line: what the row would like."""
        widths = [_hint(item).width() for item in self._shown()]
        height = max((_hint(item).height() for item in self._shown()), default=0)
        width = sum(widths) + self._gap * max(0, len(widths) - 1)
        return QSize(width, height).grownBy(self.contentsMargins())

    def minimumSize(self) -> QSize:
        """The widest item: narrower than that, nothing fits."""
        size = QSize(0, 0)
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        return size.grownBy(self.contentsMargins())

    # -- placing --------------------------------------------------------------------------

    def _shown(self) -> list[QLayoutItem]:
        """The items that take room (not hidden widgets, not stretches)."""
        return [item for item in self._items if not item.isEmpty() and item.spacerItem() is None]

    def _lines(self, width: int) -> list[list[QLayoutItem]]:
        lines: list[list[QLayoutItem]] = [[]]
        used = 0
        for item in self._items:
            if item.spacerItem() is not None:
                lines[-1].append(item)
                continue
            if item.isEmpty():
                continue
            item_width = _hint(item).width()
            if used and used + self._gap + item_width > width:
                lines.append([])
                used = 0
            used += (self._gap if used else 0) + item_width
            lines[-1].append(item)
        return lines

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Lay the items out in ``rect`` (``move``: place them); the height they take."""
        area = rect.marginsRemoved(self.contentsMargins())
        y = area.y()
        for number, line in enumerate(self._lines(area.width())):
            items = [item for item in line if item.spacerItem() is None]
            if not items:
                continue
            if number:
                y += self._gap
            height = max(_hint(item).height() for item in items)
            if move:
                widths = [_hint(item).width() for item in items]
                spare = area.width() - sum(widths) - self._gap * (len(items) - 1)
                stretches = len(line) - len(items)
                x = area.x()
                for item in line:
                    if item.spacerItem() is not None:
                        x += max(0, spare) // stretches if stretches else 0
                        continue
                    hint = _hint(item)
                    size = QSize(min(hint.width(), area.width()), hint.height())
                    top = y + (height - hint.height()) // 2
                    item.setGeometry(QRect(QPoint(x, top), size))
                    x += hint.width() + self._gap
            y += height
        return y - rect.y() + self.contentsMargins().bottom()


def _hint(item: QLayoutItem) -> QSize:
    """The size an item asks for. A widget's own: a label whose policy lets a
    QHBoxLayout squeeze it to nothing (a count that gives way first) would be given no
    room at all here, where it can go onto a line of its own instead."""
    widget = item.widget()
    return (
        widget.sizeHint().expandedTo(widget.minimumSize())
        if widget is not None
        else item.sizeHint()
    )
