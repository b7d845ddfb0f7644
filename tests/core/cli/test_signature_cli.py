"""``recrawl signature``: main-text by default; --set recomputes, shows progress, resumes."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

import pytest
from recrawl.core.layout import STORE_FILE

from recrawl.main import main
from tests.support.interrupted import read_until, recrawl, start, watchdog
from tests.support.siteserver import StaticSite

ARTICLE = (
    "<html><head><title>Grossberg</title></head><body><nav><a href='/'>Home</a></nav>"
    "<div class='clock'>{clock}</div><article><h1>The Grossberg is taller than thought</h1>"
    "<p>Surveyors returned from the summit of the Grossberg last week with new "
    "measurements of the highest peak in the eastern range.</p><p>The survey team spent "
    "four days on the mountain, using satellite receivers and a laser rangefinder.</p>"
    "{extra}</article><footer>Visitors: {visitors}</footer></body></html>"
)


def article(clock: str = "18:42", extra: str = "", visitors: int = 1200) -> str:
    return ARTICLE.format(clock=clock, extra=extra, visitors=visitors)


def history(capsys: pytest.CaptureFixture[str], d: str, url: str) -> list[str]:
    capsys.readouterr()
    assert main(["history", d, url, "--json"]) == 0
    return [row["change"] for row in json.loads(capsys.readouterr().out)]


def run_crawl(d: str, now: str) -> None:
    assert main(["crawl", d, "--delay", "0", "--now", now, "--json"]) == 0


def test_a_small_edit_is_changed_across_rounds_with_the_default(tmp_path, server, capsys):
    d = str(tmp_path / "p")
    assert main(["init", d]) == 0
    assert main(["signature", d, "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == {"signature": "main-text"}
    server.html("/", article())
    assert main(["inject", d, server.url("/")]) == 0
    run_crawl(d, "2027-01-01T00:00:00Z")
    server.html("/", article(clock="09:13", visitors=1377))  # noise only
    run_crawl(d, "2028-01-01T00:00:00Z")
    # the correction, one sentence
    server.html("/", article(clock="10:02", extra="<p>It is 2,345 m high, not 2,435 m.</p>"))
    run_crawl(d, "2029-01-01T00:00:00Z")
    assert history(capsys, d, server.url("/")) == ["unknown", "unchanged", "changed"]


def test_set_recomputes_so_the_next_fetch_is_never_unknown(tmp_path, server, capsys):
    d = str(tmp_path / "p")
    assert main(["init", d]) == 0
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", article())
    server.html("/b", article())
    assert main(["inject", d, server.url("/")]) == 0
    run_crawl(d, "2027-01-01T00:00:00Z")
    capsys.readouterr()
    assert main(["signature", d, "--set", "text-profile", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {
        "signature": "text-profile",
        "recompute": {"pages": 3, "recomputed": 3, "unreadable": 0, "skipped": 0, "stopped": False},
    }
    assert "recomputing text-profile signatures: 3 of 3 pages (100 %)" in err
    server.html("/b", article(extra="<p>A new paragraph about the summit cross and its age.</p>"))
    run_crawl(d, "2028-01-01T00:00:00Z")
    assert history(capsys, d, server.url("/a"))[-1] == "unchanged"
    assert history(capsys, d, server.url("/b"))[-1] == "changed"
    # nothing left to do: said so, and the plain output is still the kind alone
    assert main(["signature", d, "--set", "text-profile"]) == 0
    out, err = capsys.readouterr()
    assert out == "text-profile\n"
    assert "every page's signature is already text-profile" in err


PAGES = 260  # more than one batch (200) of pages


@pytest.fixture
def crawled(tmp_path) -> Path:
    site = StaticSite(tmp_path / "site", PAGES)
    folder = tmp_path / "proj"
    try:
        recrawl("init", folder)
        recrawl("signature", folder, "--set", "md5")
        recrawl("inject", folder, site.url(0))
        recrawl("crawl", folder, "--delay", "0", "--json")
    finally:
        site.stop()
    return folder


def kinds(folder: Path) -> dict[str | None, int]:
    db = sqlite3.connect(folder / STORE_FILE)
    try:
        rows = db.execute(
            "SELECT signature_kind, COUNT(*) FROM page WHERE payload_file IS NOT NULL "
            "GROUP BY signature_kind"
        )
        return dict(rows.fetchall())
    finally:
        db.close()


def test_ctrl_c_stops_between_batches_and_set_again_resumes(crawled):
    assert kinds(crawled) == {"md5": PAGES}
    # The test holds the store's write lock until it has signalled: the first batch (and
    # the switch, saved with it) cannot be written before the Ctrl-C has reached the
    # command, however fast it signs.
    db = sqlite3.connect(crawled / STORE_FILE, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        child = start("signature", crawled, "--set", "text-profile", "--json")
        with watchdog(child):
            read_until(child.stderr, f"0 of {PAGES} pages")
            child.send_signal(signal.SIGINT)
            db.execute("ROLLBACK")
            out, err = child.communicate()
    finally:
        db.close()
    assert child.returncode == 128 + signal.SIGINT, err
    assert "stopping after the batch in hand" in err
    stopped = json.loads(out)["recompute"]
    assert stopped == {
        "pages": PAGES,
        "recomputed": 200,
        "unreadable": 0,
        "skipped": 0,
        "stopped": True,
    }
    # consistent: every page has the one kind or the other, the switch is saved
    assert kinds(crawled) == {"text-profile": 200, "md5": PAGES - 200}
    assert json.loads(recrawl("signature", crawled, "--json").stdout) == {
        "signature": "text-profile"
    }
    done = recrawl("signature", crawled, "--set", "text-profile")
    assert f"recomputed {PAGES - 200} pages' signatures as text-profile" in done.stderr
    assert kinds(crawled) == {"text-profile": PAGES}
