"""What the Crawl panel keeps and tells: the project's politeness, a stopped round's real
count, and on reopening, what the last crawl did (or that it was interrupted)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from recrawl.core.clock import utcnow
from recrawl.core.engine import RoundFinished, inject
from recrawl.core.policy import crawl_settings
from recrawl.core.project import Project
from recrawl.core.store.models import FetchEvent

from tests.gui.helpers import open_window

ROOT = Path(__file__).resolve().parents[3]

CRAWL_SCRIPT = """
import sys
from dataclasses import replace
from recrawl.core.engine import Crawler
from recrawl.core.project import Project
from tests.support.crawling import fast_settings
project = Project.open(sys.argv[1])
settings = fast_settings()
settings = replace(settings, politeness=replace(settings.politeness, per_host=1),
                   commit_every=3, commit_seconds=0.05)
Crawler(project, settings).run()
"""


def crawl_panel(qtbot, window):
    window.show_panel("crawl")
    panel = window.panels["crawl"]
    qtbot.waitUntil(lambda: panel.settings_loaded)
    return panel


def type_into(qtbot, spin, text: str) -> None:
    """Type as a person does: select what is there, type, press Enter."""
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Return)


def test_politeness_is_the_projects_and_a_change_is_kept(qtbot, project, prefs):
    crawl_settings.save({"politeness.per_host": 3, "fetch.read_timeout": 7.5})
    window = open_window(qtbot, project, prefs)
    panel = crawl_panel(qtbot, window)
    assert panel.per_host.value() == 3  # what the project keeps, not the default 1
    assert panel.delay.value() == 1.0
    type_into(qtbot, panel.delay, "0.05")
    assert panel.delay.value() == 0.05  # not 0.0: two decimals
    qtbot.waitUntil(lambda: crawl_settings.stored().get("politeness.delay") == 0.05)
    panel.obey_robots.setChecked(False)
    qtbot.waitUntil(lambda: "politeness.obey_robots" in crawl_settings.stored())
    # the crawl a Start makes: the fields, and the kept settings the panel does not show
    settings = panel.settings()
    assert settings.politeness.delay == 0.05 and settings.politeness.per_host == 3
    assert not settings.politeness.obey_robots
    assert settings.fetch.read_timeout == 7.5
    # back to the default: kept as "not set", so `recrawl crawl` follows the default
    panel.per_host.setValue(1)
    qtbot.waitUntil(lambda: "politeness.per_host" not in crawl_settings.stored())
    window.close()

    again = open_window(qtbot, project, prefs)
    panel = crawl_panel(qtbot, again)
    assert panel.delay.value() == 0.05 and not panel.obey_robots.isChecked()
    assert panel.delay.text() == "0.05 s"
    again.close()


def test_a_kept_value_the_fields_cannot_show_is_what_a_start_crawls_with(qtbot, project, prefs):
    # `recrawl settings --set politeness.delay=5m`: past what the field reaches (120 s),
    # and a delay of 0.004 s past its two decimals; the app's crawl is as polite
    crawl_settings.save({"politeness.delay": 300.0, "politeness.concurrency": 1000})
    window = open_window(qtbot, project, prefs)
    panel = crawl_panel(qtbot, window)
    assert panel.delay.value() == 120.0  # as far as the field goes
    settings = panel.settings()
    assert settings.politeness.delay == 300.0 and settings.politeness.concurrency == 1000
    assert crawl_settings.stored()["politeness.delay"] == 300.0  # nothing rewritten
    panel.delay.setValue(2.5)  # an edit is the user's: it holds
    qtbot.waitUntil(lambda: crawl_settings.stored().get("politeness.delay") == 2.5)
    assert panel.settings().politeness.delay == 2.5
    assert panel.settings().politeness.concurrency == 1000
    window.close()


def test_after_stop_the_bar_shows_what_the_round_fetched(qtbot, window, server):
    server.latency = 0.05
    server.html("/", "".join(f'<a href="/p{i}">p{i}</a>' for i in range(40)))
    for i in range(40):
        server.html(f"/p{i}", f"page {i}")
    panel = crawl_panel(qtbot, window)
    qtbot.keyClicks(panel.seeds, server.url("/"))
    with qtbot.waitSignal(window.context.changes.sig_pages):
        qtbot.mouseClick(panel.add_seeds, Qt.MouseButton.LeftButton)
    panel.delay.setValue(0)
    panel.obey_robots.setChecked(False)
    finished_rounds: list[RoundFinished] = []
    window.context.crawl.sig_events.connect(
        lambda events: finished_rounds.extend(e for e in events if isinstance(e, RoundFinished))
    )
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    server.wait_hits(12)  # the home page, then round 2's pages one at a time
    with qtbot.waitSignal(window.context.crawl.sig_finished) as finished:
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    assert finished.args[0].stopped
    qtbot.waitUntil(lambda: not window.context.crawl.busy)
    second = finished_rounds[-1]
    assert second.round == 2
    done = second.fetched + second.errors
    assert 0 < done < 40
    assert (panel.progress.value(), panel.progress.maximum()) == (done, 40)
    assert panel.progress.text() == f"{done} of 40 done"
    assert panel.round_label.text().startswith("Crawl stopped:")
    totals = panel.view.totals.text()
    assert f"{finished.args[0].fetched:,} pages fetched" in totals and "Elapsed 0:" in totals
    qtbot.waitUntil(lambda: "due now" in panel.view.outlook.text())
    assert panel.view.outlook.text().startswith(f"{40 - done:,} pages are due now")


def test_reopening_after_closing_mid_crawl_says_it_was_stopped(qtbot, project, prefs, server):
    server.latency = 0.05
    for i in range(60):
        server.html(f"/p{i}", f'<a href="/p{i + 1}">next</a>')
    inject([server.url("/p0")], utcnow())
    window = open_window(qtbot, project, prefs)
    panel = crawl_panel(qtbot, window)
    panel.delay.setValue(0)
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    server.wait_hits(5)
    with qtbot.waitSignal(window.context.crawl.sig_finished):
        window.close()  # stops the crawl first
    qtbot.waitUntil(lambda: not window.isVisible())
    again = open_window(qtbot, project, prefs)
    panel = crawl_panel(qtbot, again)
    qtbot.waitUntil(lambda: panel.last_outlook is not None)
    text = panel.round_label.text()
    assert text.startswith("The last crawl, started ") and "was stopped after" in text
    assert panel.view.outlook.text() == "1 page is due now: Start fetches them."
    again.close()


@pytest.mark.slow
def test_reopening_after_a_killed_crawl_says_it_was_interrupted(qtbot, project, prefs, server):
    server.latency = 0.01
    for i in range(80):
        server.html(f"/p{i}", f'<a href="/p{i + 1}">next</a>')
    inject([server.url("/p0")], utcnow())
    path = project.path
    project.close()
    child = subprocess.Popen([sys.executable, "-c", CRAWL_SCRIPT, str(path)], cwd=ROOT)
    try:
        assert server.wait_hits(25), "the child crawl never got going"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    reopened = Project.open(path)
    try:
        fetched = FetchEvent.select().count()
        window = open_window(qtbot, reopened, prefs)
        panel = crawl_panel(qtbot, window)
        qtbot.waitUntil(lambda: panel.last_outlook is not None)
        text = panel.round_label.text()
        assert "was interrupted" in text, text
        assert f"after {fetched:,} pages fetched and 0 errors" in text
        assert panel.view.outlook.text() == "1 page is due now: Start fetches them."
        window.close()
    finally:
        reopened.close()
