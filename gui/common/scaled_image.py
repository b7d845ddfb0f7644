"""An image drawn as large as its widget allows, its proportions kept.

A screenshot is larger than the room a window gives it: scaled down to fit (smoothly),
or up with its pixels kept square and sharp, so a one-pixel change stays visible.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QImage, QPainter, QPaintEvent, QPalette, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget


class ScaledImage(QWidget):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pixmap: QPixmap | None = None
        #: Said in the middle while there is no image (loading, or why there is none).
        self.text = text
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(120, 80)

    def set_image(self, image: QImage | None) -> None:
        self.pixmap = QPixmap.fromImage(image) if image is not None else None
        self.update()

    def set_text(self, text: str) -> None:
        self.text = text
        self.update()

    def sizeHint(self) -> QSize:
        if self.pixmap is None:
            return QSize(320, 200)
        return self.pixmap.size().boundedTo(QSize(960, 640))

    def image_rect(self) -> QRect:
        """Where the image is drawn: as large as fits, centred (empty without one)."""
        if self.pixmap is None or self.pixmap.isNull():
            return QRect()
        size = self.pixmap.size().scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio)
        rect = QRect(0, 0, size.width(), size.height())
        rect.moveCenter(self.rect().center())
        return rect

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = self.image_rect()
        if rect.isEmpty() or self.pixmap is None:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.text)
            return
        smooth = rect.width() < self.pixmap.width()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, smooth)
        painter.drawPixmap(rect, self.pixmap)
        # a hairline round it: a white page stays apart from a light window
        painter.setPen(self.palette().color(QPalette.ColorRole.Mid))
        painter.drawRect(rect.adjusted(-1, -1, 0, 0))
