"""A page's screenshots listed from the records' headers, and each read when asked for.

The captures are written by the segment writer as a browser round writes them (a
response, its request, its DOM and screenshot), with an HTTP capture between two
browser ones.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from recrawl.core.archive import screenshots
from recrawl.core.archive.rendering import rendering_at
from recrawl.core.errors import MissingFile, NotFound, WarcError

from tests.support.crawling import T0
from tests.support.screenshots import Capture, browser_captures, png

URL = "http://127.0.0.1:9/news"
RED = (255, 0, 0, 255)
BLUE = (0, 0, 255, 255)


@pytest.fixture
def captured(project):
    first, third = png(4, 3, RED), png(4, 3, BLUE)
    browser_captures(
        project.path,
        URL,
        [
            Capture(T0, "<p>one</p>", first),
            Capture(T0 + timedelta(days=1), "<p>two</p>", None),
            Capture(T0 + timedelta(days=2), "<p>three</p>", third),
        ],
    )
    return project, first, third


def test_the_timeline_says_which_captures_have_a_screenshot_oldest_first(captured):
    project, first, third = captured
    found = screenshots.timeline(project.path, URL)
    assert found.total == 3 and not found.problems
    assert [c.date for c in found.captures] == [T0 + timedelta(days=d) for d in range(3)]
    assert [c.has_screenshot for c in found.captures] == [True, False, True]
    assert [c.date for c in found.shots] == [T0, T0 + timedelta(days=2)]
    # each offset is where the record is: the PNG read there is the one written, as
    # rendering_at (which reads every body) finds it
    pngs = [screenshots.read_screenshot(s.path, s.screenshot_offset) for s in found.shots]
    assert pngs == [first, third]
    assert [rendering_at(s.path, s.offset).screenshot for s in found.shots] == pngs


def test_the_timeline_looks_at_the_latest_captures_only(captured):
    project, _, _ = captured
    found = screenshots.timeline(project.path, URL, limit=2)
    assert found.total == 3
    assert [c.date for c in found.captures] == [T0 + timedelta(days=1), T0 + timedelta(days=2)]


def test_a_record_that_is_no_screenshot_is_refused(captured):
    project, _, _ = captured
    shot = screenshots.timeline(project.path, URL).shots[0]
    with pytest.raises(WarcError, match="no screenshot record"):
        screenshots.read_screenshot(shot.path, shot.offset)  # the response itself


def test_the_screenshot_at_an_instant_is_of_the_latest_capture_that_kept_one(captured):
    project, first, third = captured
    assert screenshots.screenshot_at(project.path, URL) == (T0 + timedelta(days=2), third)
    # the capture of day 1 was fetched over HTTP: day 0's is the one at or before it
    assert screenshots.screenshot_at(project.path, URL, T0 + timedelta(days=1)) == (T0, first)
    with pytest.raises(NotFound, match="no capture of"):
        screenshots.screenshot_at(project.path, URL, T0 - timedelta(seconds=1))


def test_a_page_without_screenshots_lists_none(project):
    browser_captures(project.path, URL, [Capture(T0, "<p>one</p>", None)])
    found = screenshots.timeline(project.path, URL)
    assert found.total == 1 and found.shots == ()
    with pytest.raises(NotFound, match="has a screenshot"):
        screenshots.screenshot_at(project.path, URL)


def test_a_missing_file_is_a_problem_of_its_capture_not_of_the_timeline(captured):
    project, _, _ = captured
    gone = screenshots.timeline(project.path, URL).captures[0]
    gone.path.unlink()
    with pytest.raises(MissingFile):
        screenshots.screenshot_offset(gone.path, gone.offset)
    found = screenshots.timeline(project.path, URL)
    assert [c.has_screenshot for c in found.captures] == [False, False, True]
    assert len(found.problems) == 1 and "missing" in found.problems[0]
