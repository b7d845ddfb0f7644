"""The command line contract of docs/design.md §8: exact JSON keys, clear one-line errors;
on SQLite and PostgreSQL (docs/design.md §12)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from recrawl.main import main
from tests.support.stores import store_kind  # noqa: F401  # the CLI's contract on both stores

CRAWL_KEYS = {"rounds", "fetched", "new_urls", "errors", "elapsed_s", "pages_per_s", "segments"}
#: Beside DESIGN §8's keys: the crawl's news (§10).
CRAWL_KEYS |= {"new_pages", "changed_pages"}
#: ... and what pages embed, counted apart (§14).
CRAWL_KEYS |= {"embeds_fetched", "embed_errors"}
#: ... and the patterns held back as possible traps (issue 25).
CRAWL_KEYS |= {"possible_traps"}
#: ... and when the next page is due (§15, issue 25).
CRAWL_KEYS |= {"next_due_at"}
#: ... and pages gone and back, and those a host's first crawl archived (§15).
CRAWL_KEYS |= {"gone_pages", "back_pages", "baseline_pages"}
URL_KEYS = {
    "url",
    "status",
    "first_seen",
    "last_fetched",
    "next_fetch",
    "fetch_interval",
    "content_changed_at",
    "segment",
    "score",
    "discovered_via",
    "discovered_from",
    "published_at",
    "kind",
}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def site(server):
    server.html("/", '<a href="/a">a</a> <a href="/b.html">b</a>')
    server.html("/a", "<p>alpha</p>")
    server.html("/b.html", "<p>beta café</p>")
    return server


def test_init_inject_crawl_and_inspect(tmp_path, capsys, site, db_args):
    d = tmp_path / "p"
    assert run(capsys, "init", d, *db_args)[0] == 0
    assert run(capsys, "inject", d, site.url("/"))[0] == 0
    code, out, _ = run(
        capsys,
        "crawl",
        d,
        "--delay",
        "0",
        "--per-host",
        "2",
        "--json",
        "--now",
        "2027-01-01T00:00:00Z",
    )
    assert code == 0
    summary = json.loads(out)
    assert set(summary) == CRAWL_KEYS
    assert summary["fetched"] == 3 and summary["new_urls"] == 2 and summary["errors"] == 0
    # the first crawl: no page is new yet, its host's baseline has them (docs/design.md §15)
    assert summary["new_pages"] == 0 and summary["changed_pages"] == 0
    assert summary["baseline_pages"] == 3
    assert summary["segments"][0].startswith("202701010000")

    code, out, _ = run(capsys, "urls", d, "--json")
    rows = json.loads(out)
    assert {r["url"] for r in rows} == {site.url("/"), site.url("/a"), site.url("/b.html")}
    assert all(set(r) == URL_KEYS for r in rows)
    via = {r["url"]: (r["discovered_via"], r["discovered_from"]) for r in rows}
    assert via[site.url("/")] == ("seed", None)
    assert via[site.url("/a")] == ("link", site.url("/"))
    assert all(
        r["last_fetched"].startswith("2027-01-01T00:00") and r["last_fetched"].endswith("Z")
        for r in rows
    )

    code, out, _ = run(capsys, "urls", d, "--csv", "--status", "fetched")
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 3 and set(table[0]) == URL_KEYS

    code, out, _ = run(capsys, "urls", d, "--json", "--new-since", "2999-01-01T00:00:00Z")
    assert json.loads(out) == []

    code, out, _ = run(capsys, "history", d, site.url("/a"), "--json")
    (event,) = json.loads(out)
    assert set(event) == {
        "fetched_at",
        "http_status",
        "change",
        "interval_before",
        "interval_after",
        "segment",
        "error",
        "embeds",
        "embeds_missing",
        "embeds_missing_count",
    }
    # a page embedding nothing: complete, with nothing missing
    assert (event["embeds"], event["embeds_missing"], event["embeds_missing_count"]) == (0, [], 0)
    assert (
        event["http_status"] == 200
        and event["error"] is None
        and event["segment"] in summary["segments"]
    )
    # for people, the intervals in days (aronsson: 10 d, first fetch unknown → 12.0 d)
    code, out, _ = run(capsys, "history", d, site.url("/a"))
    assert "10.0 d -> 12.0 d" in out and event["segment"] in out

    capsys.readouterr()
    assert main(["show", str(d), site.url("/b.html")]) == 0
    assert "beta café" in capsys.readouterr().out

    code, out, _ = run(capsys, "segments", d, "--json")
    segments = json.loads(out)
    assert [s["name"] for s in segments] == summary["segments"]
    assert all(
        set(s) == {"name", "created_at", "records", "live_records", "liveness", "bytes"}
        for s in segments
    )
    assert sum(s["records"] for s in segments) == 3
    assert all(s["liveness"] == 1.0 for s in segments)


def test_second_crawl_later_refetches_due_pages(tmp_path, capsys, site, db_args):
    d = tmp_path / "p"
    run(capsys, "init", d, *db_args)
    run(capsys, "inject", d, site.url("/"))
    run(capsys, "crawl", d, "--delay", "0", "--json", "--now", "2027-01-01T00:00:00Z")
    code, out, _ = run(
        capsys, "crawl", d, "--delay", "0", "--json", "--now", "2027-01-10T00:00:00Z"
    )
    assert code == 0 and json.loads(out)["fetched"] == 0  # nothing due yet (30-day interval)
    code, out, _ = run(
        capsys, "crawl", d, "--delay", "0", "--json", "--now", "2027-02-15T00:00:00Z"
    )
    assert code == 0 and json.loads(out)["fetched"] == 3
    _code, out, _ = run(capsys, "history", d, site.url("/a"), "--json")
    assert len(json.loads(out)) == 2


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recrawl", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("crawl", "/nonexistent/project"), "no project at"),
        (("urls", "{tmp}"), "not a Recrawl project"),
        (("inject", "{proj}", "http://exa mple.com/"), "malformed"),
        (("inject", "{proj}", "ftp://example.com/"), "not an http(s) URL"),
        (("inject", "{proj}", "exa mple.org/news"), "malformed host: 'exa mple.org/news'"),
        (("crawl", "{proj}", "--bogus"), "unrecognized arguments: --bogus"),
        (("crawl", "{proj}", "--rounds", "zero"), "not a whole number"),
        (("crawl", "{proj}", "--now", "yesterday"), "not an ISO 8601 time"),
        (("history", "{proj}", "http://example.com/none"), "no page"),
        (("show", "{proj}", "http://example.com/none"), "no page"),
    ],
)
def test_bad_input_gets_one_clear_line(tmp_path, args, needle):
    proj = tmp_path / "proj"
    assert _cli("init", proj).returncode == 0
    args = tuple(a.format(tmp=tmp_path, proj=proj) for a in args)
    result = _cli(*args)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert needle in lines[0]
    assert "Traceback" not in result.stderr


def test_a_seed_without_a_scheme_is_taken_as_https_and_said(tmp_path):
    proj = tmp_path / "proj"
    assert _cli("init", proj).returncode == 0
    done = _cli("inject", proj, "example.org/news", "--feed", "example.org/feed.xml")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines() == [
        "took example.org/feed.xml as https://example.org/feed.xml",
        "injected 1 new of 1 feed",
        "took example.org/news as https://example.org/news",
        "injected 1 new of 1 URL",
    ]
    (line,) = _cli("urls", proj).stdout.splitlines()
    assert line.endswith(" https://example.org/news")
    assert "https://example.org/feed.xml" in _cli("sources", proj).stdout


def test_corrupt_store_is_reported_not_crashed(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "recrawl.sqlite").write_bytes(b"this is not a database" * 100)
    result = _cli("urls", proj)
    assert result.returncode == 1
    assert "cannot open the store" in result.stderr and "Traceback" not in result.stderr


def test_malformed_url_leaves_project_untouched(tmp_path, capsys, db_args):
    d = tmp_path / "p"
    run(capsys, "init", d, *db_args)
    code, _, err = run(capsys, "inject", d, "http://ok.example/", "http://[bad")
    assert code == 1 and "malformed" in err
    code, out, _ = run(capsys, "urls", d, "--json")
    assert json.loads(out) == []  # nothing half-injected


def test_corrupt_warc_gets_a_clear_error(tmp_path, capsys, site, db_args):
    d = tmp_path / "p"
    run(capsys, "init", d, *db_args)
    run(capsys, "inject", d, site.url("/"))
    run(capsys, "crawl", d, "--delay", "0", "--json")
    for warc in d.glob("segments/*/*.warc.gz"):
        data = bytearray(warc.read_bytes())
        data[len(data) // 3 :] = b"\x00garbage" * (len(data) // 12)
        warc.write_bytes(bytes(data[: len(data)]))
    code, _, err = run(capsys, "show", d, site.url("/b.html"))
    assert code == 1
    assert "corrupt WARC record" in err and err.count("\n") == 1


def test_show_at_picks_the_capture_closest_before(tmp_path, capsys, server, db_args):
    state = {"body": "<p>first version</p>"}

    def route(handler):
        from tests.support.httpserver import Reply

        return Reply(200, state["body"].encode(), {"Content-Type": "text/html"})

    server.routes["/p"] = route
    d = tmp_path / "p"
    run(capsys, "init", d, *db_args)
    run(capsys, "inject", d, server.url("/p"))
    run(capsys, "crawl", d, "--delay", "0", "--json", "--now", "2027-01-01T00:00:00Z")
    run(capsys, "crawl", d, "--delay", "0", "--json", "--now", "2027-02-01T00:00:00Z")  # same
    state["body"] = "<p>second version</p>"
    run(capsys, "crawl", d, "--delay", "0", "--json", "--now", "2027-03-01T00:00:00Z")

    def show_at(when: str) -> tuple[int, str]:
        capsys.readouterr()
        code = main(["show", str(d), server.url("/p"), "--at", when])
        return code, capsys.readouterr().out

    assert show_at("2027-01-15T00:00:00Z") == (0, "<p>first version</p>")
    # February's fetch was an identical-payload revisit: it shows January's response
    from recrawl.core.archive.captures import find_captures

    kinds = [c.mime for c in find_captures(d, server.url("/p"))]
    assert kinds == ["text/html", "warc/revisit", "text/html"]
    assert show_at("2027-02-15T00:00:00Z") == (0, "<p>first version</p>")
    assert show_at("2027-03-15T00:00:00Z") == (0, "<p>second version</p>")
    code, _ = show_at("2026-06-01T00:00:00Z")
    assert code == 1
