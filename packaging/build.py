"""Build the desktop bundle into dist/recrawl/ and, on Linux, the .deb and .tar.gz.

    python packaging/build.py        (make package)

1. Stages Recrawl as its wheel installs it (build/stage), for PyInstaller to analyse.
2. Renders the app icon from resources/icons/app.svg (PNG sizes, ICO, ICNS: build/icons).
3. Runs PyInstaller on packaging/recrawl.spec (which trims what Recrawl never loads).
4. Linux: strips symbols where that leaves what the loader maps unchanged, adds the
   desktop entry and icon, and builds dist/recrawl_<version>_<arch>.deb and
   dist/recrawl-<version>-linux-<machine>.tar.gz (packaging/linux_package.py).
5. Prints the benchmark lines: the sizes, and the bundle's launch-to-first-paint time
   from its own ``--self-test`` (offscreen).

The same script builds on Windows and macOS (run it there; PyInstaller does not
cross-compile): steps 4's packages are Linux's only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from importlib.metadata import PathDistribution
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
STAGE = BUILD / "stage"
ICONS = BUILD / "icons"
DIST = ROOT / "dist"
BUNDLE = DIST / "recrawl"
#: PNG sizes of the app icon in the freedesktop icon theme (the .deb installs them)
ICON_SIZES = (16, 32, 48, 64, 128, 256)


def stage() -> str:
    """Installs the repository (not its dependencies) into build/stage; its version."""
    if not (ROOT / "recrawl" / "core").is_dir():
        # a checkout made without symbolic links (Git for Windows' default) holds them as
        # text files, and the wheel would lack recrawl.core, recrawl.gui, recrawl.resources
        sys.exit("build: recrawl/core is no link to core/ here: clone with -c core.symlinks=true")
    shutil.rmtree(STAGE, ignore_errors=True)
    # setuptools builds in build/lib and never deletes there: a module removed from the
    # tree would still be staged
    shutil.rmtree(BUILD / "lib", ignore_errors=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-compile",
            "--target",
            str(STAGE),
            str(ROOT),
        ],
        check=True,
    )
    return distribution_version(STAGE)


def distribution_version(folder: Path) -> str:
    [dist_info] = folder.glob("recrawl-*.dist-info")
    return PathDistribution(dist_info).version


def render_icons() -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication, QIcon

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    icon = QIcon(str(ROOT / "resources" / "icons" / "app.svg"))
    ICONS.mkdir(parents=True, exist_ok=True)
    for size in ICON_SIZES:
        image = icon.pixmap(size, size).toImage()
        if not image.save(str(ICONS / f"recrawl-{size}.png")):  # the format from the suffix
            raise RuntimeError(f"could not render the {size} px icon")
    image = icon.pixmap(256, 256).toImage()
    for name in ("recrawl.png", "recrawl.ico", "recrawl.icns"):
        if not image.save(str(ICONS / name)):
            print(f"build: could not write {name} (no image plugin for it); skipped")
    del app


def run_pyinstaller() -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            str(ROOT / "packaging" / "recrawl.spec"),
            "--distpath",
            str(DIST),
            "--workpath",
            str(BUILD / "pyinstaller"),
            "--noconfirm",
            "--log-level",
            "WARN",
        ],
        cwd=ROOT,
        check=True,
    )


def strip_bundle(bundle: Path) -> None:
    """Symbol tables and debug information go (a Python built from source carries 23 MB
    of debug information in libpython alone); packaging/elf.py strips a file only where
    what the loader maps stays byte for byte the same."""
    if shutil.which("strip") is None:
        print("build: no `strip` (binutils): the libraries keep their symbol tables")
        return
    from elf import strip_unneeded

    files = [f for f in sorted(bundle.rglob("*")) if f.is_file() and not f.is_symlink()]
    stripped, saved, refused = strip_unneeded(files)
    print(f"build: stripped {len(stripped)} files ({saved / 1e6:.1f} MB of symbols)")
    if refused:
        names = ", ".join(f.name for f in refused)
        print(f"build: not stripped, as it would change what the loader maps: {names}")


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def first_paint(bundle: Path) -> str:
    """The bundle's launch-to-first-paint time, as its ``--self-test`` reports it."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    home = BUILD / "paint-home"  # a clean home: no settings or data of the developer's
    env.update(
        HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data")
    )
    exe = bundle / ("recrawl.exe" if os.name == "nt" else "recrawl")
    done = subprocess.run(
        [str(exe), "--self-test"], capture_output=True, text=True, env=env, timeout=300, cwd="/"
    )
    match = re.search(r"first paint ([\d.]+) s after launch", done.stdout)
    if done.returncode != 0 or match is None:
        return f"not measured (--self-test exit {done.returncode}: {done.stderr.strip()[-300:]})"
    return f"{match.group(1)} s from launch (its --self-test, offscreen)"


def main() -> int:
    clock = time.monotonic()
    took: dict[str, float] = {}

    def lap(step: str) -> None:
        nonlocal clock
        took[step], clock = time.monotonic() - clock, time.monotonic()

    version = stage()
    lap("staging")
    render_icons()
    run_pyinstaller()
    lap("PyInstaller")
    packages = []
    if sys.platform.startswith("linux"):
        from linux_package import build_deb, build_tarball

        strip_bundle(BUNDLE)
        shutil.copy2(ROOT / "packaging" / "recrawl.desktop", BUNDLE / "recrawl.desktop")
        shutil.copy2(ICONS / "recrawl.png", BUNDLE / "recrawl.png")
        packages.append(build_deb(BUNDLE, ICONS, version, DIST))
        lap(".deb")
        packages.append(build_tarball(BUNDLE, version, DIST))
        lap(".tar.gz")
    files = sum(1 for f in BUNDLE.rglob("*") if f.is_file())
    size = folder_size(BUNDLE) / 1e6
    print(f"bundle: {BUNDLE.relative_to(ROOT)} ({size:.0f} MB in {files} files)")
    for package in packages:
        print(f"package: {package.relative_to(ROOT)} ({package.stat().st_size / 1e6:.0f} MB)")
    print(f"first paint: {first_paint(BUNDLE)}")
    print("build took " + ", ".join(f"{step} {seconds:.0f} s" for step, seconds in took.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
