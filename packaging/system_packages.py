"""The Debian packages Qt needs on Linux, as gui/system_libraries.py lists them.

    python3 packaging/system_packages.py              all of them, space-separated
    python3 packaging/system_packages.py --missing    those dpkg has not installed (.ci/run)

One list, kept where the app checks for it: this reads the module from the source tree
by its path, so it runs with any Python 3.11 (no venv, no Recrawl install, no Qt).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _system_libraries() -> ModuleType:
    name = "recrawl_system_libraries"
    spec = importlib.util.spec_from_file_location(name, ROOT / "gui" / "system_libraries.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def qt_system_libraries() -> tuple[Any, ...]:
    """What a Qt GUI needs plus what the xcb (X11) platform plugin needs
    (``Library`` values: soname, Debian and Fedora packages)."""
    libraries = _system_libraries()
    return (*libraries.QT_GUI, *libraries.XCB)


def debian_packages() -> list[str]:
    return list(dict.fromkeys(lib.debian for lib in qt_system_libraries()))


def not_installed(packages: list[str]) -> list[str]:
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n", *packages],
        capture_output=True,
        text=True,
    )
    installed = {
        line.split()[0].split(":")[0]
        for line in done.stdout.splitlines()
        if line.endswith(" installed")
    }
    return [name for name in packages if name not in installed]


def main() -> int:
    packages = debian_packages()
    if "--missing" in sys.argv[1:]:
        packages = not_installed(packages)
    print(" ".join(packages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
