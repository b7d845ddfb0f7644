"""The .deb installs, runs from anywhere and uninstalls without leaving anything behind.

    python packaging/package_test.py [DEB]      (make package-test; as root, or with sudo)

Installs dist/recrawl_<version>_<arch>.deb with ``dpkg -i``, runs the installed
``/usr/bin/recrawl --version`` and ``--self-test`` from ``/`` (offscreen, clean home),
checks the runs wrote nothing into /opt/recrawl, removes the package with ``dpkg -r``
and checks every file it installed is gone. It refuses to touch a machine where Recrawl
is installed already, and names the missing system packages instead of letting dpkg
leave a half-configured package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from system_packages import debian_packages, not_installed

ROOT = Path(__file__).resolve().parents[1]
COMMAND = Path("/usr/bin/recrawl")
BUNDLE = Path("/opt/recrawl")


class Failed(Exception):
    pass


def as_root() -> list[str]:
    """The prefix that runs dpkg as root: nothing, or sudo (said in one line)."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") is None:
        raise Failed("not root and no sudo: dpkg -i needs root")
    print("package test: not root, so dpkg runs with sudo")
    return ["sudo"]


def installed_files() -> list[Path]:
    done = subprocess.run(["dpkg", "-L", "recrawl"], capture_output=True, text=True)
    return [Path(line) for line in done.stdout.splitlines() if line.startswith("/")]


def is_installed() -> bool:
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${db:Status-Status}", "recrawl"], capture_output=True, text=True
    )
    return done.stdout.strip() not in ("", "not-installed", "config-files")


def run_installed(*args: str) -> str:
    with tempfile.TemporaryDirectory(prefix="recrawl-package-test-") as home:
        env = {
            **os.environ,
            "HOME": home,
            "XDG_CONFIG_HOME": f"{home}/config",
            "XDG_DATA_HOME": f"{home}/data",
            "QT_QPA_PLATFORM": "offscreen",
        }
        done = subprocess.run(
            [str(COMMAND), *args], capture_output=True, text=True, cwd="/", env=env, timeout=300
        )
    output = done.stdout + done.stderr
    if done.returncode != 0 or "Traceback" in output:
        raise Failed(f"{COMMAND} {' '.join(args)} exited {done.returncode}:\n{output}")
    return done.stdout.strip()


def test_deb(deb: Path, sudo: list[str]) -> None:
    if is_installed() or BUNDLE.exists():
        raise Failed(f"Recrawl is installed here already ({BUNDLE}); remove it first")
    if missing := not_installed(debian_packages()):
        raise Failed(
            f"the package needs system packages first: apt-get install {' '.join(missing)}"
        )
    started = time.monotonic()
    subprocess.run([*sudo, "dpkg", "-i", str(deb)], check=True, stdout=subprocess.DEVNULL)
    try:
        files = installed_files()
        print(
            f"package test: dpkg -i {deb.name}: {len(files)} paths "
            f"({time.monotonic() - started:.0f} s)"
        )
        for path in (
            COMMAND,
            BUNDLE / "recrawl",
            Path("/usr/share/applications/recrawl.desktop"),
            Path("/usr/share/icons/hicolor/scalable/apps/recrawl.svg"),
            Path("/usr/share/icons/hicolor/48x48/apps/recrawl.png"),
        ):
            if path not in files or not path.exists():
                raise Failed(f"the package did not install {path}")
        said = run_installed("--version")
        expected = f"recrawl {version('recrawl')}"
        if said != expected:
            raise Failed(f"{COMMAND} --version said {said!r}, expected {expected!r}")
        print(f"package test: {COMMAND} --version from /: {said}")
        print(f"package test: {run_installed('--self-test')}")
        strays = {p for p in BUNDLE.rglob("*")} - set(files)
        if strays:
            raise Failed(f"running it wrote into {BUNDLE}: {sorted(map(str, strays))[:5]}")
    finally:
        subprocess.run([*sudo, "dpkg", "-r", "recrawl"], check=True, stdout=subprocess.DEVNULL)
    # folders such as /usr/share/icons/hicolor/48x48/apps may belong to other packages too
    left = [p for p in (*files, COMMAND) if os.path.lexists(p) and not p.is_dir()]
    left += [BUNDLE] if BUNDLE.exists() else []
    if left or is_installed():
        raise Failed(f"dpkg -r left {sorted(map(str, left))[:5] or 'the package registered'}")
    print(
        f"package test: dpkg -r recrawl left nothing behind ({time.monotonic() - started:.0f} s in all)"
    )


def main() -> int:
    if len(sys.argv) > 1:
        deb = Path(sys.argv[1])
    else:
        debs = sorted((ROOT / "dist").glob("recrawl_*.deb"), key=lambda p: p.stat().st_mtime)
        if not debs:
            print("package test: no dist/recrawl_*.deb (run make package first)", file=sys.stderr)
            return 1
        deb = debs[-1]
    try:
        test_deb(deb, as_root())
    except (Failed, subprocess.CalledProcessError) as failure:
        print(f"package test: FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
