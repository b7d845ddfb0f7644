"""Ctrl-C and SIGTERM stop ``recrawl crawl`` and ``recrawl compact`` cleanly (issue 12).

The real entry point runs in a subprocess against a loopback site. The moment of each
signal is held still rather than raced: the site holds its answers (the crawl's fetches
stay in flight), or, when the compaction touches a file of the moment wanted (inotify),
the test takes the database's write lock, so the journal cannot move on while the test
reads it and sends the signal.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from recrawl.core.browser.profiles import PROFILE_PREFIX
from recrawl.core.engine import inject
from recrawl.core.project import Project

from recrawl.main import main
from tests.support import fswatch, httpserver
from tests.support.browsing import needs_chromium
from tests.support.consistency import check_project
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.httpserver import PATIENCE_S
from tests.support.interrupted import ROOT, GatedSite, read_until, recrawl, start, urls, watchdog
from tests.support.multisite import wait_until
from tests.support.scriptsite import script_site

PAGES = 40


def show(capsys: pytest.CaptureFixture[str], project: Path, url: str) -> bytes:
    capsys.readouterr()
    assert main(["show", str(project), url]) == 0
    return capsys.readouterr().out.encode()


@pytest.fixture
def site(server) -> Iterator[GatedSite]:
    gated = GatedSite(server, PAGES)
    yield gated
    gated.release()


@pytest.fixture
def proj(tmp_path, site) -> Path:
    folder = tmp_path / "proj"
    recrawl("init", folder)
    recrawl("inject", folder, site.url(0))
    return folder


def _summary(out: str, as_json: bool) -> dict[str, int]:
    if as_json:
        return json.loads(out)
    found = re.search(r"(\d+) rounds, (\d+) fetched", out)
    assert found, out
    return {"rounds": int(found[1]), "fetched": int(found[2])}


def _fetched(project: Path) -> set[str]:
    pages, note = urls(project)
    assert note == "", note  # nothing was left to recover
    return {p["url"] for p in pages if p["last_fetched"] is not None}


def _carries_on(project: Path, site: GatedSite, committed: set[str], capsys) -> None:
    """A following crawl fetches the rest, and none of what was committed again."""
    server = site.server
    before = {url: server.hits_for(url[len(server.origin) :]) for url in committed}
    again = json.loads(recrawl("crawl", project, "--delay", "0", "--json").stdout)
    assert again["fetched"] == PAGES - len(committed)
    assert {url: server.hits_for(url[len(server.origin) :]) for url in committed} == before
    assert _fetched(project) == {site.url(i) for i in range(PAGES)}
    check_project(project, lambda url: show(capsys, project, url))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "as_json"), [(signal.SIGINT, False), (signal.SIGTERM, True)], ids=["INT", "TERM"]
)
def test_a_signal_stops_a_crawl_after_the_fetches_in_flight(
    proj, site, server, capsys, signum, as_json
):
    site.hold_from(12)  # robots.txt, page 0, ten of the others: the rest stay in flight
    child = start("crawl", proj, "--delay", "0", "--per-host", "2", *(["--json"] * as_json))
    with watchdog(child):
        assert server.wait_hits(12)
        child.send_signal(signum)
        said = read_until(child.stderr, "stopping after the fetches in flight")
        site.release()
        out, err = child.communicate()
    err = "".join(said) + err
    assert child.returncode == 0, err
    assert "Traceback" not in err
    summary = _summary(out, as_json)
    # stopped mid-round: what was fetched is committed and counted, the rest is due
    committed = _fetched(proj)
    assert 0 < summary["fetched"] == len(committed) < PAGES
    assert not list(proj.rglob("*.open"))
    check_project(proj, lambda url: show(capsys, proj, url))
    _carries_on(proj, site, committed, capsys)


@pytest.mark.slow
def test_a_closed_terminal_stops_a_crawl_cleanly(proj, site, server, capsys, tmp_path):
    """SIGHUP after the terminal has gone: the crawl stops as for Ctrl-C and exits 0,
    though it can no longer print its summary there."""
    site.hold_from(12)
    terminal, child_side = os.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "recrawl", "crawl", proj, "--delay", "0", "--per-host", "2"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=child_side,
        stderr=subprocess.PIPE,  # a pipe, not the terminal: it stays readable
        text=True,
    )
    os.close(child_side)
    with watchdog(child):
        assert server.wait_hits(12)
        os.close(terminal)  # the terminal window is closed: writing to it fails now
        child.send_signal(signal.SIGHUP)
        said = read_until(child.stderr, "SIGHUP: stopping after the fetches in flight")
        site.release()
        _, err = child.communicate()
    err = "".join(said) + err
    assert child.returncode == 0, err
    assert "Traceback" not in err
    committed = _fetched(proj)  # and nothing to recover
    assert 0 < len(committed) < PAGES
    check_project(proj, lambda url: show(capsys, proj, url))


@pytest.mark.slow
def test_ctrl_c_again_kills_at_once_and_the_next_command_recovers(proj, site, server, capsys):
    site.hold_from(12)
    child = start("crawl", proj, "--delay", "0", "--per-host", "2", "--json")
    with watchdog(child):
        assert server.wait_hits(12)
        child.send_signal(signal.SIGINT)
        read_until(child.stderr, "Ctrl-C again to kill at once")
        child.send_signal(signal.SIGINT)  # the fetches are still held: it is mid-stop
        out, err = child.communicate()
    site.release()
    assert child.returncode == -signal.SIGINT
    assert "killed by Ctrl-C" in err and "Traceback" not in err
    assert out == ""  # no summary: it never finished
    pages, note = urls(proj)
    assert "recovered segment" in note
    committed = {p["url"] for p in pages if p["last_fetched"] is not None}
    check_project(proj, lambda url: show(capsys, proj, url))
    _carries_on(proj, site, committed, capsys)


# -- compaction ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compactable(tmp_path_factory) -> Iterator[Path]:
    """A project of five crawls of a site: its old segments hold superseded captures
    (of the even pages), and responses that later revisits refer to (of the odd ones)."""
    server = httpserver.TestServer().start()
    site = GatedSite(server, PAGES)
    folder = tmp_path_factory.mktemp("compactable") / "template"
    project = Project.init(folder)
    try:
        inject([site.url(0)], T0)
        for n in range(5):
            site.version = n
            crawl(project, clock=clock_at(n * 400 * DAY))
    finally:
        project.close()
        server.stop()
    yield folder


def _journal(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT state FROM compaction ORDER BY id DESC LIMIT 1").fetchone()
    return row[0] if row else None


def _copying(path: Path, mask: int) -> bool:
    """The compaction is writing its new files under their temporary names."""
    return path.name.endswith(".open")


def _renamed(path: Path, mask: int) -> bool:
    """After the commit, a new file took its final name."""
    return bool(mask & fswatch.IN_MOVED_TO) and not path.name.endswith(".open")


def _signal_compaction(
    template: Path,
    tmp_path: Path,
    signum: int,
    moment: Callable[[Path, int], bool],
    state: str,
) -> tuple[Path, int, str, str]:
    """Compact a copy of ``template`` and signal it at ``moment`` if its journal then says
    ``state``; returns the copy, the exit status, stdout and stderr.

    The test holds the database's write lock while it looks and signals: the journal
    cannot move on meanwhile, and the signal has reached the child before it can. When
    the compaction ran past the state before the test could look, it tries again.
    """
    if not fswatch.available():
        pytest.skip("needs Linux's inotify")
    for attempt in range(10):
        project = tmp_path / f"attempt{attempt}"
        shutil.copytree(template, project)
        (project / "history").mkdir(exist_ok=True)
        watch = fswatch.FolderEvents(project / "segments", project / "history")
        child = start("compact", project, "--below", "1", "--json")
        assert child.stdout is not None
        signalled = False
        with watchdog(child):
            while (batch := watch.next_batch(also=child.stdout.fileno())) is not None:
                if not any(moment(path, mask) for path, mask in batch):
                    continue
                db = sqlite3.connect(project / "recrawl.sqlite", timeout=60, isolation_level=None)
                with contextlib.closing(db):
                    db.execute("BEGIN IMMEDIATE")
                    if _journal(db) == state:
                        child.send_signal(signum)
                        signalled = True
                    db.execute("ROLLBACK")
                break
            out, err = child.communicate()
        watch.close()
        if signalled:
            return project, child.returncode, out, err
    pytest.fail(f"the compaction never paused with its journal {state!r}")


@pytest.mark.slow
def test_a_signal_before_the_commit_rolls_the_compaction_back(compactable, tmp_path, capsys):
    before = check_project(compactable, lambda url: show(capsys, compactable, url))
    segments = sorted(p.name for p in (compactable / "segments").iterdir())
    project, code, out, err = _signal_compaction(
        compactable, tmp_path, signal.SIGINT, _copying, "copying"
    )
    assert code == 128 + signal.SIGINT, err
    assert "Ctrl-C: stopping the compaction" in err
    assert "compaction rolled back before its commit; nothing changed" in err
    assert "Traceback" not in err and out == ""
    assert sorted(p.name for p in (project / "segments").iterdir()) == segments
    assert not list(project.rglob("*.open"))
    assert urls(project)[1] == ""  # nothing left for recovery
    assert check_project(project, lambda url: show(capsys, project, url)) == before
    assert recrawl("compact", project, "--below", "1").returncode == 0


@pytest.mark.slow
def test_a_signal_after_the_commit_lets_the_compaction_finish(compactable, tmp_path, capsys):
    before = check_project(compactable, lambda url: show(capsys, compactable, url))
    project, code, out, err = _signal_compaction(
        compactable, tmp_path, signal.SIGTERM, _renamed, "committed"
    )
    assert code == 0, err
    assert "SIGTERM: stopping the compaction" in err
    assert "compaction was past its commit when stopped: finished" in err
    assert "Traceback" not in err
    assert json.loads(out)["segments_compacted"] >= 2
    assert not list(project.rglob("*.open"))
    assert urls(project)[1] == ""
    assert check_project(project, lambda url: show(capsys, project, url)) == before


def _browsers_of(profiles: Path) -> list[int]:
    """The live processes of browsers whose profile is under ``profiles``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            status = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
            if status[0] != b"Z" and f"--user-data-dir={profiles}".encode() in cmdline:
                found.append(int(entry.name))
    return found


@needs_chromium
@pytest.mark.slow
def test_a_browser_crawl_killed_mid_load_leaves_no_browser_and_the_next_clears_its_profile(
    server, tmp_path
):
    """SIGKILL during a page load: the browser goes with the crawl (its DevTools pipe
    closes), and the profile folder the crawl could not remove is swept by the next."""
    site = script_site(server)
    loading, go_on = threading.Event(), threading.Event()

    def held_json(handler):  # the page's own request, mid-load: answered when the test says
        loading.set()
        go_on.wait(PATIENCE_S)
        return site._json("index")

    server.routes["/api/index.json"] = held_json
    # a short one: Chromium's socket goes in TMPDIR, and a socket's path has 107 bytes at most
    profiles = Path(tempfile.mkdtemp(prefix="rc-"))
    try:
        _kill_mid_load(server, site, tmp_path / "proj", profiles, loading, go_on)
    finally:
        go_on.set()
        shutil.rmtree(profiles, ignore_errors=True)


def _kill_mid_load(server, site, project, profiles, loading, go_on) -> None:
    env = {**os.environ, "TMPDIR": str(profiles)}
    recrawl("init", project)
    recrawl("inject", project, site.url("/"))
    recrawl("settings", project, "--set", f"capture.mode@{server.address}=browser")
    child = start("crawl", project, "--delay", "0", env=env)
    with watchdog(child):
        assert wait_until(lambda: loading.is_set() or child.poll() is not None)
        assert loading.is_set(), child.communicate()
        assert _browsers_of(profiles)
        child.kill()
        child.communicate()
    assert wait_until(lambda: not _browsers_of(profiles)), _browsers_of(profiles)
    left = [p for p in profiles.iterdir() if p.name.startswith(PROFILE_PREFIX)]
    assert len(left) == 1  # nothing of the killed crawl could remove it
    go_on.set()
    again = subprocess.run(
        [sys.executable, "-m", "recrawl", "crawl", str(project), "--delay", "0", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["fetched"] == 1
    assert [p.name for p in profiles.iterdir() if p.name.startswith(PROFILE_PREFIX)] == []
    assert not _browsers_of(profiles)
