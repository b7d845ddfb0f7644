"""A page's visual history: its captures' screenshots in a row, oldest on the left.

A view only: it shows a :class:`~recrawl.gui.pages.timeline_model.TimelineModel`, says
which rows came into view (:attr:`TimelineView.sig_visible`, so their thumbnails are
decoded as they are seen, not all at once) and which one was clicked. A page with no
screenshot (fetched over HTTP) shows nothing of it.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPainter, QPalette, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.archive.screenshots import CaptureShot
from recrawl.gui.common import formatting
from recrawl.gui.common.scaled_image import ScaledImage
from recrawl.gui.pages.screenshot_jobs import THUMBNAIL
from recrawl.gui.pages.timeline_model import TimelineModel, timeline_summary

#: Room for a capture's date under its thumbnail, and between two thumbnails.
LABEL_HEIGHT = 22
SPACING = 8
#: Thumbnails decoded beyond each edge of the view: a short scroll finds them ready.
AHEAD = 2


class _Framed(QStyledItemDelegate):
    """Each thumbnail with a hairline round it: a white page stays apart from the list."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        super().paint(painter, option, index)
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is None:
            return
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemDecoration, item, widget)
        painter.save()
        painter.setPen(option.palette.color(QPalette.ColorRole.Mid))
        painter.drawRect(rect.adjusted(0, 0, -1, -1))
        painter.restore()


class TimelineView(QWidget):
    #: Rows that came into view (with a few beyond the edges).
    sig_visible = Signal(list)
    #: The row clicked: show its screenshot larger.
    sig_open = Signal(int)

    def __init__(self, model: TimelineModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.label = QLabel("")
        self.label.setObjectName("timeline-summary")
        self.label.setWordWrap(True)
        self.list = QListView()
        self.list.setObjectName("screenshot-timeline")
        self.list.setModel(model)
        self.list.setItemDelegate(_Framed(self.list))
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setFlow(QListView.Flow.LeftToRight)
        self.list.setWrapping(False)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        # every item the size of the first: the view lays out a thousand without asking
        # each for its picture
        self.list.setUniformItemSizes(True)
        self.list.setIconSize(THUMBNAIL)
        self.grid = QSize(THUMBNAIL.width() + SPACING, THUMBNAIL.height() + LABEL_HEIGHT)
        self.list.setGridSize(self.grid)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        bar = self.list.horizontalScrollBar().sizeHint().height()
        self.list.setFixedHeight(self.grid.height() + bar + 2 * self.list.frameWidth())
        self.list.clicked.connect(lambda index: self.sig_open.emit(index.row()))
        self.list.activated.connect(lambda index: self.sig_open.emit(index.row()))
        # what is in view, once per turn of the event loop however many changes came
        self._seen = QTimer(self)
        self._seen.setSingleShot(True)
        self._seen.setInterval(0)
        self._seen.timeout.connect(self._report_visible)
        self.list.horizontalScrollBar().valueChanged.connect(lambda _: self._seen.start())
        model.modelReset.connect(self._reset)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.list)
        self.hide()

    def _reset(self) -> None:
        self.label.setText(timeline_summary(self.model.timeline))
        shown = self.model.rowCount() > 0
        self.setVisible(shown)
        if shown:  # the newest in view: older ones are a scroll to the left
            self.list.scrollTo(self.model.index(self.model.rowCount() - 1))
        self._seen.start()

    def visible_rows(self) -> list[int]:
        """The rows in view, with :data:`AHEAD` more on each side."""
        count = self.model.rowCount()
        if not count or not self.isVisible():
            return []
        viewport = self.list.viewport()
        middle = self.grid.height() // 2
        first = self._row_at(QPoint(1, middle), 0)
        last = self._row_at(QPoint(viewport.width() - 2, middle), count - 1)
        return list(range(max(first - AHEAD, 0), min(last + AHEAD, count - 1) + 1))

    def _row_at(self, point: QPoint, otherwise: int) -> int:
        index: QModelIndex = self.list.indexAt(point)
        return index.row() if index.isValid() else otherwise

    def _report_visible(self) -> None:
        rows = self.visible_rows()
        if rows:
            self.sig_visible.emit(rows)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._seen.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._seen.start()


class ScreenshotDialog(QDialog):
    """One capture's screenshot, as large as the window (it says so while it loads)."""

    def __init__(self, url: str, shot: CaptureShot, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shot = shot
        when = formatting.local_time(shot.date, seconds=True)
        self.setWindowTitle(f"Screenshot of {url} — {when}")
        self.resize(1000, 680)
        self.caption = QLabel(f"Captured {when} (local time)")
        self.caption.setObjectName("screenshot-caption")
        self.image = ScaledImage("Loading the screenshot…")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.image, 1)
        layout.addWidget(buttons)

    def show_image(self, image: QImage) -> None:
        self.image.set_image(image)
        self.caption.setText(f"{self.caption.text()}, {image.width()} × {image.height()} pixels")

    def show_error(self, message: str) -> None:
        self.image.set_text(f"The screenshot could not be read: {message}")
