"""``make run`` installs the system libraries Qt lacks (packaging/system_packages.py
``--install``): with apt-get or dnf, as root or through sudo; elsewhere it leaves the
app to say what is missing.

The script runs for real, in a subprocess with the system's own Python, on a PATH that
holds only package managers, sudo and dpkg-query written by the test: each records its
arguments and does nothing else (nothing is installed). The library Qt would miss is
made missing for real: an unloadable file under its soname comes first on the loader's
path. The sudo route is taken by a user who is not root (``nobody``, when the tests run
as root), the root route by root.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.gui.startup.system_libraries import QT_GUI, XCB, missing

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "system_packages.py"
#: The system's Python: the script needs no venv (and a venv under /root is not
#: another user's to run).
PYTHON = "/usr/bin/python3"
#: The library a fresh Debian desktop lacked first (issue 23), and its packages.
CURSOR = ("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor")

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's package managers"),
    pytest.mark.skipif(not Path(PYTHON).exists(), reason="no system Python at /usr/bin/python3"),
    # the one library made missing must be the only one (CI installs them all)
    pytest.mark.skipif(
        sys.platform.startswith("linux") and bool(missing(QT_GUI + XCB)),
        reason="this machine lacks some of Qt's libraries already",
    ),
]

#: A program that records how it was called (a JSON line: its name, then its
#: arguments), then does what ``rest`` says (Python).
RECORDER = """#!{python}
import json, os, sys
with open({log!r}, "a") as log:
    log.write(json.dumps([os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\\n")
{rest}
"""
#: sudo runs what it is given, as the real one does once the password is right.
SUDO = "os.execvp(sys.argv[1], sys.argv[1:])"
#: dpkg-query as on a machine without the package: nothing listed as installed.
DPKG_QUERY = "sys.exit(1)"
#: apt-get that fails to install until the package lists have been read (a fresh
#: system's lists may be missing).
APT_NEEDS_UPDATE = """updated = os.path.join({dir!r}, "updated")
if sys.argv[1] == "update":
    open(updated, "w").close()
sys.exit(100 if sys.argv[1] == "install" and not os.path.exists(updated) else 0)"""


@pytest.fixture
def machine() -> Iterator[Path]:
    """A folder another user can use too: the fake programs, their log, the libraries."""
    folder = Path(tempfile.mkdtemp(prefix="recrawl-packages-"))
    folder.chmod(0o777)
    (folder / "bin").mkdir(mode=0o755)
    (folder / "lib").mkdir(mode=0o755)
    (folder / "lib" / CURSOR[0]).write_bytes(b"")  # what the loader cannot load
    log = folder / "log"
    log.touch()
    log.chmod(0o666)
    yield folder
    shutil.rmtree(folder)


def _program(machine: Path, name: str, rest: str = "") -> None:
    path = machine / "bin" / name
    rest = rest.format(dir=str(machine))
    path.write_text(RECORDER.format(python=PYTHON, log=str(machine / "log"), rest=rest))
    path.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)


def _install(machine: Path, *flags: str, user: str | None = None) -> tuple[int, str, list[str]]:
    """``system_packages.py --install FLAGS`` on the fake machine: its status, what it
    said, and the programs it ran."""
    env = {
        "PATH": str(machine / "bin"),  # no real apt-get, dnf or sudo can be reached
        "LD_LIBRARY_PATH": str(machine / "lib"),
        "HOME": str(machine),
        "LANG": "C.UTF-8",
    }
    done = subprocess.run(
        [PYTHON, str(SCRIPT), "--install", *flags],
        env=env,
        cwd=machine,
        capture_output=True,
        text=True,
        timeout=120,
        user=user,
    )
    assert done.stdout == ""
    ran = [" ".join(json.loads(line)) for line in (machine / "log").read_text().splitlines()]
    return done.returncode, done.stderr, ran


def _other_user() -> str | None:
    """A user who is not root to run the script as; None: the tests are that user."""
    return "nobody" if os.geteuid() == 0 else None


INSTALL = f"apt-get install -y --no-install-recommends {CURSOR[1]}"


def test_not_root_with_apt_get_installs_the_missing_package_through_sudo(machine):
    for name in ("sudo", "apt-get"):
        _program(machine, name, SUDO if name == "sudo" else "")
    _program(machine, "dpkg-query", DPKG_QUERY)
    code, said, ran = _install(machine, user=_other_user())
    assert code == 0, said
    dpkg, *installs = ran
    assert dpkg.startswith("dpkg-query -W ") and dpkg.endswith(f" {CURSOR[1]}")
    assert installs == [f"sudo {INSTALL}", INSTALL]  # sudo, then apt-get under it: once
    assert said == (
        f"make run: installing the system libraries Qt needs ({CURSOR[0]}): sudo {INSTALL}\n"
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="the root route needs root")
def test_root_runs_apt_get_itself_and_reads_the_lists_when_the_install_fails(machine):
    _program(machine, "sudo", SUDO)  # there, but root does not need it
    _program(machine, "apt-get", APT_NEEDS_UPDATE)
    _program(machine, "dpkg-query", DPKG_QUERY)
    code, said, ran = _install(machine)
    assert code == 0, said
    assert ran[1:] == [INSTALL, "apt-get update", INSTALL]
    assert "reading the package lists first: apt-get update" in said


def test_dnf_installs_the_fedora_package(machine):
    _program(machine, "sudo", SUDO)
    _program(machine, "dnf")
    code, said, ran = _install(machine, user=_other_user())
    assert code == 0, said
    assert ran == [f"sudo dnf install -y {CURSOR[2]}", f"dnf install -y {CURSOR[2]}"]


def test_dry_run_says_the_command_and_runs_none(machine):
    _program(machine, "sudo", SUDO)
    _program(machine, "apt-get")
    _program(machine, "dpkg-query", DPKG_QUERY)
    code, said, ran = _install(machine, "--dry-run", user=_other_user())
    assert code == 0
    assert [line.split()[0] for line in ran] == ["dpkg-query"]  # asked, installed nothing
    assert said.endswith(f"sudo {INSTALL}\n")


def test_without_apt_get_or_dnf_nothing_runs_and_the_app_will_say_it(machine):
    _program(machine, "sudo", SUDO)
    code, said, ran = _install(machine, user=_other_user())
    assert (code, said, ran) == (0, "", [])


def test_not_root_without_sudo_says_the_command_to_run_as_root(machine):
    _program(machine, "apt-get")
    _program(machine, "dpkg-query", DPKG_QUERY)
    user = _other_user()
    if user is None and os.geteuid() == 0:
        pytest.skip("needs a user who is not root")
    code, said, ran = _install(machine, user=user)
    assert code == 1
    assert said == (
        f"make run: the desktop app needs system libraries that are missing ({CURSOR[0]}); "
        f"install them as root: {INSTALL}\n"
    )
    assert [line.split()[0] for line in ran] == ["dpkg-query"]


def test_a_package_installed_already_is_not_installed_again(machine):
    # dpkg has it (the library is missing for another reason): apt-get cannot mend that
    _program(machine, "sudo", SUDO)
    _program(machine, "apt-get")
    _program(machine, "dpkg-query", f"print({CURSOR[1] + ' installed'!r})")
    code, said, ran = _install(machine, user=_other_user())
    assert (code, said) == (0, "")
    assert [line.split()[0] for line in ran] == ["dpkg-query"]


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_run_installs_them_before_it_starts_the_app():
    done = subprocess.run(
        # (under `make test` the outer make's MAKEFLAGS would add directory lines)
        ["make", "--no-print-directory", "-n", "run", "PYTHON=python3", "VENV=.venv"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    install = lines.index("python3 packaging/system_packages.py --install")
    assert lines[install + 1 :] == [".venv/bin/recrawl"]
