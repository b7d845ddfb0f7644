"""What the timeline's line says and which thumbnails its model asks for, from plain timelines."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from PySide6.QtGui import QImage
from recrawl.core.archive.screenshots import CaptureShot, Timeline
from recrawl.gui.pages.timeline_model import TimelineModel, timeline_summary

from tests.support.crawling import T0

WARC = Path("/nowhere/x.warc.gz")


def shots(*kept: bool) -> tuple[CaptureShot, ...]:
    return tuple(
        CaptureShot(T0 + timedelta(days=n), WARC, 100 * n, 100 * n + 50 if keep else None)
        for n, keep in enumerate(kept)
    )


def test_the_line_counts_the_screenshots_of_the_captures_looked_at():
    assert timeline_summary(None) == ""
    assert timeline_summary(Timeline("u", shots(False, False), 2)) == ""
    assert timeline_summary(Timeline("u", shots(True), 1)) == (
        "Screenshots of its 1 capture, oldest first; click one to see it larger"
    )
    assert timeline_summary(Timeline("u", shots(True, True), 1200)) == (
        "Screenshots of its latest 2 captures (of 1,200), oldest first; click one to see it larger"
    )
    assert timeline_summary(Timeline("u", shots(True, False), 2, ("WARC file missing: x",))) == (
        "Screenshots of 1 of its 2 captures (the others were fetched over HTTP), oldest "
        "first; click one to see it larger. 1 capture could not be read: WARC file missing: x"
    )


def test_each_thumbnail_is_asked_for_once_and_kept_when_the_timeline_is_found_again(qtbot):
    model = TimelineModel()
    first = Timeline("u", shots(True, False, True), 3)
    model.set_timeline(first)
    assert model.rowCount() == 2
    a, b = first.shots
    assert model.to_load([0, 1, 7]) == [a, b]
    assert model.to_load([0, 1]) == []  # asked already
    image = QImage(4, 4, QImage.Format.Format_RGBA8888)
    model.set_thumbnail(a, image)
    # the next round's capture added: the decoded one kept, the pending one asked again
    # (its request, of the timeline shown before, is skipped by the loader)
    again = Timeline("u", shots(True, False, True, True), 4)
    model.set_timeline(again)
    assert model.loaded() == 1
    assert model.to_load(range(3)) == [b, again.shots[2]]
    # a thumbnail of a page no longer shown is dropped
    model.set_timeline(Timeline("v", shots(False, True), 2))
    model.set_thumbnail(b, image)
    assert model.loaded() == 0
