"""A new user's tour of the app on a real site, under a real X server: screenshots to look at.

    xvfb-run -s "-screen 0 1920x1200x24" .venv/bin/python bench/app_tour.py [--out DIR]

Python 3.11's documentation (bench/realsite.py: Debian's ``python3-doc``, served by nginx
on 127.0.0.1) is archived by ``recrawl crawl`` as a user would start: ``init``,
``inject`` with the address typed without its scheme, ``crawl``. Then the copy is edited
as a site changes (a paragraph rewritten, a page removed, a page added and linked) and
the app, on the X server ``DISPLAY`` names (``QT_QPA_PLATFORM=xcb``), crawls it again
from its Crawl panel after the Sites panel's "Refetch this site now". Each panel is
saved at 1280 x 800 and at 800 x 600, with the diff of the edited page, the Settings
dialog and the filter checker, into ``--out`` (``build/tour``). Not a test: a script to
look at what a user sees; it prints the files it wrote.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
BIN = Path(sys.executable).parent

from realsite import real_site  # noqa: E402

EDITED = "tutorial/introduction.html"
REMOVED = "tutorial/whatnow.html"
ADDED = "tutorial/harbour.html"


def recrawl(*args: str) -> str:
    done = subprocess.run([str(BIN / "recrawl"), *args], capture_output=True, text=True, check=True)
    print(f"$ recrawl {' '.join(args)}\n{done.stdout}{done.stderr}", end="", flush=True)
    return done.stdout


def edit_site(root: Path) -> None:
    """A paragraph rewritten, a page removed, a page added and linked from the index."""
    page = root / EDITED
    text = page.read_text(encoding="utf-8")
    marker = "<p>"
    at = text.index(marker, text.index("<h1>"))
    page.write_text(
        text[:at]
        + "<p>The harbour wall will close for repairs in March; this tutorial moved.</p>\n"
        + text[at:],
        encoding="utf-8",
    )
    (root / REMOVED).unlink()
    (root / ADDED).write_text(
        "<!DOCTYPE html><html><head><title>The harbour</title></head>"
        "<body><h1>The harbour</h1><p>A page added between crawls.</p></body></html>",
        encoding="utf-8",
    )
    index = root / "tutorial" / "index.html"
    text = index.read_text(encoding="utf-8")
    index.write_text(
        text.replace("</body>", '<p><a href="harbour.html">The harbour</a></p></body>'),
        encoding="utf-8",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "tour")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        raise SystemExit("app_tour: no DISPLAY: run it under xvfb-run (see --help)")
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="recrawl-tour-"))
    project = work / "docs-archive"
    with real_site() as site:
        seed = site.url("index.html").removeprefix("http://")
        recrawl("init", str(project))
        recrawl("inject", str(project), seed)
        recrawl("crawl", str(project), "--delay", "0", "--per-host", "4")
        recrawl("crawl", str(project))  # again at once: what does it say?
        edit_site(site.root)
        return tour(project, site.url(EDITED), args.out)


def tour(project_dir: Path, edited: str, out: Path) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication
    from recrawl.core.project import Project
    from recrawl.gui.main_window import MainWindow
    from recrawl.gui.preferences import Preferences
    from recrawl.gui.resources import icon, stylesheet

    app = QApplication(sys.argv)
    app.setApplicationName("Recrawl")
    app.setWindowIcon(icon("app"))
    app.setStyleSheet(stylesheet())
    prefs = Preferences(
        QSettings(str(project_dir.parent / "prefs.ini"), QSettings.Format.IniFormat)
    )
    window = MainWindow(Project.open(project_dir), prefs)
    window.resize(1280, 800)
    window.show()
    wrote: list[Path] = []

    def settle(seconds: float = 1.5) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.02)

    def shot(name: str, widget: object = None) -> None:
        settle(0.5)
        path = out / f"{name}.png"
        (widget or window).grab().save(str(path))  # type: ignore[attr-defined]
        wrote.append(path)

    settle(3)
    host = urlsplit(edited).hostname or ""
    sites = window.panels["sites"]
    window.show_panel("sites")
    settle()
    button = sites.refetch_button  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    while not button.isEnabled() and time.monotonic() < deadline:  # its rows are read
        sites.select_host(host)  # type: ignore[attr-defined]
        settle(0.2)
    button.click()
    settle()
    shot("sites-refetched")

    window.show_panel("crawl")
    crawl = window.panels["crawl"]
    crawl.delay.setValue(0.0)  # type: ignore[attr-defined]
    crawl.start_button.click()  # type: ignore[attr-defined]
    deadline = time.monotonic() + 600
    while window.context is not None and window.context.crawl.busy:
        app.processEvents()
        time.sleep(0.02)
        if time.monotonic() > deadline:
            break
    settle(3)
    for width, height in ((1280, 800), (800, 600)):
        window.resize(width, height)
        for key in ("crawl", "news", "sites", "pages", "filters", "schedule", "segments"):
            window.show_panel(key)
            settle(1.5)
            shot(f"{width}-{key}")
    window.resize(1280, 800)
    before = {id(w) for w in app.topLevelWidgets() if w.isVisible()}
    window.show_page_diff(edited)
    settle(4)
    shot("pages-diff")
    for top in app.topLevelWidgets():
        if top.isVisible() and id(top) not in before:
            shot("diff", top)
            top.close()
    window.settings_dialog()
    settle(2)
    if window.settings is not None:
        shot("settings", window.settings)
        window.settings.reject()
    window.close()
    settle(1)
    for path in wrote:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
