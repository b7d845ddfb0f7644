"""The check for Qt's system libraries, run before Qt loads (gui/system_libraries.py).

The loader is the real one: a library every Linux has is found, a made-up soname is
not. For the whole command, a library the loader cannot load is put first on its
search path (an empty file under the library's soname), so the test gives the same
answer on a desktop that has every xcb library and on one that lacks some.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from recrawl.gui.system_libraries import (
    QT_GUI,
    XCB,
    Library,
    check,
    install_hint,
    missing,
    needed,
    uses_xcb,
)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's loader")

LIBC = Library("libc.so.6", "libc6", "glibc")
MADE_UP = Library("librecrawl-no-such-library.so.7", "librecrawl-none7", "recrawl-none")
#: The library the issue saw missing first on a fresh Debian desktop.
CURSOR = next(lib for lib in XCB if lib.soname == "libxcb-cursor.so.0")


@linux_only
def test_missing_asks_the_dynamic_loader():
    assert missing((LIBC,)) == []
    assert missing((MADE_UP,)) == [MADE_UP]
    assert missing((MADE_UP, LIBC, MADE_UP)) == [MADE_UP, MADE_UP]  # in the order asked


def test_the_install_hint_is_one_line_naming_each_package_once():
    randr, shape = (
        next(lib for lib in XCB if lib.soname == s)
        for s in ("libxcb-randr.so.0", "libxcb-shape.so.0")
    )
    assert randr.fedora == shape.fedora == "libxcb"  # two sonames, one Fedora package
    hint = install_hint([CURSOR, randr, shape])
    assert "\n" not in hint
    assert "libxcb-cursor.so.0, libxcb-randr.so.0, libxcb-shape.so.0" in hint
    assert "`sudo apt install libxcb-cursor0 libxcb-randr0 libxcb-shape0`" in hint
    assert "`sudo dnf install xcb-util-cursor libxcb`" in hint


@pytest.mark.parametrize(
    ("environ", "xcb"),
    [
        ({}, True),  # X11 is Qt's default on Linux...
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),  # ...unless a Wayland session runs
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}, True),  # asked for
        ({"QT_QPA_PLATFORM": "xcb:dpitodpi=96"}, True),  # a plugin option
        ({"QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": "wayland"}, False),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, False),  # the first choice is the one used
        ({"QT_QPA_PLATFORM": "xcb;wayland"}, True),
        ({"QT_QPA_PLATFORM": "  "}, True),  # blank is unset
    ],
)
def test_uses_xcb_follows_the_platform_qt_will_pick(environ, xcb):
    assert uses_xcb(environ) is xcb


def test_needed_adds_the_xcb_libraries_only_for_xcb(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    assert needed({"QT_QPA_PLATFORM": "offscreen"}) == QT_GUI
    assert needed({"QT_QPA_PLATFORM": "xcb"}) == QT_GUI + XCB
    assert needed({"WAYLAND_DISPLAY": "wayland-0"}) == QT_GUI
    assert len({lib.soname for lib in QT_GUI + XCB}) == len(QT_GUI + XCB)
    monkeypatch.setattr(sys, "platform", "darwin")  # Qt brings what it needs there
    assert needed({"QT_QPA_PLATFORM": "xcb"}) == ()


@linux_only
def test_check_passes_where_qt_already_runs(monkeypatch):
    # these tests run Qt offscreen in this process: what that needs is here
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert check() is None


def _without(soname: str, folder: Path) -> dict[str, str]:
    """An environment for xcb whose loader finds an unloadable ``soname`` first."""
    folder.mkdir()
    (folder / soname).write_bytes(b"")
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    env["QT_QPA_PLATFORM"] = "xcb"
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (str(folder), os.environ.get("LD_LIBRARY_PATH", "")) if p
    )
    return env


@linux_only
@pytest.mark.slow
def test_recrawl_gui_names_a_missing_library_instead_of_a_qt_abort(tmp_path):
    env = _without(CURSOR.soname, tmp_path / "libs")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "recrawl", "gui", str(tmp_path / "proj")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1  # an error exit, not SIGABRT (-6) from Qt
    imported = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert imported and not any("PySide6" in line for line in imported)  # Qt never loaded
    said = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    assert len(said) == 1, said
    (line,) = said
    assert line.startswith("recrawl: error: the desktop app needs system libraries")
    assert CURSOR.soname in line
    assert "sudo apt install " in line and CURSOR.debian in line
    assert "sudo dnf install " in line and CURSOR.fedora in line
    assert done.stdout == ""
    assert not (tmp_path / "proj").exists()  # nothing was started


@linux_only
@pytest.mark.slow
def test_the_check_itself_loads_no_qt(tmp_path):
    code = (
        "import sys\n"
        "from recrawl.gui.system_libraries import check\n"
        "print(check())\n"
        "assert not [m for m in sys.modules if m.startswith('PySide6')], 'Qt loaded'\n"
    )
    env = _without(CURSOR.soname, tmp_path / "libs")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert CURSOR.soname in done.stdout
