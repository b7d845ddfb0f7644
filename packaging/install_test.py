"""Every install path gives a ``recrawl`` that works from any folder.

    python packaging/install_test.py [--only wheel|pip|pipx ...]      (make install-test)

Builds the sdist and, from it, the wheel (``python -m build``), checks what the wheel
holds (only ``recrawl`` at the top, every module of core/, gui/, recrawl/ and the
package data of resources/), then installs Recrawl three ways, each into a fresh
environment: the wheel with pip, the source tree with ``pip install .``, and the source
tree with ``pipx install .``. Each installed ``recrawl`` runs from ``/`` with a clean
home: ``--version``, ``init``, ``inject``, ``crawl`` and ``show`` against a small site
served on loopback from a temporary folder, then ``--self-test`` (offscreen).
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "install-test"
#: the repository's folders and the package each becomes (recrawl/core -> ../core, ...)
PACKAGES = {"recrawl": "recrawl", "core": "recrawl/core", "gui": "recrawl/gui"}
#: the package data under resources/ (pyproject.toml's [tool.setuptools.package-data])
RESOURCE_PATTERNS = ("*.toml", "*.qss", "icons/*.svg")
SITE = {
    "index.html": '<a href="a.html">a</a> <a href="b.html">b</a>',
    "a.html": '<p>page a</p><a href="b.html">b</a>',
    "b.html": "<p>page b</p>",
}


class Failed(Exception):
    pass


def run(
    command: list[str], cwd: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=900)
    if done.returncode != 0:
        raise Failed(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def build_wheel() -> Path:
    """sdist, then the wheel from it: so the sdist is shown to carry everything too."""
    out = WORK / "dist"
    shutil.rmtree(out, ignore_errors=True)
    _forget_setuptools_build()
    run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)])
    [wheel] = out.glob("recrawl-*.whl")
    return wheel


def check_wheel(wheel: Path) -> None:
    names = [PurePosixPath(n) for n in zipfile.ZipFile(wheel).namelist()]
    top = {n.parts[0] for n in names}
    dist_info = {t for t in top if t.endswith(".dist-info")}
    if top - dist_info != {"recrawl"} or len(dist_info) != 1:
        raise Failed(f"the wheel installs {sorted(top)}; only recrawl and its dist-info belong")
    held = {str(n) for n in names}
    expected = {
        f"{package}/{path.relative_to(ROOT / folder).as_posix()}"
        for folder, package in PACKAGES.items()
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    resources = ROOT / "resources"
    expected |= {
        f"recrawl/resources/{path.relative_to(resources).as_posix()}"
        for pattern in ("__init__.py", *RESOURCE_PATTERNS)
        for path in resources.glob(pattern)
    }
    if missing := sorted(expected - held):
        raise Failed(f"the wheel lacks {len(missing)} files: {missing[:8]}")
    print(f"install test: wheel {wheel.name} holds recrawl only, {len(expected)} files checked")


def fresh_venv(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    run([sys.executable, "-m", "venv", str(folder)])
    return folder / "bin" / "python"


def install_wheel(wheel: Path) -> Path:
    python = fresh_venv(WORK / "venv-wheel")
    run([str(python), "-m", "pip", "install", "--quiet", str(wheel)])
    return python.parent / "recrawl"


def install_pip() -> Path:
    python = fresh_venv(WORK / "venv-pip")
    _forget_setuptools_build()
    run([str(python), "-m", "pip", "install", "--quiet", str(ROOT)])
    return python.parent / "recrawl"


def install_pipx() -> Path:
    home = WORK / "pipx"
    shutil.rmtree(home, ignore_errors=True)
    env = {
        **os.environ,
        "PIPX_HOME": str(home / "home"),
        "PIPX_BIN_DIR": str(home / "bin"),
        "PIPX_MAN_DIR": str(home / "man"),
    }
    _forget_setuptools_build()
    run([sys.executable, "-m", "pipx", "install", "--python", sys.executable, str(ROOT)], env=env)
    return home / "bin" / "recrawl"


def _forget_setuptools_build() -> None:
    """setuptools builds in build/lib and never deletes there: a module removed from
    the tree would still be installed; and its recrawl.egg-info/SOURCES.txt carries an
    older layout's files into every later sdist."""
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)
    shutil.rmtree(ROOT / "recrawl.egg-info", ignore_errors=True)


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    for name, body in SITE.items():
        (folder / name).write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def exercise(recrawl: Path, version: str, how: str) -> None:
    """The commands a new user runs, from / (robots.txt is a 404 there: allowed)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="recrawl-install-test-") as tmp:
        home = Path(tmp) / "home"
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "QT_QPA_PLATFORM": "offscreen",
        }
        env.pop("PYTHONPATH", None)
        project = str(Path(tmp) / "project")

        def recrawl_says(*args: str) -> str:
            return run([str(recrawl), *args], cwd="/", env=env).stdout

        said = recrawl_says("--version").strip()
        if said != f"recrawl {version}":
            raise Failed(f"{how}: --version said {said!r}, expected 'recrawl {version}'")
        with serve(Path(tmp)) as site:
            recrawl_says("init", project)
            recrawl_says("inject", project, site)
            recrawl_says("crawl", project, "--delay", "0")
            for name, body in SITE.items():
                url = site + ("" if name == "index.html" else name)
                shown = recrawl_says("show", project, url)
                if body not in shown:
                    raise Failed(f"{how}: show {url} said {shown[:200]!r}")
        said = recrawl_says("--self-test")
        if "self-test passed" not in said:
            raise Failed(f"{how}: --self-test said {said!r}")
    print(
        f"install test: {how}: --version, init, inject, crawl, show, --self-test "
        f"passed from / ({time.monotonic() - started:.0f} s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", nargs="+", choices=("wheel", "pip", "pipx"), default=["wheel", "pip", "pipx"]
    )
    ways = parser.parse_args().only
    WORK.mkdir(parents=True, exist_ok=True)
    try:
        started = time.monotonic()
        wheel = build_wheel()
        check_wheel(wheel)
        version = wheel.name.split("-")[1]
        installs = {"wheel": lambda: install_wheel(wheel), "pip": install_pip, "pipx": install_pipx}
        for way in ways:
            began = time.monotonic()
            recrawl = installs[way]()
            print(f"install test: {way} install took {time.monotonic() - began:.0f} s")
            exercise(
                recrawl,
                version,
                {
                    "wheel": f"pip install {wheel.name}",
                    "pip": "pip install .",
                    "pipx": "pipx install .",
                }[way],
            )
    except Failed as failure:
        print(f"install test: FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"install test: passed ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
