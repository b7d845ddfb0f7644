"""Each site's capture mode: ``capture.mode@HOST``, kept apart from the project-wide mode,
carried into the crawl's settings and read with ``CaptureSettings.mode_for``."""

from __future__ import annotations

import re

import pytest
from recrawl.core import store
from recrawl.core.config import CaptureSettings
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import capture_modes, crawl_settings


def test_the_longest_entry_covering_a_host_decides_its_mode():
    capture = CaptureSettings(
        mode="http",
        host_modes=(("example.org", "browser"), ("static.example.org", "http")),
    )
    assert capture.mode_for("example.org") == "browser"
    assert capture.mode_for("www.example.org") == "browser"  # a domain covers its hosts
    assert capture.mode_for("WWW.Example.org.") == "browser"
    assert capture.mode_for("static.example.org") == "http"  # the longer entry
    assert capture.mode_for("img.static.example.org") == "http"
    assert capture.mode_for("notexample.org") == "http"  # not a host under it
    assert capture.mode_for("example.net") == "http"
    everywhere = CaptureSettings(mode="browser", host_modes=(("example.org", "http"),))
    assert everywhere.mode_for("other.example") == "browser"
    assert CaptureSettings().mode_for("anything.example") == "http"


@pytest.mark.parametrize(
    ("text", "host"),
    [("Example.ORG", "example.org"), ("www.example.org.", "www.example.org"),
     ("bücher.de", "xn--bcher-kva.de"), ("127.0.0.2", "127.0.0.2")],
)  # fmt: skip
def test_a_host_is_kept_as_pages_carry_it(text, host):
    assert capture_modes.host_entry(text) == host


@pytest.mark.parametrize(
    ("text", "says"),
    [("", "names no host"), ("http://example.org", "not a host name"),
     ("example.org/news", "not a host name"), ("example.org:8080", "no scheme, port"),
     ("exa mple.org", "not a host name"), ("-bad-.example", "malformed host")],
)  # fmt: skip
def test_a_bad_host_is_one_line_naming_the_setting(text, says):
    with pytest.raises(InvalidArgument) as refused:
        capture_modes.host_entry(text)
    message = str(refused.value)
    assert message.startswith(f"capture.mode@{text}: ") and says in message
    assert "\n" not in message


def test_kept_host_modes_reach_the_crawls_settings(project):
    kept = crawl_settings.save(
        {"capture.mode@Example.org": "browser", "capture.mode@cdn.example.org": "http"}
    )
    assert kept == {"capture.mode@cdn.example.org": "http", "capture.mode@example.org": "browser"}
    assert store.get_setting(capture_modes.KEY) == {
        "cdn.example.org": "http",
        "example.org": "browser",
    }
    capture = crawl_settings.project_crawl_settings().capture
    assert capture.mode == "http"
    assert capture.mode_for("www.example.org") == "browser"
    assert capture.mode_for("cdn.example.org") == "http"
    crawl_settings.save({"capture.mode@example.org": None})  # the project-wide mode again
    assert crawl_settings.project_crawl_settings().capture.host_modes == (
        ("cdn.example.org", "http"),
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"capture.mode@example.org": "chrome"},
      "capture.mode@example.org: must be http or browser, not 'chrome'"),
     ({"capture.mode@example.org/x": "browser"}, "capture.mode@example.org/x: not a host name")],
)  # fmt: skip
def test_a_bad_host_mode_saves_nothing(project, changes, message):
    crawl_settings.save({"capture.mode@example.net": "browser"})
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        crawl_settings.save({"politeness.delay": 3.0, **changes})
    assert crawl_settings.stored() == {}
    assert capture_modes.host_modes() == {"example.net": "browser"}
