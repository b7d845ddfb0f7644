"""Finding the Chromium to capture with (core/browser/chromium.py), and a browser that
is not there or is no browser: one line each, the crawl's loads given it as their error.
These need no Chromium."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from recrawl.core.browser.browser import Browser, child_environment
from recrawl.core.browser.chromium import find_chromium
from recrawl.core.errors import BrowserError, BrowserMissing

from tests.support.browsing import USER_AGENT, FromDict, capture_settings


def test_a_configured_chromium_that_is_not_there_is_said_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(BrowserMissing, match=r"capture\.chromium: no browser to run at"):
        find_chromium(str(tmp_path / "chromium"))
    assert find_chromium("/bin/true") == Path("/bin/true")


def test_without_chromium_the_browser_says_so_in_one_line(tmp_path: Path) -> None:
    async def run() -> None:
        chromium = Browser(capture_settings(chromium=str(tmp_path / "chromium")), USER_AGENT, 100)
        with pytest.raises(BrowserMissing) as raised:
            await chromium.start()
        assert "\n" not in str(raised.value)
        assert "capture.chromium" in str(raised.value)
        # a load is given it as its error
        page = await chromium.load("http://127.0.0.1:9/", 0, FromDict({}))
        assert page.error == str(raised.value) and page.dom == b""
        await chromium.close()  # safe without a process
        await chromium.close()

    asyncio.run(run())


def test_a_program_that_is_no_browser_fails_to_start_in_one_line() -> None:
    async def run() -> None:
        chromium = Browser(capture_settings(chromium="/bin/true"), USER_AGENT, 100)
        with pytest.raises(BrowserError) as raised:
            await chromium.start()
        assert "\n" not in str(raised.value) and "/bin/true" in str(raised.value)
        # a load says so as its error, and raises nothing
        page = await chromium.load("http://127.0.0.1:9/", 0, FromDict({}))
        assert page.error is not None and "did not start" in page.error
        await chromium.close()

    asyncio.run(run())


def test_the_browser_from_the_apps_bundle_loads_the_systems_libraries_not_the_bundles() -> None:
    bundled = {"HOME": "/h", "LD_LIBRARY_PATH": "/app/_internal", "LD_LIBRARY_PATH_ORIG": "/opt/x"}
    assert child_environment(bundled, frozen=True) == {"HOME": "/h", "LD_LIBRARY_PATH": "/opt/x"}
    assert child_environment({"LD_LIBRARY_PATH": "/app/_internal"}, frozen=True) == {}
    # run from source, the user's own LD_LIBRARY_PATH is theirs
    assert child_environment({"LD_LIBRARY_PATH": "/opt/x"}, frozen=False) == {
        "LD_LIBRARY_PATH": "/opt/x"
    }
