"""Before Qt loads: is there a display for the app's window?

Without one Qt aborts the whole process (SIGABRT, exit status 134) with a hint to
reinstall the application, which is wrong. This module finds out first, the way Qt's
platform plugins would: on X11 it connects to ``DISPLAY`` with libxcb (what Qt's xcb
plugin calls), on Wayland to ``WAYLAND_DISPLAY`` with libwayland-client, and disconnects
at once. No Qt import here.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

from recrawl.gui.startup.system_libraries import platforms

#: What to do instead, the same in every message.
HOW_TO_RUN = (
    "run it in a desktop session, under a virtual display with `xvfb-run recrawl gui`, "
    "or use the command line (`recrawl --help`)"
)

#: The platform plugins that draw on a screen that may be missing; any other one asked
#: for by QT_QPA_PLATFORM (offscreen, vnc, eglfs, linuxfb...) is the user's choice.
_SCREEN_PLATFORMS = ("xcb", "wayland", "wayland-egl")


def problem(environ: Mapping[str, str] = os.environ) -> str | None:
    """None when Qt will find a display here; otherwise the one line to print."""
    if not sys.platform.startswith("linux"):
        return None  # Windows and macOS always have their window system
    asked = platforms(environ)
    if any(name not in _SCREEN_PLATFORMS for name in asked):
        return None
    chosen = bool(environ.get("QT_QPA_PLATFORM", "").strip())
    x11 = environ.get("DISPLAY", "")
    wayland = environ.get("WAYLAND_DISPLAY", "")
    wants_wayland = any(name.startswith("wayland") for name in asked)
    tried: list[str] = []
    # Wayland asked for by name connects to its default display when none is set
    if wants_wayland and (wayland or chosen):
        runtime = environ.get("XDG_RUNTIME_DIR", "")
        if _reachable(lambda name: _wayland_connects(name, runtime), wayland or None):
            return None
        tried.append(f"WAYLAND_DISPLAY={wayland}" if wayland else "the default Wayland display")
    if x11 and "xcb" in asked:
        if _reachable(_x11_connects, x11):
            return None
        tried.append(f"DISPLAY={x11}")
    if tried:
        return (
            f"cannot connect to the display ({', '.join(tried)}) for the app's window: {HOW_TO_RUN}"
        )
    unset = "neither DISPLAY nor WAYLAND_DISPLAY is set" if not chosen else "DISPLAY is not set"
    return f"no display for the app's window ({unset}): {HOW_TO_RUN}"


def _reachable(connects: Callable[[str | None], bool | None], name: str | None) -> bool:
    """Whether a client connects; True when the library is missing (then the system
    libraries' check names it, and Qt would not get this far either)."""
    answer = connects(name)
    return True if answer is None else answer


def _x11_connects(display: str | None) -> bool | None:
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    # xcb_connect never returns NULL: a failed connection is an object in an error state
    connection = xcb.xcb_connect(display.encode() if display else None, None)
    try:
        return bool(xcb.xcb_connection_has_error(connection) == 0)
    finally:
        xcb.xcb_disconnect(connection)


def _wayland_connects(display: str | None, runtime_dir: str) -> bool | None:
    if not runtime_dir and not (display or "").startswith("/"):
        # libwayland looks for a relative display's socket in XDG_RUNTIME_DIR: without
        # it there is none to connect to (and it would print a line of its own)
        return False
    try:
        wayland = ctypes.CDLL("libwayland-client.so.0")
    except OSError:
        return None
    wayland.wl_display_connect.restype = ctypes.c_void_p
    wayland.wl_display_connect.argtypes = [ctypes.c_char_p]
    wayland.wl_display_disconnect.argtypes = [ctypes.c_void_p]
    connection = wayland.wl_display_connect(display.encode() if display else None)
    if not connection:
        return False
    wayland.wl_display_disconnect(connection)
    return True
