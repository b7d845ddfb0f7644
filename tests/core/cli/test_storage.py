"""``recrawl storage``: the JSON keys of docs/design.md §18, the text, and the warning."""

from __future__ import annotations

import json

from recrawl.main import main
from tests.support.stores import store_kind  # noqa: F401  # the CLI's contract on both stores

TOP = {
    "project",
    "measured_at",
    "total_bytes",
    "by_kind",
    "by_site",
    "by_month",
    "segments",
    "growth",
    "compaction",
    "free",
    "measured_files",
    "unreadable",
}
KINDS = ["pages", "embeds", "history", "open", "indexes", "store", "other"]
BUCKET = {"captures", "bytes", "pages", "embeds", "history"}
SEGMENTS = {
    "count",
    "open",
    "records",
    "live_records",
    "liveness",
    "bytes",
    "superseded_bytes",
    "list",
}
SEGMENT = {
    "name",
    "created_at",
    "state",
    "records",
    "live_records",
    "liveness",
    "bytes",
    "superseded_bytes",
}
GROWTH = {"method", "months", "bytes_per_month", "next_year_bytes", "months_until_full"}
COMPACTION = {
    "segments",
    "segments_bytes",
    "superseded_records",
    "superseded_bytes",
    "history_files",
    "history_bytes",
    "history_index_bytes",
    "drop_superseded_bytes",
}
FREE = {"path", "free_bytes", "total_bytes", "warn_below", "warning"}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def crawled(tmp_path, capsys, server, db_args, rounds: int = 2):
    d = tmp_path / "p"
    server.html("/", "<p>the root, no links: one round a crawl</p>")
    assert run(capsys, "init", d, *db_args)[0] == 0
    assert run(capsys, "inject", d, server.url("/"), server.url("/a"))[0] == 0
    for r in range(rounds):
        server.html("/a", f"<p>alpha {r}</p>")
        now = f"2027-0{1 + 2 * r}-01T00:00:00Z"
        code = run(capsys, "crawl", d, "--delay", "0", "--now", now, "--json")[0]
        assert code == 0
    return d


def test_storage_json_keys(tmp_path, capsys, server, db_args):
    d = crawled(tmp_path, capsys, server, db_args)
    code, out, _ = run(capsys, "storage", d, "--json")
    assert code == 0
    report = json.loads(out)
    assert set(report) == TOP
    assert list(report["by_kind"]) == KINDS
    assert report["total_bytes"] == sum(report["by_kind"].values())
    assert [set(b) for b in report["by_site"]] == [BUCKET | {"host"}]
    assert report["by_site"][0]["host"] == "127.0.0.1"
    assert [b["month"] for b in report["by_month"]] == ["2027-01", "2027-03"]
    assert all(set(b) == BUCKET | {"month"} for b in report["by_month"])
    assert set(report["segments"]) == SEGMENTS and report["segments"]["count"] == 2
    assert all(set(s) == SEGMENT for s in report["segments"]["list"])
    assert report["segments"]["list"][0]["created_at"].endswith("Z")
    assert set(report["growth"]) == GROWTH
    assert report["growth"]["method"] == "full-months" and report["growth"]["months"] == ["2027-02"]
    assert set(report["compaction"]) == COMPACTION
    assert report["compaction"]["segments"] == [report["segments"]["list"][0]["name"]]
    assert set(report["free"]) == FREE and report["free"]["warning"] is None
    assert report["free"]["warn_below"] == 2 << 30  # the default: 2 GiB
    assert report["measured_at"].endswith("Z") and report["unreadable"] == []


def test_storage_text_and_its_warning(tmp_path, capsys, server, db_args):
    d = crawled(tmp_path, capsys, server, db_args, rounds=1)
    code, out, _ = run(capsys, "storage", d)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith(tuple("0123456789")) and f"in {d}" in lines[0]
    assert not any(line.startswith("WARNING") for line in lines)
    assert "by site:" in lines and any("127.0.0.1" in line for line in lines)
    assert run(capsys, "settings", d, "--set", "storage.warn_free=100000000G")[0] == 0
    code, out, _ = run(capsys, "storage", d)
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("WARNING: only ") and "storage.warn_free" in first


def test_storage_text_says_one_segment_holds(tmp_path, capsys, server, db_args):
    d = crawled(tmp_path, capsys, server, db_args)
    code, out, _ = run(capsys, "storage", d)
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("compaction: ")]
    assert line.startswith("compaction: 1 segment (") and ") holds " in line
