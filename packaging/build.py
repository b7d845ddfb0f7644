"""Build the desktop bundle into dist/recrawl/ with PyInstaller and say how big it is.

    python packaging/build.py        (make package)

Renders the app icon from resources/icons/app.svg for each platform (PNG, ICO, ICNS)
into build/icons, runs PyInstaller on packaging/recrawl.spec, then puts the Linux
desktop entry and icon beside the executable. The same script builds on Windows and
macOS (run it there; PyInstaller does not cross-compile).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
DIST = ROOT / "dist"


def render_icons() -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication, QIcon

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    icon = QIcon(str(ROOT / "resources" / "icons" / "app.svg"))
    out = BUILD / "icons"
    out.mkdir(parents=True, exist_ok=True)
    image = icon.pixmap(256, 256).toImage()
    for name, fmt in (("recrawl.png", "PNG"), ("recrawl.ico", "ICO"), ("recrawl.icns", "ICNS")):
        if not image.save(str(out / name), fmt):
            print(f"build: could not write {name} (no {fmt} image plugin); skipped")
    del app


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def main() -> int:
    render_icons()
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
    bundle = DIST / "recrawl"
    if sys.platform.startswith("linux"):
        shutil.copy2(ROOT / "packaging" / "recrawl.desktop", bundle / "recrawl.desktop")
        shutil.copy2(BUILD / "icons" / "recrawl.png", bundle / "recrawl.png")
    size = folder_size(bundle)
    files = sum(1 for f in bundle.rglob("*") if f.is_file())
    print(f"bundle: {bundle} ({size / 1e6:.0f} MB in {files} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
