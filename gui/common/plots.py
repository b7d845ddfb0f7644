"""pyqtgraph plots set up one way: light background, labelled axes with units.

Update plots from the GUI thread only (a ``QTimer`` or a slot), never from a job's thread.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QLayout, QScrollArea, QVBoxLayout, QWidget

pg.setConfigOptions(background="w", foreground="#333", antialias=True)

CHANGED = "#d1495b"  # fetches that found a change
UNCHANGED = "#2d6a8f"
BOUND = "#999999"


class _PlotWidget(pg.PlotWidget):
    """A plot that asks for its minimum height and takes what its layout gives: asking
    for more (pyqtgraph's own hint) made a column of a plot and its captions taller than
    a low window, which then scrolled (or drew the captions over the axis)."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumHeight())


def plot_widget(
    x_label: str,
    x_units: str | None,
    y_label: str,
    y_units: str | None,
    *,
    time_axis: bool = False,
    parent: QWidget | None = None,
) -> pg.PlotWidget:
    """A plot with both axes labelled; ``time_axis`` shows epoch seconds as local dates."""
    axes = {"bottom": pg.DateAxisItem(orientation="bottom")} if time_axis else {}
    widget = _PlotWidget(parent=parent, axisItems=axes)
    item = widget.getPlotItem()
    item.setLabel("bottom", x_label, units=x_units)
    item.setLabel("left", y_label, units=y_units)
    for side in ("bottom", "left"):  # "kh" for a thousand hours helps no one
        item.getAxis(side).enableAutoSIPrefix(False)
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setMenuEnabled(False)
    widget.setMinimumHeight(160)
    return widget


def plot_column(plot: pg.PlotWidget, *parts: QWidget | QLayout) -> QScrollArea:
    """``plot`` with what goes under it (captions, figures; a layout goes above it), in
    a column that scrolls when the window is too low for both: a word-wrapped caption
    needs more lines the narrower it is, and squeezed under a plot that cannot shrink it
    would be drawn over the plot's axis."""
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    for part in parts:
        if isinstance(part, QLayout):
            layout.addLayout(part)
    layout.addWidget(plot, 1)
    for part in parts:
        if isinstance(part, QWidget):
            layout.addWidget(part)
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(column)
    return area


def from_zero(widget: pg.PlotWidget, top: float) -> None:
    """The y axis from 0 to ``top``, with a sliver below 0 so the 0 gets its label (an
    axis hides one that would stick out at its end)."""
    widget.setYRange(-0.06 * top, top, padding=0)
