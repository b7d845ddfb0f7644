"""Finding the Chromium to capture with: the setting's, Debian's package, or the PATH."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from recrawl.core.errors import BrowserMissing

#: Where distributions put the browser binary itself. Debian's ``/usr/bin/chromium`` is a
#: shell script around it that reads ``/etc/chromium.d``; the binary starts sooner and
#: keeps the pipes the crawl talks to it on.
KNOWN_BINARIES = ("/usr/lib/chromium/chromium", "/usr/lib64/chromium-browser/chromium-browser")
#: Names on the PATH, in order of preference.
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MISSING = (
    "browser capture needs Chromium, which is not installed: install Debian's chromium "
    "package (apt install chromium), or set capture.chromium to its path"
)


def find_chromium(configured: str = "") -> Path:
    """The browser to start; raises :class:`BrowserMissing` (one line) when there is none."""
    if configured:
        path = Path(configured).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise BrowserMissing(f"capture.chromium: no browser to run at {path}")
        return path
    for known in KNOWN_BINARIES:
        if os.access(known, os.X_OK):
            return Path(known)
    for name in PATH_NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    raise BrowserMissing(MISSING)
