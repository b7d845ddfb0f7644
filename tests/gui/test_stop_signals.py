"""Ctrl-C or SIGTERM to the running app (started from a terminal) closes it as its window's
close button does: a crawl stops cleanly first, then the app quits with status 0.

The app runs in a subprocess, offscreen, through the real entry point; a few lines
before it start the crawl from the Crawl panel, as a user's click would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from recrawl.main import main
from tests.support.consistency import check_project
from tests.support.interrupted import ROOT, GatedSite, read_until, recrawl, urls, watchdog

PAGES = 20

APP = """
import sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
from recrawl.main import main

app = QApplication(sys.argv[:1])


class StartWhenReady(QObject):
    # clicks Start once the panel has read the project's crawl settings (it enables it then)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.EnabledChange and watched.isEnabled():
            watched.removeEventFilter(self)
            QTimer.singleShot(0, watched.click)
        return False


starter = StartWhenReady()


def start_crawl():
    from recrawl.gui.main_window import MainWindow

    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    panel = window.panels["crawl"]
    panel.delay.setValue(0)
    if panel.start_button.isEnabled():
        panel.start_button.click()
    else:
        panel.start_button.installEventFilter(starter)


QTimer.singleShot(0, start_crawl)  # once the app's event loop runs
sys.exit(main(["gui", sys.argv[1]]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_a_signal_stops_the_apps_crawl_and_quits(tmp_path, server, capsys, signum):
    site = GatedSite(server, PAGES)
    project = tmp_path / "proj"
    recrawl("init", project)
    recrawl("inject", project, site.url(0))
    # robots.txt, page 0 and three more are answered; the crawl's next fetches stay in
    # flight until the app has quit (the stop cancels them after its grace period)
    site.hold_from(6)
    home = tmp_path / "home"  # the app's preferences go here, not to the user's
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", APP, str(project)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with watchdog(child):
            assert server.wait_hits(6)
            child.send_signal(signum)
            said = read_until(child.stderr, "closing the window")
            _, err = child.communicate()
    finally:
        site.release()
    err = "".join(said) + err
    assert child.returncode == 0, err
    assert "Traceback" not in err
    pages, note = urls(project)
    assert note == ""  # the crawl closed its segment: nothing to recover
    fetched = [p for p in pages if p["last_fetched"] is not None]
    assert 0 < len(fetched) < PAGES
    assert not list(project.rglob("*.open"))

    def show(url: str) -> bytes:
        capsys.readouterr()
        assert main(["show", str(project), url]) == 0
        return capsys.readouterr().out.encode()

    check_project(project, show)
