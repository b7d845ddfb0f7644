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


def test_the_capture_body_is_stepped_over_unread_by_its_index_length(project, capsys):
    import os

    from recrawl.core.archive.captures import all_captures

    body = os.urandom(30_000).hex()  # incompressible: the member's middle is the body
    shot = png(4, 3, RED)
    browser_captures(project.path, URL, [Capture(T0, f"<p>{body}</p>", shot)])
    (capture,) = all_captures(project.path, URL)
    assert capture.length is not None
    expected = screenshots.screenshot_offset(capture.path, capture.offset)
    assert expected is not None
    # a length that is not the record's (here into the gzip trailer, whose random bytes
    # warcio once read as no record at all): read through instead
    for short in range(1, 9):
        found = screenshots.screenshot_offset(capture.path, capture.offset, capture.length - short)
        assert found == expected, short
    # the body's compressed bytes spoilt: stepped over, they are never decompressed (warcio
    # says on stderr when it meets them) and the screenshot is found all the same
    with open(capture.path, "r+b") as fh:
        fh.seek(capture.offset + capture.length // 2)
        fh.write(b"\x00" * 64)
    capsys.readouterr()
    found = screenshots.screenshot_offset(capture.path, capture.offset, capture.length)
    assert found == expected and capsys.readouterr().err == ""
    assert screenshots.read_screenshot(capture.path, found) == shot
    screenshots.screenshot_offset(capture.path, capture.offset)  # read through: it meets them
    assert "decompressing" in capsys.readouterr().err


def test_a_revisit_keeps_its_own_screenshot(project):
    # the bytes did not change (a revisit record), the rendering did (a script's clock)
    before, after = png(4, 3, RED), png(4, 3, BLUE)
    browser_captures(
        project.path,
        URL,
        [Capture(T0, "<p>same</p>", before), Capture(T0 + timedelta(days=1), "<p>same</p>", after)],
    )
    found = screenshots.timeline(project.path, URL)
    assert [c.has_screenshot for c in found.captures] == [True, True]
    from recrawl.core.archive.warc import read_record

    assert read_record(found.captures[1].path, found.captures[1].offset).record_type == "revisit"
    pngs = [screenshots.read_screenshot(s.path, s.screenshot_offset) for s in found.shots]
    assert pngs == [before, after]
