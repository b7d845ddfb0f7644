"""``recrawl export`` (docs/design.md §13): a WACZ of a crawled project, its progress line and
summary, and one clear line for bad input (the package itself: tests/core/archive/wacz/test_wacz.py)."""

from __future__ import annotations

import fcntl
import io
import json
import os
import resource
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from recrawl.core.archive.wacz import ExportProgress
from recrawl.core.cli import export as export_cli
from recrawl.core.cli.export import JSON_KEYS, ProgressLine

from recrawl.main import main
from tests.support.httpserver import Reply

ROUNDS = ("2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z")


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def crawled(tmp_path, capsys, server) -> Path:
    d = tmp_path / "p"
    server.html("/", "<html><head><title>Home</title></head><body><a href='/a'>a</a></body></html>")
    server.html("/a", "<html><body><p>A page.</p></body></html>")
    server.routes["/b"] = Reply(200, b"plain", {"Content-Type": "text/plain"})
    assert run(capsys, "init", d)[0] == 0
    assert run(capsys, "inject", d, server.url("/"), server.url("/b"))[0] == 0
    # a WARC a round (no compaction by policy, docs/design.md §18): the export reads three
    assert run(capsys, "settings", d, "--set", "compaction.auto=false")[0] == 0
    for now in ROUNDS:
        code, out, _ = run(capsys, "crawl", d, "--delay", "0", "--json", "--now", now)
        assert code == 0, out
    return d


def test_export_prints_progress_and_a_summary(crawled, capsys, tmp_path):
    out = tmp_path / "out.wacz"
    code, stdout, stderr = run(capsys, "export", crawled, out)
    assert code == 0, stderr
    # not a terminal: a first line and a last one (no line rewritten in place)
    lines = stderr.splitlines()
    assert lines[0].startswith("exporting: 0% (0 bytes of ")
    assert lines[-1].startswith("exporting: 100% (") and lines[-1].endswith("6 of 6 captures")
    assert "\r" not in stderr
    # the second round found nothing changed: its revisits bring the first round's responses
    assert stdout.startswith("exported 3 captures (and 3 responses their revisits refer to), ")
    assert ", 2 pages, from 3 WARCs: " in stdout and f" KiB in {out} (" in stdout
    with zipfile.ZipFile(out) as zf:
        assert "datapackage.json" in zf.namelist()


def test_export_json_and_filters(crawled, capsys, tmp_path, server):
    out = tmp_path / "out.wacz"
    code, stdout, stderr = run(capsys, "export", crawled, out, "--json", "--pages", "all")
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert tuple(summary) == JSON_KEYS
    assert summary["path"] == str(out) and summary["bytes"] == out.stat().st_size
    assert (summary["chosen"], summary["captures"], summary["pages"]) == (6, 6, 4)
    code, stdout, _ = run(
        capsys, "export", crawled, out, "--json", "--since", ROUNDS[1], "--site", "127.0.0.1"
    )
    summary = json.loads(stdout)
    assert code == 0 and summary["chosen"] == 3 and summary["revisit_targets"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "yesterday"], "recrawl: error: not an ISO 8601 time: 'yesterday'\n"),
        (["--site", "nowhere.example"], "recrawl: error: nothing to export: no captures of site nowhere.example\n"),
        (["--since", "2030-01-01"], "recrawl: error: nothing to export: no captures at or after 2030-01-01T00:00:00Z\n"),
    ],
)  # fmt: skip
def test_bad_input_is_one_clear_line(crawled, capsys, tmp_path, args, message):
    out = tmp_path / "out.wacz"
    code, stdout, stderr = run(capsys, "export", crawled, out, *args)
    assert (code, stdout, stderr) == (1, "", message)
    assert not out.exists() and list(tmp_path.glob("*.part")) == []


def test_bad_project_or_output_is_one_clear_line(crawled, capsys, tmp_path):
    code, _, stderr = run(capsys, "export", tmp_path / "none", tmp_path / "x.wacz")
    assert code == 1 and stderr.startswith("recrawl: error: no project at ")
    assert stderr.count("\n") == 1
    code, _, stderr = run(capsys, "export", crawled, tmp_path / "no" / "x.wacz")
    assert (code, stderr) == (
        1,
        f"recrawl: error: no folder {tmp_path / 'no'} to write x.wacz in\n",
    )
    code, _, stderr = run(capsys, "export", crawled, tmp_path)
    assert code == 1 and stderr.startswith(f"recrawl: error: {tmp_path} is a folder")
    with pytest.raises(SystemExit) as exit_:
        main(["export", str(crawled), str(tmp_path / "x.wacz"), "--pages", "some"])
    stderr = capsys.readouterr().err
    assert exit_.value.code == 2 and "invalid choice: 'some'" in stderr
    assert stderr.count("\n") == 1


def test_ctrl_c_leaves_no_file_and_the_old_one_untouched(crawled, capsys, tmp_path, monkeypatch):
    out = tmp_path / "out.wacz"
    out.write_bytes(b"an earlier export")

    class Interrupted(ProgressLine):
        def __call__(self, progress: object) -> None:
            super().__call__(progress)
            signal.raise_signal(signal.SIGINT)  # as a Ctrl-C in the middle of the copy

    monkeypatch.setattr(export_cli, "ProgressLine", Interrupted)
    code, stdout, stderr = run(capsys, "export", crawled, out)
    assert code == 128 + signal.SIGINT
    assert stdout == ""
    assert stderr.splitlines()[-1] == "recrawl: the export stopped; no file was written"
    assert out.read_bytes() == b"an earlier export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.wacz", "p"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_progress_line_is_rewritten_in_place():
    out = Terminal()
    line = ProgressLine(out)
    for done in (0, 512, 2048):
        line(ExportProgress(done, 2048, done // 1024, 2))
    text = out.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n") and text.count("\n") == 1
    previous, last = text.split("\r")[2:]
    # the last text, padded over what was longer before it
    assert last.rstrip() == "exporting: 100% (2 KiB of 2 KiB), 2 of 2 captures"
    assert len(last) == max(len(previous), len(last.rstrip())) + 1


def test_elsewhere_a_line_comes_every_few_seconds():
    out = io.StringIO()
    line = ProgressLine(out, every_s=3600)
    for done in range(0, 2049, 256):
        line(ExportProgress(done, 2048, 0, 2))
    assert out.getvalue().splitlines() == [
        "exporting: 0% (0 bytes of 2 KiB), 0 of 2 captures",
        "exporting: 100% (2 KiB of 2 KiB), 0 of 2 captures",
    ]


def test_help_lists_the_json_keys():
    result = subprocess.run(
        [sys.executable, "-m", "recrawl", "export", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    assert all(key in result.stdout for key in JSON_KEYS)


def test_a_round_still_being_written_is_left_out_and_said(crawled, capsys, tmp_path):
    from recrawl.core.archive.segment_writer import SegmentWriter
    from recrawl.core.archive.segments import allocate_name
    from recrawl.core.clock import parse_iso
    from recrawl.core.layout import LOCK_FILE
    from recrawl.core.project import Project

    at = parse_iso("2027-03-01T00:00:00Z")
    project = Project.open(crawled)
    name = allocate_name(crawled, at)
    writer = SegmentWriter(crawled, name, at)  # a round that has begun: no index yet
    project.close()
    # its crawl holds the project (flock), so opening it recovers nothing
    with open(crawled / LOCK_FILE, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, stdout, stderr = run(capsys, "export", crawled, tmp_path / "out.wacz", "--json")
    writer._fh.close()
    assert code == 0, stderr
    assert json.loads(stdout)["open_segments"] == [name]
    assert (
        f"recrawl: left out 1 round still being written ({name}): export again once it ends\n"
        in stderr
    )


def _no_room_past(size: int):
    def limit() -> None:
        # the kernel's answer to a write past RLIMIT_FSIZE is the one a full disk gives
        # the export (an OSError from write), not a signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


def test_a_full_disk_is_one_clear_line_and_leaves_no_file(tmp_path, capsys, server):
    d = tmp_path / "p"
    server.routes["/big"] = Reply(200, os.urandom(2 << 20), {"Content-Type": "text/plain"})
    assert run(capsys, "init", d)[0] == 0
    assert run(capsys, "inject", d, server.url("/big"))[0] == 0
    assert run(capsys, "crawl", d, "--delay", "0")[0] == 0
    out = tmp_path / "out" / "x.wacz"
    out.parent.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "recrawl", "export", str(d), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_no_room_past(1 << 20),  # the store fits; the 2 MiB page does not
    )
    last = result.stderr.splitlines()[-1]
    assert result.returncode == 1, result.stderr
    assert last.startswith(f"recrawl: error: cannot write {out}") and "File too large" in last
    assert "Traceback" not in result.stderr
    assert list(out.parent.iterdir()) == []


def test_site_may_be_given_with_its_port_or_as_a_url(crawled, capsys, tmp_path, server):
    """What a browser's address bar shows (a port, a scheme, a path) names the site too:
    the same captures as the bare host, not "no captures of site ..."."""
    out = tmp_path / "out.wacz"
    host = f"127.0.0.1:{server.port}"
    chosen = []
    for site in ("127.0.0.1", host, f"http://{host}/a", "127.0.0.1."):
        code, stdout, stderr = run(capsys, "export", crawled, out, "--json", "--site", site)
        assert code == 0, (site, stderr)
        chosen.append(json.loads(stdout)["chosen"])
    assert chosen == [3, 3, 3, 3]
    # another port of that host is another site
    code, _, stderr = run(capsys, "export", crawled, out, "--site", "127.0.0.1:1")
    assert (code, stderr) == (
        1,
        "recrawl: error: nothing to export: no captures of site 127.0.0.1:1\n",
    )


def _open_files_at_most(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return apply


def test_a_low_limit_of_open_files_that_fits_the_export_is_enough(crawled, tmp_path):
    """`ulimit -n 64` (soft and hard): 3 WARCs fit easily, though not 3 + 256 spare."""
    out = tmp_path / "out.wacz"
    result = subprocess.run(
        [sys.executable, "-m", "recrawl", "export", str(crawled), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_open_files_at_most(64),
    )
    assert result.returncode == 0, result.stderr
    assert "from 3 WARCs" in result.stdout
    with zipfile.ZipFile(out) as zf:
        assert len([n for n in zf.namelist() if n.startswith("archive/")]) == 3
