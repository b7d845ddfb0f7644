"""The Debian packages Qt needs on Linux, as gui/startup/system_libraries.py lists them.

    python3 packaging/system_packages.py              all of them, space-separated
    python3 packaging/system_packages.py --missing    those dpkg has not installed (.ci/run)
    python3 packaging/system_packages.py --install    install what is missing (make run)
    python3 packaging/system_packages.py --install --dry-run    print what that would run

``--install`` does something only where a library Qt loads is missing (the dynamic
loader cannot find it, as the app's own check asks): with apt-get, the Debian packages
of those libraries that dpkg has not installed; with dnf, their Fedora packages. As
root it runs the package manager itself, otherwise through sudo (which asks for the
password once). Without apt-get or dnf it installs nothing: the app then names what is
missing and the command that installs it.

One list, kept where the app checks for it: this reads the module from the source tree
by its path, so it runs with any Python 3.11 (no venv, no Recrawl install, no Qt).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _system_libraries() -> ModuleType:
    name = "recrawl_system_libraries"
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "gui" / "startup" / "system_libraries.py"
    )
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


#: How ``--install`` introduces what it says.
SAYS = "make run:"


@dataclass(frozen=True)
class Plan:
    """What ``--install`` would do here."""

    libraries: list[str]  # the sonames the loader cannot find
    install: list[str] | None  # the command that installs their packages (as root)
    update: list[str] | None  # what reads the package lists, when the install fails


def plan() -> Plan:
    libraries = _system_libraries()
    absent = libraries.missing(qt_system_libraries())
    names = [lib.soname for lib in absent]
    if absent and shutil.which("apt-get") is not None:
        wanted = list(dict.fromkeys(lib.debian for lib in absent))
        packages = not_installed(wanted) if shutil.which("dpkg-query") else wanted
        if packages:  # else: installed, yet not found; not a package manager's to mend
            command = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
            return Plan(names, command, ["apt-get", "update"])
    elif absent and shutil.which("dnf") is not None:
        packages = list(dict.fromkeys(lib.fedora for lib in absent))
        return Plan(names, ["dnf", "install", "-y", *packages], None)
    return Plan(names, None, None)


def _as_root(command: list[str]) -> list[str] | None:
    """``command`` as root: itself for root, through sudo otherwise (None: no sudo)."""
    if os.geteuid() == 0:
        return command
    if shutil.which("sudo") is None:
        return None
    return ["sudo", *command]


def install(dry_run: bool = False) -> int:
    """Install the system packages of the libraries Qt cannot load; 0 when there was
    nothing to do, nothing this can do (the app will say what is missing), or it worked."""
    if not sys.platform.startswith("linux"):
        return 0  # Qt's wheels bring what they need on Windows and macOS
    what = plan()
    if what.install is None:
        return 0
    missing = ", ".join(what.libraries)
    command = _as_root(what.install)
    if command is None:
        print(
            f"{SAYS} the desktop app needs system libraries that are missing ({missing}); "
            f"install them as root: {shlex.join(what.install)}",
            file=sys.stderr,
        )
        return 1
    print(
        f"{SAYS} installing the system libraries Qt needs ({missing}): {shlex.join(command)}",
        file=sys.stderr,
        flush=True,
    )
    if dry_run:
        return 0
    status = subprocess.run(command).returncode
    update = _as_root(what.update) if what.update else None
    if status != 0 and update is not None:
        # a fresh system's package lists may be missing or stale: read them, then again
        print(
            f"{SAYS} that failed; reading the package lists first: {shlex.join(update)}",
            file=sys.stderr,
            flush=True,
        )
        if subprocess.run(update).returncode == 0:
            status = subprocess.run(command).returncode
    if status != 0:
        print(f"{SAYS} {shlex.join(command)} failed (exit status {status})", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    arguments = sys.argv[1:]
    if "--install" in arguments:
        return install(dry_run="--dry-run" in arguments)
    packages = debian_packages()
    if "--missing" in arguments:
        packages = not_installed(packages)
    print(" ".join(packages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
