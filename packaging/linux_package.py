"""The Linux packages of the bundle: a .deb (dpkg-deb) and a .tar.gz.

The .deb installs the bundle under /opt/recrawl, the command /usr/bin/recrawl (a link to
it), the desktop entry in /usr/share/applications and the icon in the hicolor theme
(PNG sizes and the SVG). It depends on the system libraries Qt needs, named once in
gui/startup/system_libraries.py, and on a C library at least as new as the build machine's
(PyInstaller bundles built on older systems run on newer ones, not the reverse). It
recommends Debian's ``chromium``, which browser capture runs (``capture.mode browser``):
apt installs it by default, and a site captured over HTTP needs none. The
desktop database and icon caches are refreshed by dpkg's triggers, so the package needs
no maintainer scripts.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import stat
import subprocess
import tarfile
from pathlib import Path

from system_packages import debian_packages

PACKAGING = Path(__file__).resolve().parent
ROOT = PACKAGING.parent
#: There is no maintainer address in pyproject.toml yet; .invalid says so honestly.
MAINTAINER = "Recrawl developers <maintainers@recrawl.invalid>"
SYNOPSIS = "desktop crawl manager for web archivists"
#: What apt installs with it unless told not to: the browser that browser capture runs
#: (core/browser/chromium.py finds it); without it, only that mode is missing, said in one line.
RECOMMENDS = ("chromium",)
DESCRIPTION = """\
Recrawl watches sets of sites over months: it records when each page was first
seen, revisits pages on a self-adjusting schedule, lets you debug URL filter
chains, and keeps every capture as standard WARC files with CDXJ indexes.
.
This package holds the self-contained app (Python and Qt inside) in /opt/recrawl
and the `recrawl` command, which opens the app or runs the command line."""


def debian_version(version: str) -> str:
    """PEP 440 to Debian: pre- and dev releases sort before their release (``~``)."""
    return re.sub(r"[.-]?(a|b|rc|dev)(?=\d)", r"~\1", version)


def architecture() -> str:
    done = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True)
    return done.stdout.strip() or {"x86_64": "amd64", "aarch64": "arm64"}[platform.machine()]


def glibc() -> str:
    name, version = platform.libc_ver()
    assert name == "glibc", f"not a glibc system ({name!r})"
    return version


def build_deb(bundle: Path, icons: Path, version: str, out: Path) -> Path:
    """``out/recrawl_<version>_<arch>.deb`` from the bundle folder and rendered icons."""
    arch = architecture()
    deb_version = debian_version(version)
    tree = ROOT / "build" / "deb" / f"recrawl_{deb_version}_{arch}"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(bundle, tree / "opt" / "recrawl", symlinks=True)
    (tree / "usr" / "bin").mkdir(parents=True)
    # absolute, as Debian links between top-level folders; the bundle finds its
    # _internal folder from the real path of its executable
    (tree / "usr" / "bin" / "recrawl").symlink_to("/opt/recrawl/recrawl")
    share = tree / "usr" / "share"
    (share / "applications").mkdir(parents=True)
    shutil.copy2(PACKAGING / "recrawl.desktop", share / "applications" / "recrawl.desktop")
    hicolor = share / "icons" / "hicolor"
    for png in sorted(icons.glob("recrawl-*.png")):
        size = png.stem.removeprefix("recrawl-")
        (hicolor / f"{size}x{size}" / "apps").mkdir(parents=True)
        shutil.copy2(png, hicolor / f"{size}x{size}" / "apps" / "recrawl.png")
    (hicolor / "scalable" / "apps").mkdir(parents=True)
    shutil.copy2(
        ROOT / "resources" / "icons" / "app.svg", hicolor / "scalable" / "apps" / "recrawl.svg"
    )
    _normalise_modes(tree)
    control = tree / "DEBIAN"
    control.mkdir(mode=0o755)
    (control / "control").write_text(
        _control(deb_version, arch, installed_kib=_kib(tree)), encoding="utf-8"
    )
    os.chmod(control / "control", 0o644)
    deb = out / f"recrawl_{deb_version}_{arch}.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(tree), str(deb)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return deb


def _control(version: str, arch: str, installed_kib: int) -> str:
    depends = ", ".join([f"libc6 (>= {glibc()})", *debian_packages()])
    description = "\n".join(f" {line}" for line in DESCRIPTION.splitlines())
    return (
        f"Package: recrawl\nVersion: {version}\nArchitecture: {arch}\n"
        f"Maintainer: {MAINTAINER}\nInstalled-Size: {installed_kib}\n"
        f"Depends: {depends}\nRecommends: {', '.join(RECOMMENDS)}\n"
        "Section: web\nPriority: optional\n"
        f"Description: {SYNOPSIS}\n{description}\n"
    )


def _normalise_modes(tree: Path) -> None:
    """rwxr-xr-x for folders and programs, rw-r--r-- for the rest (the build may
    have left group-writable or private files)."""
    for path in [tree, *tree.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        executable = path.is_dir() or mode & stat.S_IXUSR
        os.chmod(path, 0o755 if executable else 0o644)


def _kib(tree: Path) -> int:
    size = sum(f.lstat().st_size for f in tree.rglob("*") if not f.is_dir())
    return -(-size // 1024)


def build_tarball(bundle: Path, version: str, out: Path) -> Path:
    """``out/recrawl-<version>-linux-<machine>.tar.gz``: the bundle as a folder ``recrawl/``."""
    tarball = out / f"recrawl-{version}-linux-{platform.machine()}.tar.gz"

    def owned_by_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        return info

    with tarfile.open(tarball, "w:gz", compresslevel=6) as archive:
        archive.add(bundle, arcname="recrawl", filter=owned_by_root)
    return tarball
