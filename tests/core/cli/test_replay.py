"""``recrawl replay``: pywb serving a project's captures as they change (docs/design.md §13).

The server runs as the app and the tests start it (:class:`ReplayServer`: the real
command in a subprocess) while crawls and a compaction change the project under it; the
command's own line, its errors and its stops are checked on the real entry point.
"""

from __future__ import annotations

import re
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core.archive.captures import find_captures
from recrawl.core.archive.compaction import compact
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.engine import inject
from recrawl.core.errors import ReplayUnavailable
from recrawl.core.project import Project
from recrawl.core.replay.server import INSTALL_HINT, ReplayServer
from recrawl.core.store.models import Segment

from recrawl.main import main
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.httpserver import Reply
from tests.support.interrupted import read_until, recrawl, start, watchdog
from tests.support.replayserver import fetch, shown

pytestmark = pytest.mark.slow

OLD = b"<html><body><p>The first version.</p></body></html>"
NEW = b"<html><body><p>The second version.</p></body></html>"
LATER = b"<html><body><p>A page found after the server started.</p></body></html>"


def html(body: bytes) -> Reply:
    return Reply(200, body, {"Content-Type": "text/html"})


@pytest.fixture
def project(tmp_path, server) -> Iterator[Project]:
    server.routes["/"] = html(OLD)
    project = Project.init(tmp_path / "proj")
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    yield project
    project.close()


def test_captures_made_while_it_serves_replay_and_survive_a_compaction(project, server):
    replay = ReplayServer(project.path)
    try:
        (first,) = find_captures(project.path, server.url("/"))
        assert fetch(replay.url(capture_stamp(first.date), server.url("/"), raw=True)).body == OLD

        # a round after the server started: a new segment, a new page, a changed one
        server.routes["/"] = html(NEW + b'<a href="/later">l</a>')
        server.routes["/later"] = html(LATER)
        crawl(project, clock=clock_at(31 * DAY))
        (later,) = find_captures(project.path, server.url("/later"))
        answer = fetch(replay.url(capture_stamp(later.date), server.url("/later"), raw=True))
        assert (answer.status, answer.body) == (200, LATER)
        old, new = find_captures(project.path, server.url("/"))
        assert fetch(replay.url(capture_stamp(new.date), server.url("/"), raw=True)).body == (
            NEW + b'<a href="/later">l</a>'
        )
        # in the page as a browser shows it, its link leads to the linked page's capture
        page = shown(replay, capture_stamp(new.date), server.url("/"))
        assert page.status == 200
        (link,) = re.findall(rb'href="([^"]+)"', page.body.split(b"End WB Insert")[-1])
        assert link.startswith(f"/project/{capture_stamp(new.date)}mp_/".encode()), link
        followed = fetch(replay.base + link.decode(), encodings="")
        shows = followed.body.split(b"End WB Insert")[-1]
        assert followed.status == 200 and b"A page found after the server started." in shows
        # a timestamp prefix (pywb reads it as the prefix's last second): the capture
        # closest to it; pywb redirects to that capture's own stamp
        day = capture_stamp(old.date)[:8]
        assert fetch(replay.url(day, server.url("/"), raw=True)).body == OLD

        # every segment folded into one: the old segments are gone, the old page moved
        # to history, and both captures still replay from where they are now
        segments = sorted(s.name for s in Segment.select())
        summary = compact(project, names=segments)
        assert summary.new_segment and summary.history_file
        assert not any((project.path / "segments" / name).exists() for name in segments)
        old_after, new_after = find_captures(project.path, server.url("/"))
        assert old_after.path.parent.name == "history"
        for capture, body in ((old_after, OLD), (new_after, NEW)):
            answer = fetch(replay.url(capture_stamp(capture.date), server.url("/"), raw=True))
            assert answer.status == 200, answer
            assert answer.body.startswith(body)
        page = shown(replay, capture_stamp(later.date), server.url("/later"))
        assert page.status == 200
        assert b"A page found after the server started." in page.body
    finally:
        replay.stop()
    assert replay.exit_status == 0  # stopped by closing its stdin, cleanly
    assert not replay.running


def test_it_says_where_it_serves_and_ctrl_c_or_sigterm_stop_it(project, server):
    (capture,) = find_captures(project.path, server.url("/"))
    for signum, status, name in ((signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")):
        with start("replay", project.path, "--port", "0") as child, watchdog(child):
            assert child.stdout is not None
            line = child.stdout.readline()
            assert line.startswith(f"Serving the captures of {project.path} at http://127.0.0.1:")
            base = line.split(" at ", 1)[1].split("/project/", 1)[0]
            url = f"{base}/project/{capture_stamp(capture.date)}id_/{server.url('/')}"
            assert fetch(url).body == OLD
            child.send_signal(signum)
            said = read_until(child.stderr, f"recrawl: {name}: stopped serving")
            assert child.wait() == status
            assert child.stdout.read() == ""  # one line, nothing else
            said += child.stderr.readlines()
            assert "Traceback" not in "".join(said)


def test_errors_are_one_line(tmp_path, project, capsys):
    assert main(["replay", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert err == f"recrawl: error: no project at {tmp_path / 'nowhere'}\n"
    (tmp_path / "empty").mkdir()
    assert main(["replay", str(tmp_path / "empty")]) == 1
    assert "is not a Recrawl project" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(project.path), "--port", "70000"])
    assert exit_.value.code == 2
    assert "not a port number: 70000" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = recrawl("replay", project.path, "--port", port, check=False)
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"recrawl: error: cannot listen on 127.0.0.1:{port}: ")
    assert line.endswith("(choose another with --port; 0 picks a free one)")


def test_without_pywb_it_says_how_to_get_it(project, capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pywb", None)  # as if never installed
    assert main(["replay", str(project.path)]) == 1
    assert capsys.readouterr().err == (
        f"recrawl: error: replay needs pywb, which is not installed: {INSTALL_HINT}\n"
    )
    # a server process whose pywb cannot be imported: the client says the same
    stand_in = tmp_path / "no-pywb" / "pywb"
    stand_in.mkdir(parents=True)
    (stand_in / "__init__.py").write_text("raise ImportError('pywb is missing here')\n")
    monkeypatch.setenv("PYTHONPATH", str(stand_in.parent))
    with pytest.raises(ReplayUnavailable, match=INSTALL_HINT.replace("[", r"\[")):
        ReplayServer(Path(project.path))


def test_it_serves_without_pyopenssl_as_the_packaged_app_does(project, server, tmp_path):
    """The bundle leaves pyOpenSSL and cryptography out (12 MB): pywb's proxy mode, which
    imports them, stands aside, and replay by URL works all the same."""
    hidden = tmp_path / "no-openssl"
    hidden.mkdir()
    # a finder ahead of site-packages for which they are not there
    (hidden / "sitecustomize.py").write_text(
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('OpenSSL', 'cryptography'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
    )
    (capture,) = find_captures(project.path, server.url("/"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(hidden))
        replay = ReplayServer(project.path)
    try:
        raw = fetch(replay.url(capture_stamp(capture.date), server.url("/"), raw=True))
        page = shown(replay, capture_stamp(capture.date), server.url("/"))
    finally:
        replay.stop()
    assert (raw.status, raw.body) == (200, OLD)
    assert page.status == 200 and b"The first version." in page.body


@pytest.mark.parametrize("name", ["Old crawls [2026]", "Crawls * été"])
def test_a_project_folder_named_with_brackets_stars_or_accents_replays(tmp_path, server, name):
    """The folder's name is no glob pattern to the server: only its index folders are."""
    server.routes["/"] = html(OLD)
    project = Project.init(tmp_path / name)
    try:
        inject([server.url("/")], T0)
        crawl(project, clock=clock_at())
    finally:
        project.close()
    (capture,) = find_captures(project.path, server.url("/"))
    replay = ReplayServer(project.path)
    try:
        answer = fetch(replay.url(capture_stamp(capture.date), server.url("/"), raw=True))
    finally:
        replay.stop()
    assert (answer.status, answer.body) == (200, OLD)
