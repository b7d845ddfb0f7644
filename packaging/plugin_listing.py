"""Empty stand-ins for the modules a package finds by listing its own folder (Apprise).

Apprise loads its notification services (and its attachment and configuration kinds) by
listing ``apprise/plugins`` (``attachment``, ``config``) and importing each name found
there. In the bundle its modules live in the archive, so that folder is not on disk: the
listing finds nothing, and no ``json://`` or ``mailto://`` URL is understood. An empty
file per module (a package's ``__init__.py``, making its folder) gives the listing its
names, and the import still loads the archived module: PyInstaller's finder looks in the
archive first. Laying out the modules' own sources instead ("pyz+py") costs 5.9 MB.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

#: The folders Apprise lists, as module prefixes.
LISTED = ("apprise.plugins", "apprise.attachment", "apprise.config")

Entry = tuple[str, str, str]


def stand_ins(pure: Iterable[Entry], empty: Path) -> list[Entry]:
    """DATA entries (destination, source, kind) of an empty file for each module directly
    in a listed folder, out of the analysis's ``pure`` modules (name, path, kind)."""
    out: list[Entry] = []
    for name, path, _kind in pure:
        parent = name.rpartition(".")[0]
        if parent not in LISTED:
            continue
        folder = name.replace(".", "/")
        is_package = Path(path).name == "__init__.py"
        out.append((f"{folder}/__init__.py" if is_package else f"{folder}.py", str(empty), "DATA"))
    return sorted(out)
