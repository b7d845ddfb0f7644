"""The Chromium the browser-capture tests run, found as the crawl finds it
(core/browser/chromium.py), or the test skipped where there is none, unless
``RECRAWL_REQUIRE_CHROMIUM=1`` (CI sets it, and installs Debian's chromium: a missing
browser must not pass as green)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from recrawl.core.browser.chromium import find_chromium
from recrawl.core.errors import BrowserMissing


def chromium_or_skip() -> Path:
    try:
        return find_chromium()
    except BrowserMissing as exc:
        if os.environ.get("RECRAWL_REQUIRE_CHROMIUM") == "1":
            pytest.fail(f"RECRAWL_REQUIRE_CHROMIUM=1: {exc}")
        pytest.skip(str(exc))
