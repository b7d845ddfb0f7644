"""Issue 12's reliability goal: SIGINT, SIGTERM and SIGKILL, twenty of each, at random
moments of crawls and compactions of one project; after each, nothing committed is lost
and nothing is captured twice.

One project lives through the whole storm. Each crawl runs at a new ``--now`` (a year
on), when every page is due and the even pages have changed, so segments age and
compactions find work. A crawl is signalled after a random number of the site's
answers; a compaction after a random number of changes to its files (inotify). For
SIGINT and SIGTERM the test then holds still what could otherwise race the signal: the
site's answers (the crawl cannot end meanwhile) or the database's write lock (the
compaction's journal cannot move on). After each signal the next command recovers what
is left, and ``tests.support.consistency`` checks the project.

The seed is ``RECRAWL_SIGNAL_SEED`` (default below); a failure names it.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from recrawl.main import main
from tests.support import fswatch
from tests.support.consistency import check_project
from tests.support.interrupted import GatedSite, read_until, recrawl, start, watchdog

SEED = int(os.environ.get("RECRAWL_SIGNAL_SEED", "20270112"))
PAGES = 16
EACH = 20
FIRST_YEAR = 2030


def _cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


class Storm:
    def __init__(self, project: Path, site: GatedSite, capsys: pytest.CaptureFixture[str]):
        self.project = project
        self.site = site
        self.capsys = capsys
        self.rng = random.Random(SEED)
        self.year = FIRST_YEAR
        self.checked: set[tuple[Path, int]] = set()
        self.outcomes: Counter[str] = Counter()

    # -- crawls ----------------------------------------------------------------------------

    def crawl(self, signum: int) -> str:
        """A crawl of the next version, signalled after a random number of answers."""
        self.year += 1
        self.site.version = self.year - FIRST_YEAR
        server = self.site.server
        # robots.txt, then every page: the answer to this one is held, and all after it
        target = len(server.hits) + self.rng.randint(1, PAGES)
        self.site.hold_from(target)
        child = start(
            "crawl",
            self.project,
            "--delay",
            "0",
            "--per-host",
            "2",
            "--now",
            f"{self.year}-01-01T00:00:00Z",
            "--json",
        )
        try:
            with watchdog(child):
                server.wait_hits(target, while_running=child)
                child.send_signal(signum)
                if signum != signal.SIGKILL:
                    read_until(child.stderr, "stopping after the fetches in flight")
                self.site.release()
                out, err = child.communicate()
        finally:
            self.site.release()
        if signum == signal.SIGKILL:
            assert child.returncode == -signal.SIGKILL
            return "crawl killed"
        assert child.returncode == 0, err
        assert "Traceback" not in err
        summary = json.loads(out)
        return "crawl stopped early" if summary["fetched"] < PAGES else "crawl stopped at its end"

    # -- compactions -----------------------------------------------------------------------

    def compactable(self) -> bool:
        code, out, _ = _cli(self.capsys, "segments", self.project, "--json")
        assert code == 0
        return sum(1 for s in json.loads(out) if s["liveness"] < 1) >= 2

    def compact(self, signum: int) -> str | None:
        """A compaction signalled after a random number of changes to its files; None
        when it finished before that many."""
        (self.project / "history").mkdir(exist_ok=True)
        watch = fswatch.FolderEvents(self.project / "segments", self.project / "history")
        child = start("compact", self.project, "--below", "1", "--json")
        assert child.stdout is not None
        moment = self.rng.randint(1, 24)  # a compaction here changes 20 to 30 files
        seen = 0
        state: str | None = None
        with watchdog(child):
            while (batch := watch.next_batch(also=child.stdout.fileno())) is not None:
                seen += len(batch)
                if seen < moment:
                    continue
                if signum == signal.SIGKILL:
                    child.send_signal(signum)
                    break
                db = sqlite3.connect(
                    self.project / "recrawl.sqlite", timeout=60, isolation_level=None
                )
                with contextlib.closing(db):
                    db.execute("BEGIN IMMEDIATE")  # the journal stands still meanwhile
                    row = db.execute(
                        "SELECT state FROM compaction ORDER BY id DESC LIMIT 1"
                    ).fetchone()
                    state = row[0] if row else None
                    if state in ("copying", "committed"):
                        child.send_signal(signum)
                    db.execute("ROLLBACK")
                break
            out, err = child.communicate()
        watch.close()
        if signum == signal.SIGKILL:
            if child.returncode == 0:
                return None
            assert child.returncode == -signal.SIGKILL
            return "compaction killed"
        assert "Traceback" not in err
        if state == "copying":
            assert child.returncode == 128 + signum, err
            assert "compaction rolled back before its commit; nothing changed" in err
            return "compaction rolled back"
        if state == "committed":
            assert child.returncode == 0, err
            assert "compaction was past its commit when stopped: finished" in err
            assert json.loads(out)["segments_compacted"] >= 1
            return "compaction finished"
        assert child.returncode == 0, err
        return None  # it had ended: nothing was signalled

    # -- after each ------------------------------------------------------------------------

    def check(self) -> None:
        code, _, _ = _cli(self.capsys, "urls", self.project, "--json")  # recovers what is left
        assert code == 0
        check_project(self.project, self.show, self.expected, self.checked)

    def show(self, url: str) -> bytes:
        code, out, err = _cli(self.capsys, "show", self.project, url)
        assert code == 0, err
        return out.encode()

    def expected(self, url: str, fetched_at: datetime) -> bytes:
        page = int(url.rsplit("/p", 1)[1])
        return self.site.body(page, fetched_at.year - FIRST_YEAR)


@pytest.mark.slow
def test_sigint_sigterm_and_sigkill_at_random_moments_lose_and_repeat_nothing(
    tmp_path, server, capsys
):
    if not fswatch.available():
        pytest.skip("needs Linux's inotify")
    site = GatedSite(server, PAGES)
    project = tmp_path / "proj"
    recrawl("init", project)
    recrawl("inject", project, site.url(0))
    storm = Storm(project, site, capsys)
    to_send = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL] * EACH
    storm.rng.shuffle(to_send)
    sent: Counter[str] = Counter()
    for attempt in range(4 * len(to_send)):
        if not to_send:
            break
        signum = to_send[-1]
        kind = "compaction" if storm.compactable() and storm.rng.random() < 0.4 else "crawl"
        try:
            outcome = storm.compact(signum) if kind == "compaction" else storm.crawl(signum)
            storm.check()
        except Exception as exc:
            raise AssertionError(
                f"seed {SEED}, attempt {attempt}: {signal.Signals(signum).name} during a "
                f"{kind} ({dict(storm.outcomes)} before): {exc}"
            ) from exc
        if outcome is not None:  # the signal reached the work, not a finished process
            to_send.pop()
            storm.outcomes[outcome] += 1
            sent[f"{signal.Signals(signum).name} during a {kind}"] += 1
    print(f"seed {SEED}: {dict(sent)}; {dict(storm.outcomes)}")
    assert not to_send, f"seed {SEED}: {len(to_send)} signals never met work to stop"
    # the storm reached both kinds of work, and compactions on both sides of the commit
    assert sum(n for what, n in sent.items() if what.endswith("compaction")) >= 6, sent
    assert storm.outcomes["compaction rolled back"] and storm.outcomes["compaction finished"]
    assert storm.outcomes["crawl stopped early"] >= EACH // 2
