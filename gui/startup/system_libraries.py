"""Before Qt loads: are the system libraries its Linux platform plugins need installed?

PySide6's wheels bring Qt but not X11's xcb helper libraries, which a fresh desktop
often lacks; Qt then aborts with a message that names one library at a time. This
module tries each library the way Qt would load it (the dynamic loader, by soname) and
names every missing one with the packages that provide them. No Qt import here.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Library:
    soname: str
    debian: str  # the Debian/Ubuntu package
    fedora: str  # the Fedora/RHEL package


#: What every Qt GUI needs, whatever the platform plugin (offscreen included).
QT_GUI = (
    Library("libEGL.so.1", "libegl1", "libglvnd-egl"),
    Library("libGL.so.1", "libgl1", "libglvnd-glx"),
    Library("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    Library("libfreetype.so.6", "libfreetype6", "freetype"),
    Library("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
    Library("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
    Library("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    # Qt's GUI library links X11 itself, whatever the platform
    Library("libX11.so.6", "libx11-6", "libX11"),
)

#: What Qt's xcb (X11) platform plugin needs besides (from ``ldd libqxcb.so``).
XCB = (
    Library("libxcb.so.1", "libxcb1", "libxcb"),
    Library("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    Library("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    Library("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    Library("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    Library("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    Library("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    Library("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    Library("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    Library("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    Library("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    Library("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    Library("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    Library("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    Library("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    Library("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
)


#: What Qt's Wayland platform plugin needs besides (from ``ldd libqwayland.so``).
WAYLAND = (
    Library("libwayland-client.so.0", "libwayland-client0", "libwayland-client"),
    Library("libwayland-cursor.so.0", "libwayland-cursor0", "libwayland-cursor"),
)

PLATFORM_LIBRARIES = {"xcb": XCB, "wayland": WAYLAND}


def platforms(environ: Mapping[str, str]) -> list[str]:
    """The platform plugins Qt will try, in order: ``QT_QPA_PLATFORM``'s list when set
    (``wayland;xcb``, options after ``:``), else Wayland first in a Wayland session, then
    X11 (Qt falls back to xcb when the Wayland plugin cannot load)."""
    asked = environ.get("QT_QPA_PLATFORM", "").strip()
    if asked:
        return [entry.split(":")[0].strip() for entry in asked.split(";") if entry.strip()]
    return ["wayland", "xcb"] if environ.get("WAYLAND_DISPLAY") else ["xcb"]


def missing(libraries: tuple[Library, ...]) -> list[Library]:
    """Those the dynamic loader cannot find (loading one that exists changes nothing:
    Qt would load it next)."""
    absent = []
    for library in libraries:
        try:
            ctypes.CDLL(library.soname)
        except OSError:
            absent.append(library)
    return absent


def install_hint(absent: list[Library]) -> str:
    """One line: what is missing and the commands that install it."""
    debian = " ".join(dict.fromkeys(lib.debian for lib in absent))
    fedora = " ".join(dict.fromkeys(lib.fedora for lib in absent))
    names = ", ".join(lib.soname for lib in absent)
    return (
        f"the desktop app needs system libraries that are missing ({names}); "
        f"install them with `sudo apt install {debian}` (Debian, Ubuntu) "
        f"or `sudo dnf install {fedora}` (Fedora)"
    )


def check(environ: Mapping[str, str] = os.environ) -> str | None:
    """None when Qt can start here; otherwise the one line to print.

    Qt needs its GUI libraries and the libraries of one platform plugin it tries: the
    first whose libraries are all here is the one it will use. When none is complete,
    the line names what each lacks.
    """
    if not sys.platform.startswith("linux"):
        return None  # Qt's wheels bring what they need on Windows and macOS
    absent = missing(QT_GUI)
    lacking: list[Library] = []
    for name in platforms(environ):
        gaps = missing(PLATFORM_LIBRARIES.get(name, ()))
        if not gaps:
            lacking = []
            break
        lacking += gaps
    absent += lacking
    return install_hint(absent) if absent else None
