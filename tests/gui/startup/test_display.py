"""``recrawl gui`` without a display says so in one line and exits 1 (gui/startup/display.py),
instead of Qt's abort (exit status 134) with its hint to reinstall.

The displays are real: none at all, one named that nothing serves, and a real Xvfb.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.gui.startup.display import problem

from tests.support.interrupted import ROOT

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 and Wayland")

#: What every message says to do instead.
ADVICE = "`xvfb-run recrawl gui`, or use the command line (`recrawl --help`)"
SCREEN_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_RUNTIME_DIR")


def _free_display() -> str:
    """An X display number no server here listens on (no socket, no lock file)."""
    number = next(
        n
        for n in range(90, 200)
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists()
    )
    return f":{number}"


def _recrawl_gui(tmp_path: Path, *args: str, **screen: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in SCREEN_VARIABLES}
    env |= {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), **screen}
    return subprocess.run(
        [sys.executable, "-m", "recrawl", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@linux_only
@pytest.mark.parametrize("args", [("gui",), ()])
def test_without_a_display_recrawl_says_so_and_exits_1(tmp_path, args):
    done = _recrawl_gui(tmp_path, *args)
    assert done.returncode == 1, done.stderr  # not Qt's SIGABRT (134, or -6)
    assert done.stderr == (
        "recrawl: error: no display for the app's window (neither DISPLAY nor "
        "WAYLAND_DISPLAY is set): run it in a desktop session, under a virtual display "
        f"with {ADVICE}\n"
    )
    assert done.stdout == ""
    assert not (tmp_path / "data").exists()  # no default project made for nothing


@linux_only
def test_a_display_nothing_serves_is_named_in_one_line(tmp_path):
    display = _free_display()
    done = _recrawl_gui(tmp_path, "gui", str(tmp_path / "proj"), DISPLAY=display)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(
        f"recrawl: error: cannot connect to the display (DISPLAY={display}) for the app's window"
    )
    assert ADVICE in done.stderr


@linux_only
def test_an_unreachable_wayland_display_is_named_without_libwaylands_own_line(tmp_path):
    done = _recrawl_gui(tmp_path, "gui", WAYLAND_DISPLAY="recrawl-no-such-wayland")
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "(WAYLAND_DISPLAY=recrawl-no-such-wayland)" in done.stderr and ADVICE in done.stderr


@pytest.mark.parametrize(
    "environ",
    [
        {"QT_QPA_PLATFORM": "offscreen"},  # what the tests and the self-test use
        {"QT_QPA_PLATFORM": "vnc"},  # a platform with a screen of its own
        {"QT_QPA_PLATFORM": "xcb;offscreen"},  # Qt falls back to one that needs none
    ],
)
def test_a_platform_that_needs_no_display_is_left_to_qt(environ):
    assert problem(environ) is None


@linux_only
def test_qt_forced_to_x11_without_display_is_told():
    line = problem({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"})
    assert line is not None and line.startswith("no display for the app's window (DISPLAY is")


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A real X server (Xvfb) for the test: its display, once it accepts connections."""
    if shutil.which("Xvfb") is None:
        pytest.skip("no Xvfb here (Debian: apt install xvfb; .ci/run installs it)")
    read, write = os.pipe()
    server = subprocess.Popen(
        # -noreset: by default the server resets when its last client leaves, and a
        # connection made during the reset fails (the second check, now and then)
        [
            "Xvfb",
            "-displayfd",
            str(write),
            "-noreset",
            "-nolisten",
            "tcp",
            "-screen",
            "0",
            "640x480x24",
        ],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as ready:  # Xvfb writes its number here once it serves
            number = ready.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=30)


@linux_only
def test_a_display_that_answers_is_fine(xvfb):
    assert problem({"DISPLAY": xvfb}) is None
    # in a Wayland session whose compositor is gone, Qt falls back to X11: fine too
    assert problem({"DISPLAY": xvfb, "WAYLAND_DISPLAY": "recrawl-no-such-wayland"}) is None
