"""The check for Qt's system libraries, run before Qt loads (gui/startup/system_libraries.py).

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
from recrawl.gui.startup.system_libraries import (
    QT_GUI,
    WAYLAND,
    XCB,
    Library,
    check,
    install_hint,
    missing,
    platforms,
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
    ("environ", "tried"),
    [
        ({}, ["xcb"]),  # X11 is Qt's default on Linux...
        ({"WAYLAND_DISPLAY": "wayland-0"}, ["wayland", "xcb"]),  # ...Wayland first in its
        ({"QT_QPA_PLATFORM": "xcb"}, ["xcb"]),  # session, falling back to X11
        ({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}, ["xcb"]),  # asked for
        ({"QT_QPA_PLATFORM": "xcb:dpitodpi=96"}, ["xcb"]),  # a plugin option
        ({"QT_QPA_PLATFORM": "offscreen"}, ["offscreen"]),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, ["wayland", "xcb"]),  # a list, in order
        ({"QT_QPA_PLATFORM": "  "}, ["xcb"]),  # blank is unset
    ],
)
def test_platforms_are_those_qt_will_try_in_order(environ, tried):
    assert platforms(environ) == tried


def test_the_lists_name_each_library_once():
    every = QT_GUI + XCB + WAYLAND
    assert len({lib.soname for lib in every}) == len(every)
    assert "libX11.so.6" in {lib.soname for lib in QT_GUI}  # Qt's GUI links it, offscreen too


@linux_only
def test_check_passes_where_qt_already_runs(monkeypatch):
    # these tests run Qt offscreen in this process: what that needs is here
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert check() is None


def _without(*sonames: str, folder: Path, wayland: bool = False) -> dict[str, str]:
    """An environment (for xcb, or a Wayland session) whose loader finds an unloadable
    file first for each of ``sonames``."""
    folder.mkdir()
    for soname in sonames:
        (folder / soname).write_bytes(b"")
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    if wayland:
        env["WAYLAND_DISPLAY"] = "wayland-0"
    else:
        env["QT_QPA_PLATFORM"] = "xcb"
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (str(folder), os.environ.get("LD_LIBRARY_PATH", "")) if p
    )
    return env


@linux_only
@pytest.mark.slow
def test_recrawl_gui_names_a_missing_library_instead_of_a_qt_abort(tmp_path):
    env = _without(CURSOR.soname, folder=tmp_path / "libs")
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
        "from recrawl.gui.startup.system_libraries import check\n"
        "print(check())\n"
        "assert not [m for m in sys.modules if m.startswith('PySide6')], 'Qt loaded'\n"
    )
    env = _without(CURSOR.soname, folder=tmp_path / "libs")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert CURSOR.soname in done.stdout


CLIENT = WAYLAND[0]


def _check_in(env: dict[str, str]) -> str:
    code = "from recrawl.gui.startup.system_libraries import check\nprint(check())\n"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@linux_only
@pytest.mark.slow
def test_a_wayland_session_falls_back_to_x11_and_names_both_when_neither_can_load(tmp_path):
    # without its Wayland library, Qt falls back to X11: fine while X11's are all here...
    env = _without(CLIENT.soname, folder=tmp_path / "one", wayland=True)
    fallback = _check_in(env)
    # ...and when X11's lack one too, the line names what each plugin lacks
    env = _without(CLIENT.soname, CURSOR.soname, folder=tmp_path / "both", wayland=True)
    line = _check_in(env)
    assert CLIENT.soname in line and CURSOR.soname in line
    assert CLIENT.debian in line and CURSOR.debian in line
    if not missing(XCB):  # a machine with every X11 library (CI installs them)
        assert fallback == "None"
