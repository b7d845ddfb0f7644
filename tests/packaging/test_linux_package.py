"""The .deb's control file (packaging/linux_package.py): what apt reads of the package.

The text is built as ``make package`` builds it, then read back by dpkg itself from a
package built with it (a tree of one file: the bundle is ``make package-test``'s)."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))  # the packaging scripts import each other so

# by name, at run time: the packaging scripts are no package an editor or pyright follows
linux_package = importlib.import_module("linux_package")
debian_packages = importlib.import_module("system_packages").debian_packages

pytestmark = pytest.mark.skipif(
    shutil.which("dpkg-deb") is None or not sys.platform.startswith("linux"),
    reason="dpkg-deb reads the control file back",
)


def field(deb: Path, name: str) -> str:
    done = subprocess.run(
        ["dpkg-deb", "--field", str(deb), name], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_deb_recommends_chromium_and_depends_on_what_qt_needs(tmp_path):
    control = linux_package._control("1.2.0~rc1", "amd64", installed_kib=42)
    tree = tmp_path / "recrawl"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text(control, encoding="utf-8")
    (tree / "opt").mkdir()
    (tree / "opt" / "placeholder").write_text("the bundle goes here\n")
    deb = tmp_path / "recrawl.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "--build", str(tree), str(deb)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # browser capture's Chromium: installed with the app by default, not required
    assert field(deb, "Recommends") == "chromium"
    depends = [item.strip() for item in field(deb, "Depends").split(",")]
    assert depends[0].startswith("libc6 (>= ") and depends[1:] == debian_packages()
    assert not any(item.startswith("chromium") for item in depends)
    assert (field(deb, "Package"), field(deb, "Version")) == ("recrawl", "1.2.0~rc1")
