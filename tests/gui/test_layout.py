"""The window at the sizes people have: 800×600 and narrower, 480 px high, 1600 px wide;
and the Crawl log, filtered by the kinds of its lines."""

from __future__ import annotations

import itertools

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLayout, QWidget
from recrawl.core.policy import choices

from tests.gui.helpers import select_page
from tests.support.httpserver import Reply

#: The chain's rules: PDFs rejected by a line, the rest kept.
NO_PDF = r"""
[[filter]]
kind = "regex"
name = "no-pdf"
rules = '''
-\.pdf$
+.
'''
"""
TITLE = "A page whose title is as long as titles of documentation sites get, and then some"


def crawl_a_site(qtbot, window, server) -> None:
    """A crawl from the Crawl panel of a site with long titles and paths, links the chain
    rejects and a page that fails."""
    pdfs = "".join(f'<a href="/files/report-{i}.pdf">report {i}</a>' for i in range(6))
    pages = "".join(
        f'<a href="/library/section-{i}/a-rather-long-page-name-{i}.html">{i}</a>' for i in range(4)
    )
    server.html(
        "/",
        f"<html><head><title>{TITLE}</title></head><body>{pages}{pdfs}"
        '<a href="/broken">broken</a></body></html>',
    )
    for i in range(4):
        server.html(
            f"/library/section-{i}/a-rather-long-page-name-{i}.html",
            f"<html><head><title>{TITLE} {i}</title></head><body>{pdfs}</body></html>",
        )
    server.routes["/broken"] = Reply(500, b"<html><body>down</body></html>")
    choices.set_chain(NO_PDF)
    window.show_panel("crawl")
    panel = window.panels["crawl"]
    panel.seeds.setPlainText(server.url("/"))
    with qtbot.waitSignal(window.context.changes.sig_pages):
        qtbot.mouseClick(panel.add_seeds, Qt.MouseButton.LeftButton)
    panel.delay.setValue(0)
    panel.per_host.setValue(4)
    with qtbot.waitSignal(window.context.crawl.sig_finished):
        panel.start_button.click()
    qtbot.waitUntil(lambda: not window.context.crawl.busy)
    qtbot.waitUntil(lambda: "rejected" in panel.log.toPlainText())


def overlapping(panel: QWidget) -> list[str]:
    """Widgets of one layout drawn over each other (a layout squeezed below its needs)."""
    found = []
    for layout in panel.findChildren(QLayout):
        widgets = [
            item.widget()
            for item in (layout.itemAt(i) for i in range(layout.count()))
            if item.widget() is not None and item.widget().isVisible()
        ]
        for a, b in itertools.combinations(widgets, 2):
            if a.geometry().intersects(b.geometry()):
                found.append(f"{type(a).__name__} {a.geometry()} and {type(b).__name__}")
    return found


def test_the_window_works_at_800_by_600(qtbot, window, server):
    crawl_a_site(qtbot, window, server)
    select_page(qtbot, window, server.url("/"))
    window.resize(800, 600)
    for panel in window.panels.values():
        window.show_panel(panel.key)
        qtbot.waitUntil(lambda: window.width() == 800)  # nothing holds it wider
        assert window.minimumSizeHint().width() <= 800, panel.key
        assert panel.width() <= 800 and panel.isVisible()
        assert not overlapping(panel), (panel.key, overlapping(panel))
        count = getattr(panel, "count_label", None)
        if count is not None and count.text():  # what gave way in a row now has a line
            assert count.width() >= count.sizeHint().width(), panel.key
    # narrower still, as narrow as it goes: still nothing drawn over anything
    narrowest = window.minimumSizeHint().width()
    assert narrowest <= 720
    window.resize(narrowest, 600)
    for panel in window.panels.values():
        window.show_panel(panel.key)
        qtbot.waitUntil(lambda: window.width() == narrowest)
        assert not overlapping(panel), (panel.key, overlapping(panel))


def below(upper: QWidget, lower: QWidget) -> bool:
    """Whether ``lower`` starts where ``upper`` ends, or further down."""
    top = lower.mapTo(lower.window(), lower.rect().topLeft()).y()
    return top >= upper.mapTo(upper.window(), upper.rect().bottomLeft()).y()


def axis_inside(plot) -> bool:
    """The plot's bottom axis is drawn inside the plot's own widget."""
    axis = plot.getPlotItem().getAxis("bottom")
    return plot.height() >= plot.minimumHeight() and (
        plot.mapFromScene(axis.sceneBoundingRect().bottomLeft()).y() <= plot.height()
    )


def test_at_480_px_high_no_caption_is_drawn_over_a_plots_axis(qtbot, window, server):
    crawl_a_site(qtbot, window, server)
    window.resize(800, 480)
    window.show_panel("schedule")
    schedule = window.panels["schedule"]
    qtbot.waitUntil(lambda: bool(schedule.figures_label.text()))  # the simulation's
    qtbot.waitUntil(lambda: window.height() == 480)
    assert below(schedule.plot, schedule.figures_label)
    assert below(schedule.figures_label, schedule.caption)
    assert axis_inside(schedule.plot)
    pages = select_page(qtbot, window, server.url("/"))
    detail = pages.detail
    qtbot.waitUntil(lambda: bool(detail.bounds_label.text()))
    assert below(detail.plot, detail.bounds_label) and axis_inside(detail.plot)


def test_the_fetch_history_fits_1600_px_without_scrolling_sideways(qtbot, window, server):
    crawl_a_site(qtbot, window, server)
    window.resize(1600, 900)
    qtbot.waitUntil(lambda: window.width() == 1600)
    for path in ("/", "/broken"):  # fetched; failed, with its error
        detail = select_page(qtbot, window, server.url(path)).detail
        view = detail.history_view
        qtbot.waitUntil(lambda v=view: v.model().rowCount() > 0)
        header = view.horizontalHeader()
        assert header.length() <= view.viewport().width(), path
        assert not view.horizontalScrollBar().isVisible(), path
        # every column but the error is wide enough for what it holds
        for column in range(header.count()):
            if column != 2:
                assert header.sectionSize(column) >= view.sizeHintForColumn(column), column


def test_the_crawl_log_shows_the_kinds_of_line_chosen(qtbot, window, server):
    crawl_a_site(qtbot, window, server)
    view = window.panels["crawl"].view
    lines = view.log.toPlainText().splitlines()
    assert any(line.startswith("rejected  ") for line in lines)
    assert any(line.startswith("error  ") and "/broken" in line for line in lines)
    view.kind_buttons["rejected"].setChecked(False)
    lines = view.log.toPlainText().splitlines()
    assert not any("rejected" in line for line in lines), lines
    assert any(line.startswith("error  ") for line in lines)
    assert any(line.startswith("round ") for line in lines)
    # errors only
    for kind, button in view.kind_buttons.items():
        button.setChecked(kind == "errors")
    lines = view.log.toPlainText().splitlines()
    assert lines and all(line.startswith("error  ") for line in lines), lines
    assert view.kind_buttons["errors"].text() == f"Errors ({len(lines)})"
    # all again, as they came
    for button in view.kind_buttons.values():
        button.setChecked(True)
    assert any(line.startswith("rejected  ") for line in view.log.toPlainText().splitlines())
