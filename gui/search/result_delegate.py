"""How one search result is painted: title, URL, snippet with its matches bold, when it
was seen, and its timeline.

Painted rather than made of widgets: fifty results are fifty rows of text and a bar, drawn
as they scroll into view. The snippet is laid out by a ``QTextLayout`` (two lines at most,
the matches bold), the timeline by a few rectangles (:func:`~.search_model.bar`).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextLayout,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget
from recrawl.core.archive.search import SearchHit
from recrawl.gui.search.search_model import (
    HIT_ROLE,
    RUNS_ROLE,
    SEEN_ROLE,
    Runs,
    Span,
    bar,
    captures_text,
)

PADDING = 6
#: The snippet's lines at most.
SNIPPET_LINES = 2
BAR_HEIGHT = 6
#: How far a gone mark reaches above and below the bar.
GONE_REACH = 3

TRACK = QColor("#e3e8ec")
PRESENT = QColor("#2d6a8f")
FADING = QColor("#a9c8da")
GONE = QColor("#b00020")


class ResultDelegate(QStyledItemDelegate):
    """Paints a :class:`~.search_model.ResultsModel` row; the span is the panel's."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: The time every row's timeline runs over (None: no timeline drawn).
        self.span: Span | None = None

    def _fonts(self, option: QStyleOptionViewItem) -> tuple[QFont, QFont, QFont]:
        plain = QFont(option.font)
        bold = QFont(plain)
        bold.setBold(True)
        small = QFont(plain)
        small.setPointSizeF(max(plain.pointSizeF() * 0.9, 6.0))
        return plain, bold, small

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        plain, _, small = self._fonts(option)
        line, small_line = QFontMetrics(plain).lineSpacing(), QFontMetrics(small).lineSpacing()
        height = (
            2 * PADDING + line * (2 + SNIPPET_LINES) + small_line + 4 + BAR_HEIGHT + 2 * GONE_REACH
        )
        return QSize(option.rect.width() or 400, height)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        hit: SearchHit | None = index.data(HIT_ROLE)
        if hit is None:
            return
        runs: Runs = index.data(RUNS_ROLE)
        seen: str = index.data(SEEN_ROLE)
        widget = option.widget
        style = widget.style() if widget is not None else None
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        item.text = ""
        if style is not None:  # the selection's and hover's background
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, item, painter, widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        text_color = palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        faint = QColor(text_color)
        faint.setAlphaF(0.65)
        plain, bold, small = self._fonts(option)
        rect = option.rect.adjusted(PADDING, PADDING, -PADDING, -PADDING)
        line = QFontMetrics(plain).lineSpacing()

        painter.save()
        # the title, bold, and the count of captures at the right
        count = captures_text(hit)
        painter.setFont(small)
        count_width = QFontMetrics(small).horizontalAdvance(count)
        painter.setPen(faint)
        top = QRect(rect.left(), rect.top(), rect.width(), line)
        painter.drawText(
            top, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), count
        )
        painter.setFont(bold)
        painter.setPen(text_color)
        title_rect = top.adjusted(0, 0, -(count_width + 2 * PADDING), 0)
        title = QFontMetrics(bold).elidedText(
            hit.title or hit.url, Qt.TextElideMode.ElideRight, title_rect.width()
        )
        painter.drawText(
            title_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), title
        )
        # the URL, its middle given up first
        painter.setFont(plain)
        painter.setPen(faint if not selected else text_color)
        url_rect = QRect(rect.left(), rect.top() + line, rect.width(), line)
        url = QFontMetrics(plain).elidedText(hit.url, Qt.TextElideMode.ElideMiddle, rect.width())
        painter.drawText(
            url_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), url
        )
        # the snippet, its matches bold
        painter.setPen(text_color)
        y = rect.top() + 2 * line
        self._snippet(painter, runs, plain, rect.left(), y, rect.width())
        y += SNIPPET_LINES * line
        # when it was seen
        painter.setFont(small)
        painter.setPen(faint)
        small_line = QFontMetrics(small).lineSpacing()
        seen_text = QFontMetrics(small).elidedText(seen, Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(
            QRect(rect.left(), y, rect.width(), small_line),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            seen_text,
        )
        y += small_line + 4 + GONE_REACH
        area = QRect(rect.left(), y, rect.width(), BAR_HEIGHT)
        if selected:  # the track's light grey would melt into the selection's colour
            painter.fillRect(area.adjusted(-1, -1, 1, 1), palette.color(QPalette.ColorRole.Base))
        self._timeline(painter, hit, area)
        painter.restore()

    @staticmethod
    def _snippet(painter: QPainter, runs: Runs, font: QFont, x: int, y: int, width: int) -> None:
        snippet_layout(runs, font, width).draw(painter, QPointF(x, y))

    def _timeline(self, painter: QPainter, hit: SearchHit, area: QRect) -> None:
        if self.span is None or area.width() <= 0:
            return
        painter.fillRect(area, TRACK)
        marks = bar(tuple(hit.periods), self.span, area.width())
        for left, right in marks.fading:
            painter.fillRect(
                QRect(area.left() + left, area.top(), right - left, area.height()), FADING
            )
        for left, right in marks.present:
            painter.fillRect(
                QRect(area.left() + left, area.top(), right - left, area.height()), PRESENT
            )
        for at in marks.gone:
            painter.fillRect(
                QRect(
                    area.left() + at - 1, area.top() - GONE_REACH, 2, area.height() + 2 * GONE_REACH
                ),
                GONE,
            )


def snippet_layout(runs: Runs, font: QFont, width: int) -> QTextLayout:
    """The snippet laid out in ``width`` pixels, :data:`SNIPPET_LINES` lines at most,
    its matching runs bold."""
    layout = QTextLayout("".join(part for part, _ in runs), font)
    formats = []
    at = 0
    for part, matching in runs:
        if matching:
            bold = QTextCharFormat()
            bold.setFontWeight(QFont.Weight.Bold)
            span = QTextLayout.FormatRange()
            span.start, span.length, span.format = at, len(part), bold
            formats.append(span)
        at += len(part)
    layout.setFormats(formats)
    layout.beginLayout()
    height = 0.0
    for _ in range(SNIPPET_LINES):
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        line.setPosition(QPointF(0, height))
        height += line.height()
    layout.endLayout()
    return layout
