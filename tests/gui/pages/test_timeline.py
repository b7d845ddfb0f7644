"""A page's screenshots as a timeline in the Pages panel (issue 27, point 5), offscreen.

The captures are archived as a browser round archives them (tests/support/screenshots.py),
each screenshot a plain colour, so a thumbnail's colour says which capture it shows.
"""

from __future__ import annotations

import os
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from recrawl.gui.common import formatting
from recrawl.gui.pages.pages_panel import PagesPanel
from recrawl.gui.pages.timeline_model import FAILED, PENDING
from recrawl.gui.pages.timeline_view import AHEAD

from tests.gui.helpers import open_window, select_page
from tests.support.crawling import T0
from tests.support.screenshots import Capture, browser_captures, png

URL = "http://127.0.0.1:9/news"
COLOURS = [(200, 30, 30, 255), (30, 160, 60, 255), (40, 70, 210, 255)]


@pytest.fixture
def captured(project):
    days = [0, 1, 3, 7]
    shots = [png(160, 90, COLOURS[0]), None, png(160, 90, COLOURS[1]), png(320, 180, COLOURS[2])]
    browser_captures(
        project.path,
        URL,
        [
            Capture(T0 + timedelta(days=d), f"<p>day {d}</p>", shot)
            for d, shot in zip(days, shots, strict=True)
        ],
    )
    return project


def timeline_of(qtbot, window, url: str, rows: int) -> PagesPanel:
    panel = select_page(qtbot, window, url)
    model = panel.detail.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == rows and panel.detail.timeline.isVisible())
    return panel


def centre(panel: PagesPanel, row: int) -> QColor:
    pixmap = panel.detail.timeline_model.data(
        panel.detail.timeline_model.index(row), Qt.ItemDataRole.DecorationRole
    )
    image = pixmap.toImage()
    return image.pixelColor(image.width() // 2, image.height() // 2)


def test_the_timeline_shows_each_screenshot_oldest_first_and_opens_one_larger(
    qtbot, captured, prefs, tmp_path
):
    window = open_window(qtbot, captured, prefs)
    panel = timeline_of(qtbot, window, URL, 3)
    detail, model = panel.detail, panel.detail.timeline_model
    qtbot.waitUntil(lambda: model.loaded() == 3)
    dates = [T0, T0 + timedelta(days=3), T0 + timedelta(days=7)]
    labels = [model.data(model.index(r), Qt.ItemDataRole.DisplayRole) for r in range(3)]
    assert labels == [formatting.local_time(d) for d in dates]
    assert [centre(panel, r).getRgb() for r in range(3)] == COLOURS
    assert detail.timeline.label.text() == (
        "Screenshots of 3 of its 4 captures (the others were fetched over HTTP), oldest "
        "first; click one to see it larger"
    )
    shot = Path(os.environ.get("RECRAWL_SCREENSHOTS", tmp_path)) / "pages-timeline.png"
    assert window.grab().save(str(shot))

    # a click on the newest: its screenshot whole, at its own size
    view = detail.timeline.list
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(model.index(2)).center()
    )
    dialog = detail.screenshot_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.image.pixmap is not None)
    assert dialog.image.pixmap.size().toTuple() == (320, 180)
    assert dialog.image.pixmap.toImage().pixelColor(5, 5).getRgb() == COLOURS[2]
    when = formatting.local_time(dates[2], seconds=True)
    assert dialog.caption.text() == f"Captured {when} (local time), 320 × 180 pixels"
    view.activated.emit(model.index(2))  # where a click also activates: the same window
    assert detail.screenshot_dialog is dialog
    # another capture: its own window in place of the first
    panel.open_screenshot(0)
    assert detail.screenshot_dialog is not dialog and not dialog.isVisible()
    other = detail.screenshot_dialog
    qtbot.waitUntil(lambda: other.image.pixmap is not None)
    assert other.image.pixmap.toImage().pixelColor(5, 5).getRgb() == COLOURS[0]
    window.close()


def test_a_page_without_screenshots_shows_no_timeline(qtbot, project, prefs):
    browser_captures(project.path, URL, [Capture(T0, "<p>one</p>", None)])
    window = open_window(qtbot, project, prefs)
    panel = select_page(qtbot, window, URL)
    # the timeline's answer comes after the detail's, on the other lane: wait for it
    qtbot.waitUntil(lambda: panel.detail.timeline_model.timeline is not None)
    assert panel.detail.timeline_model.rowCount() == 0
    assert not panel.detail.timeline.isVisible()
    window.close()


def test_thumbnails_are_decoded_as_they_come_into_view(qtbot, project, prefs):
    count = 40
    browser_captures(
        project.path,
        URL,
        [
            Capture(T0 + timedelta(hours=h), f"<p>{h}</p>", png(64, 36, (h, 0, 0, 255)))
            for h in range(count)
        ],
    )
    window = open_window(qtbot, project, prefs)
    panel = timeline_of(qtbot, window, URL, count)
    model, timeline = panel.detail.timeline_model, panel.detail.timeline
    # the newest in view, decoded; the oldest not yet
    qtbot.waitUntil(lambda: model.loaded() > 0 and centre(panel, count - 1).red() == count - 1)
    shown = timeline.visible_rows()
    assert shown[-1] == count - 1 and len(shown) < count - AHEAD
    assert model.loaded() == len(shown)
    assert centre(panel, 0).getRgb() == PENDING.getRgb()  # not decoded yet
    timeline.list.horizontalScrollBar().setValue(0)
    qtbot.waitUntil(lambda: centre(panel, 0).getRgb() == (0, 0, 0, 255))
    assert model.loaded() < count
    window.close()


def test_a_screenshot_qt_cannot_read_is_a_marked_thumbnail_that_says_why(qtbot, project, prefs):
    browser_captures(
        project.path,
        URL,
        [
            Capture(T0, "<p>one</p>", b"not a PNG at all"),
            Capture(T0 + timedelta(days=1), "<p>two</p>", png(16, 9, COLOURS[1])),
        ],
    )
    window = open_window(qtbot, project, prefs)
    panel = timeline_of(qtbot, window, URL, 2)
    model = panel.detail.timeline_model
    qtbot.waitUntil(lambda: model.loaded() == 1 and centre(panel, 0).getRgb() != PENDING.getRgb())
    assert centre(panel, 0).getRgb() == FAILED.getRgb()
    assert centre(panel, 1).getRgb() == COLOURS[1]  # the next one shown all the same
    tip = model.data(model.index(0), Qt.ItemDataRole.ToolTipRole)
    assert tip.endswith(
        "The screenshot could not be read: the screenshot is not a PNG image Qt can read"
    )
    # opened larger, it says so too
    panel.open_screenshot(0)
    dialog = panel.detail.screenshot_dialog
    qtbot.waitUntil(lambda: dialog.image.text.startswith("The screenshot could not be read"))
    assert dialog.image.pixmap is None
    window.close()


def test_screenshots_are_listed_and_decoded_off_the_gui_thread(qtbot, captured, prefs, monkeypatch):
    from recrawl.core.archive import screenshots
    from recrawl.gui.pages import screenshot_jobs

    threads: dict[str, set[bool]] = {"listed": set(), "decoded": set()}

    def watched(name, job):
        def run(*args, **kwargs):
            threads[name].add(threading.current_thread() is threading.main_thread())
            return job(*args, **kwargs)

        return run

    monkeypatch.setattr(screenshots, "timeline", watched("listed", screenshots.timeline))
    monkeypatch.setattr(
        screenshot_jobs, "load_thumbnail", watched("decoded", screenshot_jobs.load_thumbnail)
    )
    window = open_window(qtbot, captured, prefs)
    panel = timeline_of(qtbot, window, URL, 3)
    qtbot.waitUntil(lambda: panel.detail.timeline_model.loaded() == 3)
    assert threads == {"listed": {False}, "decoded": {False}}
    window.close()
