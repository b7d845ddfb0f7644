"""What the bundle leaves out: Qt plugins and translations Recrawl never loads, the
libraries only they needed, and the system libraries the app takes from the system
(recrawl.spec applies this to PyInstaller's Analysis on Linux).

PySide6's hooks collect every plugin of each Qt module in use, and PyInstaller then
collects every library those plugins link against (cairo and pango for the GTK theme,
libjpeg and libtiff for image formats, ...). Here the plugins are chosen first; then,
following each file's direct dependencies, a library stays only if something kept needs
it, so dropping a plugin drops its libraries too.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from collections.abc import Callable, Collection, Iterable
from pathlib import PurePosixPath

#: objdump's line before each file's headers
FILE_HEADER = re.compile(r"^(.+):\s+file format \S+$")
# PyInstaller's TOC entries: (path in the bundle, source path or link target, typecode)
Entry = tuple[str, str, str]

#: Qt plugins kept, by folder under PySide6/Qt/plugins; a folder not named here goes.
PLUGINS: dict[str, tuple[str, ...] | None] = {  # None: the whole folder
    # a Linux desktop on X11 or Wayland, and the offscreen self-test
    "platforms": ("libqxcb.so", "libqwayland.so", "libqoffscreen.so"),
    "xcbglintegrations": None,
    "wayland-decoration-client": None,
    "wayland-graphics-integration-client": None,
    "wayland-shell-integration": None,
    # desktop portals (file dialogs under Flatpak/GNOME/KDE); the GTK theme would bring
    # GTK's own libraries from the build machine, which clash with the user's GTK
    "platformthemes": ("libqxdgdesktopportal.so",),
    # typing with dead keys and input methods
    "platforminputcontexts": None,
    # the icons are SVG; PNG is built into QtGui
    "iconengines": ("libqsvgicon.so",),
    "imageformats": ("libqsvg.so",),
}

#: Data files left out: Qt's translations (Recrawl's interface is English only),
#: pyqtgraph's logo (only ``pg.mkQApp`` reads it, when pyqtgraph creates the application
#: itself; Recrawl creates its own first), and the sources and type stubs some wheels
#: ship beside their compiled modules. Babel's data (36 MB) comes with courlan, which
#: trafilatura imports; only courlan's language filter reads it, through
#: ``Locale.parse``, and Recrawl never sets a target language (the self-test extracts a
#: main text). jusText's stop lists (2.4 MB) serve trafilatura's fallback extraction
#: only, which its fast mode (the only one Recrawl runs: core/content/maintext.py) never
#: calls; trafilatura's TEI schema serves its TEI output only.
DROPPED_DATA_FOLDERS = (
    "PySide6/Qt/translations/",
    "pyqtgraph/icons/peegee/",
    "justext/stoplists/",
    "babel/locale-data/",
)
DROPPED_DATA_SUFFIXES = (
    ".c",
    ".h",
    ".pyx",
    ".pxd",
    ".pxi",
    ".pyi",
    "/tei_corpus.dtd",
    "babel/global.dat",
)


def keeps_plugin(dest: str) -> bool:
    parts = PurePosixPath(dest).parts
    if parts[:3] != ("PySide6", "Qt", "plugins") or len(parts) < 5:
        return True
    if parts[3] not in PLUGINS:
        return False
    names = PLUGINS[parts[3]]
    return names is None or parts[-1] in names


def keeps_data(dest: str) -> bool:
    return not dest.startswith(DROPPED_DATA_FOLDERS) and not dest.endswith(DROPPED_DATA_SUFFIXES)


def _is_wanted(dest: str) -> bool:
    """Wanted for itself: Python extensions, Qt plugins, the Python library the
    bootloader loads. Other shared libraries stay only if something wanted needs them."""
    path = PurePosixPath(dest)
    if "plugins" in path.parts:
        return True
    return not path.name.startswith("lib") or path.name.startswith("libpython")


def prune_binaries(
    binaries: Iterable[Entry],
    needs: Callable[[list[str]], dict[str, list[str]]],
    system: Collection[str],
) -> list[Entry]:
    """The binaries that survive the plugin choice, plus the libraries they need.

    ``needs(paths)`` names each file's direct dependencies (its ELF ``NEEDED`` entries).
    Libraries named in ``system`` come from the system, never the bundle, and what only
    they need goes with them: the app checks for them before Qt loads
    (gui/startup/system_libraries.py), and a build machine's X11, fontconfig or GLib beside the
    user's own graphics drivers is a known source of crashes.
    """
    entries = [e for e in binaries if keeps_plugin(e[0])]
    files = [e for e in entries if e[2] != "SYMLINK"]
    by_name: dict[str, list[Entry]] = {}
    for entry in files:
        by_name.setdefault(PurePosixPath(entry[0]).name, []).append(entry)
    dependencies = needs([e[1] for e in files])
    kept: set[str] = set()
    queue = [e for e in files if _is_wanted(e[0])]
    while queue:
        dest, source, _kind = queue.pop()
        if dest in kept:
            continue
        kept.add(dest)
        for name in dependencies.get(source, []):
            if name not in system:
                queue += by_name.get(name, [])
    return without_dangling_links([e for e in entries if e[2] == "SYMLINK" or e[0] in kept], kept)


def without_dangling_links(entries: Iterable[Entry], present: Collection[str]) -> list[Entry]:
    """A link stays when what it points at stays (PyInstaller links Qt's libraries from
    the top of the bundle to PySide6/Qt/lib, in its binaries or its data)."""
    return [e for e in entries if e[2] != "SYMLINK" or _link_target(e) in present]


def elf_needed(paths: list[str]) -> dict[str, list[str]]:
    """Each file's direct dependencies, from ``objdump -p`` (PyInstaller itself needs
    binutils on Linux); a file objdump cannot read needs nothing."""
    needed: dict[str, list[str]] = {}
    current: list[str] = []
    for start in range(0, len(paths), 100):
        done = subprocess.run(
            ["objdump", "-p", *paths[start : start + 100]],
            capture_output=True,
            text=True,
        )
        for line in done.stdout.splitlines():
            if (header := FILE_HEADER.match(line)) is not None:
                current = needed.setdefault(header.group(1), [])
            elif line.strip().startswith("NEEDED"):
                current.append(line.split()[1])
    return needed


def _link_target(entry: Entry) -> str:
    dest, target, _kind = entry
    return posixpath.normpath(posixpath.join(posixpath.dirname(dest), target))
