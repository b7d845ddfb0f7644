"""Segment liveness and compaction (docs/design.md §7) on a project crawled over six rounds.

Pages change at different rates: every round, every 2nd, every 3rd, or never. Unchanged
fetches are identical-payload revisits of the page's last response, so old segments keep
the responses that later revisits refer to alive.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.clock import parse_iso
from recrawl.core.engine import inject
from recrawl.core.errors import ProjectLocked
from recrawl.core.project import Project
from recrawl.core.store.models import Compaction, Page, Segment

from recrawl.main import main
from tests.support import httpserver
from tests.support.capture_table import check_table_matches_indexes
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.small_disk import fill, small_disk
from tests.support.warcs import cdxj_lines, read_warc

# path -> the page changes every this many rounds (99: never in these six rounds)
PAGES = {
    "/hourly-a": 1,
    "/hourly-b": 1,
    "/two-a": 2,
    "/two-b": 2,
    "/three-a": 3,
    "/three-b": 3,
    "/never-a": 99,
    "/never-b": 99,
    "/never-c": 99,
}
ROUNDS = 6


def _body(path: str, version: int) -> str:
    rng = random.Random(f"{path}:{version}")
    words = " ".join(f"w{rng.randrange(100_000)}" for _ in range(rng.randrange(400, 1600)))
    return f"<html><body><h1>{path} version {version}</h1><p>{words}</p></body></html>"


def _round_time(r: int) -> str:
    return (T0 + r * 100 * DAY).strftime("%Y-%m-%dT%H:%M:%SZ")


def _payload_round(period: int) -> int:
    """The round whose response a page's latest capture stands for, after all rounds."""
    return ((ROUNDS - 1) // period) * period


@pytest.fixture(scope="module")
def site() -> Iterator[httpserver.TestServer]:
    server = httpserver.TestServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def template(tmp_path_factory, site) -> Path:
    folder = tmp_path_factory.mktemp("compaction") / "template"
    _crawl_rounds(folder, site)
    return folder


def _crawl_rounds(folder: Path, site: httpserver.TestServer, db_url: str | None = None) -> None:
    project = Project.init(folder, db_url=db_url)
    try:
        inject([site.url(p) for p in PAGES], T0)
        for r in range(ROUNDS):
            for path, period in PAGES.items():
                site.html(path, _body(path, r // period))
            crawl(project, clock=clock_at(r * 100 * DAY))
    finally:
        project.close()


@pytest.fixture
def proj(template, tmp_path) -> Path:
    target = tmp_path / "proj"
    shutil.copytree(template, target)
    return target


def run(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def segments(capsys, proj: Path) -> list[dict]:
    code, out, _ = run(capsys, "segments", proj, "--json")
    assert code == 0
    return json.loads(out)


def show(capsys, proj: Path, url: str, at: str | None = None) -> tuple[int, bytes]:
    capsys.readouterr()
    args = ["show", str(proj), url] + (["--at", at] if at else [])
    code = main(args)
    return code, capsys.readouterr().out.encode()


def snapshot(capsys, proj: Path, server_origin: str) -> dict[tuple[str, int], bytes]:
    """What `show --at` returns for every page just after every round."""
    out = {}
    for path in PAGES:
        for r in range(ROUNDS):
            code, body = show(capsys, proj, server_origin + path, _round_time(r + 1))
            assert code == 0
            out[path, r] = body
    return out


def origin_of(proj: Path) -> str:
    project = Project.open(proj)
    try:
        url = Page.select(Page.url).first().url
    finally:
        project.close()
    return url[: url.index("/", len("http://"))]


def all_files(proj: Path) -> list[Path]:
    return sorted(proj.glob("segments/*/*")) + sorted(proj.glob("history/*"))


def warcio_check_all(proj: Path) -> None:
    warcs = [p for p in all_files(proj) if p.name.endswith(".warc.gz")]
    exe = Path(sys.executable).parent / "warcio"
    done = subprocess.run([str(exe), "check", *map(str, warcs)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def indexed_captures(proj: Path) -> Counter[tuple[str, str]]:
    """(url, timestamp) of every capture any index lists; checks each line's record too."""
    seen: Counter[tuple[str, str]] = Counter()
    for index in sorted(proj.glob("segments/*/*.cdxj")) + sorted(proj.glob("history/*.cdxj")):
        lines = index.read_text().splitlines()
        assert lines == sorted(lines), f"{index} is not sorted"
        records = {r.offset: r for r in read_warc(index.parent / f"{index.stem}.warc.gz")}
        for _, stamp, fields in cdxj_lines(index):
            record = records[fields["offset"]]
            assert record.url == fields["url"] and record.type in ("response", "revisit")
            assert record.length == fields["length"]
            seen[fields["url"], stamp] += 1
    return seen


def check_store_matches_disk(proj: Path) -> None:
    project = Project.open(proj)
    try:
        names = {s.name for s in Segment.select()}
        assert all(s.state == "closed" for s in Segment.select())
        assert not Compaction.select().where(Compaction.state.in_(("copying", "committed"))).count()
        pointers = [
            (p.segment, p.capture_file, p.payload_segment, p.payload_file) for p in Page.select()
        ]
        check_table_matches_indexes(proj)
    finally:
        project.close()
    assert {p.name for p in proj.glob("segments/*")} == names
    assert not [p for p in all_files(proj) if p.name.endswith((".open", ".tmp"))]
    for segment, capture_file, payload_segment, payload_file in pointers:
        assert segment in names and payload_segment in names
        assert (proj / capture_file).is_file() and (proj / payload_file).is_file()


# -- liveness ------------------------------------------------------------------------------


def test_liveness_follows_change_rates_and_revisit_targets(proj, capsys):
    listed = segments(capsys, proj)
    assert len(listed) == ROUNDS
    assert set(listed[0]) == {"name", "created_at", "records", "live_records", "liveness", "bytes"}
    for r, seg in enumerate(listed):
        # the last round holds every latest capture; an older round holds the responses
        # that the latest revisits of pages unchanged since then refer to
        expected = len(PAGES) if r == ROUNDS - 1 else 0
        expected += sum(1 for period in PAGES.values() if _payload_round(period) == r != ROUNDS - 1)
        assert seg["records"] == len(PAGES)
        assert seg["live_records"] == expected, (r, seg)
        assert seg["liveness"] == round(expected / len(PAGES), 4)
        assert seg["created_at"].startswith(_round_time(r)[:-1])
    # the never-changing pages keep round 0 alive although they were fetched six times
    assert listed[0]["live_records"] == 3


# -- compaction ----------------------------------------------------------------------------


def test_compaction_keeps_every_capture_byte_identical(proj, capsys):
    _compacts_byte_identical(proj, capsys)


@pytest.mark.slow
def test_on_postgresql_too(tmp_path, capsys, site, pg_url):
    """The same crawl and compaction with the store in PostgreSQL (docs/design.md §12)."""
    _crawl_rounds(tmp_path / "pg", site, pg_url)
    _compacts_byte_identical(tmp_path / "pg", capsys)


def _compacts_byte_identical(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    origin = origin_of(proj)
    before = snapshot(capsys, proj, origin)
    latest = {path: show(capsys, proj, origin + path)[1] for path in PAGES}
    captures = indexed_captures(proj)
    listed = segments(capsys, proj)
    low = [s for s in listed if s["liveness"] < 0.5]
    assert 2 <= len(low) < ROUNDS

    code, out, _ = run(capsys, "compact", proj, "--below", "50%", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["segments_compacted"] == len(low)
    assert summary["compacted"] == [s["name"] for s in low]
    assert summary["records_kept"] == sum(s["live_records"] for s in low)
    assert summary["records_moved_to_history"] == sum(s["records"] - s["live_records"] for s in low)
    assert summary["records_dropped"] == 0
    assert summary["bytes_before"] == sum(s["bytes"] for s in low)
    assert 0 < summary["bytes_after"] < summary["bytes_before"]
    assert summary["history_file"] == f"history/{summary['new_segment']}-history.warc.gz"
    # a replay collection (or a WACZ) holds every WARC in one folder, found by file name
    warcs = [p.name for p in proj.glob("segments/*/*.warc.gz")] + [
        p.name for p in proj.glob("history/*.warc.gz")
    ]
    assert len(warcs) == len(set(warcs))

    after = segments(capsys, proj)
    names = [s["name"] for s in after]
    assert not set(names) & set(summary["compacted"])
    new = next(s for s in after if s["name"] == summary["new_segment"])
    assert new["liveness"] == 1.0 and new["records"] == summary["records_kept"]
    assert new["bytes"] == summary["bytes_after"]
    # every latest capture, and every older one through history, reads back the same
    assert {path: show(capsys, proj, origin + path)[1] for path in PAGES} == latest
    assert snapshot(capsys, proj, origin) == before
    assert indexed_captures(proj) == captures
    warcio_check_all(proj)
    check_store_matches_disk(proj)


def test_copied_records_are_byte_for_byte_the_originals(proj, capsys):
    def raw_records(paths: list[Path]) -> dict[str, bytes]:
        out = {}
        for path in paths:
            data = path.read_bytes()
            for rec in read_warc(path):
                if rec.type != "warcinfo":
                    out[rec.warc["WARC-Record-ID"]] = data[rec.offset : rec.offset + rec.length]
        return out

    original = raw_records(sorted(proj.glob("segments/*/*.warc.gz")))
    assert run(capsys, "compact", proj, "--below", "0.99")[0] == 0
    copied = raw_records(
        sorted(proj.glob("segments/*/*.warc.gz")) + sorted(proj.glob("history/*.warc.gz"))
    )
    assert copied == original  # requests included: nothing lost, nothing re-encoded


def test_drop_superseded_keeps_only_what_something_still_needs(proj, capsys):
    origin = origin_of(proj)
    latest = {path: show(capsys, proj, origin + path)[1] for path in PAGES}
    listed = segments(capsys, proj)
    chosen = [s["name"] for s in listed[:-1]]  # every round but the last
    code, out, _ = run(
        capsys, "compact", proj, "--segments", ",".join(chosen), "--drop-superseded", "--json"
    )
    assert code == 0
    summary = json.loads(out)
    kept = sum(s["live_records"] for s in listed[:-1])
    assert summary["records_kept"] == kept
    # the last round holds only latest captures, none a revisit of a superseded response,
    # so nothing outside the compacted rounds needs the superseded ones
    assert summary["records_moved_to_history"] == 0 and summary["history_file"] is None
    assert summary["records_dropped"] == len(PAGES) * (ROUNDS - 1) - kept
    assert not (proj / "history").exists() or not list((proj / "history").iterdir())
    assert {path: show(capsys, proj, origin + path)[1] for path in PAGES} == latest
    # a page that changed in the last round has no older capture left
    code, _ = show(capsys, proj, origin + "/hourly-a", _round_time(2))
    assert code == 1
    # a never-changing page's first response is what its latest revisit shows: kept
    code, body = show(capsys, proj, origin + "/never-a", _round_time(1))
    assert code == 0 and body == latest["/never-a"]
    warcio_check_all(proj)
    check_store_matches_disk(proj)


def test_revisit_targets_survive_across_segments(proj, capsys):
    origin = origin_of(proj)
    listed = segments(capsys, proj)
    never = origin + "/never-b"
    latest = show(capsys, proj, never)[1]

    # round 0 holds the response all later revisits of /never-b refer to: compacting it
    # alone, even dropping superseded captures, keeps that response
    code, out, _ = run(
        capsys, "compact", proj, "--segments", listed[0]["name"], "--drop-superseded", "--json"
    )
    summary = json.loads(out)
    assert code == 0 and summary["records_kept"] == 3
    assert show(capsys, proj, never) == (0, latest)

    # round 2 holds /two-a's version-1 response; round 3's revisit (outside the compacted
    # segment, superseded) refers to it: --drop-superseded moves it to history instead of
    # leaving that revisit pointing at nothing
    two = origin + "/two-a"
    at_round_3 = show(capsys, proj, two, _round_time(4))
    assert at_round_3[0] == 0
    code, out, _ = run(
        capsys, "compact", proj, "--segments", listed[2]["name"], "--drop-superseded", "--json"
    )
    summary = json.loads(out)
    assert code == 0
    assert summary["records_moved_to_history"] == 2  # /two-a's and /two-b's
    assert show(capsys, proj, two, _round_time(4)) == at_round_3
    warcio_check_all(proj)
    check_store_matches_disk(proj)


def test_crawling_after_compaction_revisits_the_moved_responses(proj, capsys, site):
    assert run(capsys, "compact", proj, "--below", "1")[0] == 0
    listed = segments(capsys, proj)
    assert len(listed) == 2 and all(s["liveness"] == 1.0 for s in listed)
    compacted = proj / "segments" / listed[0]["name"] / f"{listed[0]['name']}.warc.gz"
    moved_ids = {r.warc["WARC-Record-ID"] for r in read_warc(compacted)}

    for path, period in PAGES.items():  # round 6: only the hourly pages change
        site.html(path, _body(path, ROUNDS // period))
    project = Project.open(proj)
    try:
        crawl(project, clock=clock_at(ROUNDS * 100 * DAY))
    finally:
        project.close()
    newest = sorted(proj.glob("segments/*/*.warc.gz"))[-1]
    revisits = [r for r in read_warc(newest) if r.type == "revisit"]
    assert len(revisits) == sum(1 for p in PAGES.values() if ROUNDS % p)
    # the never-changed pages' revisits refer to responses that now live in the
    # compacted segment, under their original record ids
    never = [r for r in revisits if "/never-" in (r.url or "")]
    assert len(never) == 3 and all(r.warc["WARC-Refers-To"] in moved_ids for r in never)
    origin = origin_of(proj)
    for path, period in PAGES.items():
        code, body = show(capsys, proj, origin + path)
        assert code == 0 and f"version {ROUNDS // period}<" in body.decode()
    warcio_check_all(proj)
    check_store_matches_disk(proj)


def test_nothing_to_compact_and_bad_arguments(proj, capsys):
    code, out, _ = run(capsys, "compact", proj, "--below", "0", "--json")
    assert code == 0 and json.loads(out)["segments_compacted"] == 0
    code, _, err = run(capsys, "compact", proj, "--segments", "19990101000000")
    assert code == 1 and "no segment named 19990101000000" in err
    with pytest.raises(SystemExit):
        main(["compact", str(proj), "--below", "150%"])
    assert "between 0 and 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compact", str(proj)])  # neither --below nor --segments


def test_a_compaction_waits_for_a_crawl_and_says_so(proj, capsys):
    crawler = Project.open(proj)
    try:
        crawler.acquire_lock("crawl")
        code, _, err = run(capsys, "compact", proj, "--below", "0.5")
        assert code == 1
        assert "busy (crawl, pid" in err and "wait for it to finish" in err
        # one process: a compaction cannot start under its own crawl either
        with pytest.raises(ProjectLocked, match="busy \\(crawl\\)"):
            crawler.acquire_lock("compaction")
    finally:
        crawler.close()
    assert run(capsys, "compact", proj, "--below", "0.5")[0] == 0


# -- killed compactions --------------------------------------------------------------------

COMPACT_SCRIPT = """
import sys
from recrawl.core.archive.compaction import compact
from recrawl.core.project import Project
project = Project.open(sys.argv[1])
print("opened", flush=True)
compact(
    project,
    below=1.0,
    drop_superseded=sys.argv[2] == "drop",
    progress=lambda p: print(p.phase, p.done, p.total, flush=True),
)
print("exit", flush=True)
"""


def _compact_child(proj: Path, drop: bool) -> subprocess.Popen:
    root = Path(__file__).resolve().parents[4]
    return subprocess.Popen(
        [sys.executable, "-c", COMPACT_SCRIPT, str(proj), "drop" if drop else "keep"],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_sigkill_at_random_moments_of_a_compaction(template, tmp_path, capsys):
    origin = origin_of(template)
    latest = {path: show(capsys, template, origin + path)[1] for path in PAGES}
    captures = indexed_captures(template)

    calibration = tmp_path / "calibration"
    shutil.copytree(template, calibration)
    child = _compact_child(calibration, drop=False)
    lines = child.communicate(timeout=60)[0].splitlines()
    assert child.returncode == 0 and lines[-1] == "exit"
    phases = {line.split()[0] for line in lines}
    assert {"opened", "copy", "commit", "rename", "delete", "done"} <= phases

    rng = random.Random(2027)
    moments = sorted(rng.sample(range(1, len(lines)), 14))
    outcomes: Counter[str] = Counter()
    for i, moment in enumerate(moments):
        proj = tmp_path / f"kill{i}"
        shutil.copytree(template, proj)
        drop = i % 3 == 2
        child = _compact_child(proj, drop)
        assert child.stdout is not None
        last = ""
        for _ in range(moment):  # kill right after the child reports this step
            last = child.stdout.readline().strip() or last
        child.kill()
        child.communicate(timeout=30)
        with contextlib.closing(sqlite3.connect(proj / "recrawl.sqlite")) as db:
            left = [state for (state,) in db.execute("SELECT state FROM compaction")]
        outcomes.update(f"killed while {state}" for state in left)

        project = Project.open(proj)  # the next start recovers by itself
        try:
            jobs = list(Compaction.select())
        finally:
            project.close()
        assert all(job.state in ("done", "rolled_back") for job in jobs), (moment, last)
        check_store_matches_disk(proj)
        assert {p: show(capsys, proj, origin + p)[1] for p in PAGES} == latest, (moment, last)
        found = indexed_captures(proj)
        if drop:
            assert not found - captures, (moment, last)
        else:
            assert found == captures, (moment, last)
        warcio_check_all(proj)
        # and the project still compacts to the end
        assert run(capsys, "compact", proj, "--below", "1")[0] == 0
        assert {p: show(capsys, proj, origin + p)[1] for p in PAGES} == latest
        check_store_matches_disk(proj)
    # the kills landed both before the commit (undone) and after it (finished)
    # kills landed before the commit (recovery undid them) and after it (recovery finished)
    assert outcomes["killed while copying"] >= 2, outcomes
    assert outcomes["killed while committed"] >= 2, outcomes


def test_a_damaged_segment_is_refused_and_nothing_changes(proj, capsys):
    origin = origin_of(proj)
    latest = {path: show(capsys, proj, origin + path)[1] for path in PAGES}
    listed = segments(capsys, proj)
    first = listed[0]["name"]
    index = proj / "segments" / first / f"{first}.cdxj"
    lines = index.read_text().splitlines()
    # the capture /never-a points at (its only response) goes missing from the index
    index.write_text("\n".join(line for line in lines if "/never-a" not in line) + "\n")
    code, _, err = run(capsys, "compact", proj, "--below", "1")
    assert code == 1 and f"index of segment {first} does not list" in err
    assert "nothing was changed" in err and err.count("\n") == 1
    index.write_text("not an index\n")
    code, _, err = run(capsys, "compact", proj, "--below", "1")
    assert code == 1 and f"the index of segment {first} is corrupt" in err
    (proj / "segments" / first / f"{first}.warc.gz").unlink()
    index.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "compact", proj, "--below", "1")
    assert code == 1 and f"segment {first} is missing {first}.warc.gz" in err
    # the other segments and every page that does not live in the damaged one are intact
    assert segments(capsys, proj) == listed
    for path in PAGES:
        if show(capsys, proj, origin + path)[0] == 0:
            assert show(capsys, proj, origin + path)[1] == latest[path]
    assert not list(proj.glob("**/*.open"))


def test_a_truncated_last_index_line_is_one_line_not_a_traceback(proj, capsys):
    """A disk that filled (or a copy cut short) leaves a CDXJ line without its end: its
    offset and length still read, its JSON does not."""
    origin = origin_of(proj)
    latest = {path: show(capsys, proj, origin + path)[1] for path in PAGES}
    listed = segments(capsys, proj)
    names = [s["name"] for s in listed]
    last = names[-1]
    index = proj / "segments" / last / f"{last}.cdxj"
    text = index.read_bytes()
    index.write_bytes(text.rstrip(b"\n")[:-20] + b"\n")
    code, _, err = run(capsys, "compact", proj, "--segments", ",".join(names))
    assert code == 1 and err.count("\n") == 1, err
    assert f"the index of segment {last} is corrupt" in err and "nothing was changed" in err
    assert segments(capsys, proj) == listed
    assert not list(proj.glob("**/*.open"))
    index.write_bytes(text)
    assert run(capsys, "compact", proj, "--segments", ",".join(names))[0] == 0
    assert {path: show(capsys, proj, origin + path)[1] for path in PAGES} == latest
    check_store_matches_disk(proj)


def test_index_lines_are_read_and_moved_without_being_fooled_by_their_urls(tmp_path):
    from datetime import datetime

    from recrawl.core.archive.cdxj import cdxj_line, read_index, relocated_lines

    tricky = 'http://a.example/x?q="offset":9,"length":3,"filename":"x"'
    lines = [
        cdxj_line(tricky, datetime(2027, 1, 1), {"length": 12, "offset": 34, "filename": "a.gz"}),
        cdxj_line("http://a.example/", datetime(2027, 1, 2), {"length": 5, "offset": 7}),
    ]
    path = tmp_path / "i.cdxj"
    path.write_text("\n".join(lines) + "\n")
    index = read_index(path)
    assert (index.offsets, index.lengths, index.ours) == ([7, 34], [5, 12], False)
    moved = relocated_lines(index.lines, [100, 200], "N.warc.gz", index.ours)
    fields = [json.loads(line.split(" ", 2)[2]) for line in moved]
    assert [(f["offset"], f["filename"]) for f in fields] == [(100, "N.warc.gz")] * 1 + [
        (200, "N.warc.gz")
    ]
    assert fields[1]["url"] == tricky
    path.write_text(lines[0] + "\n")
    ours = read_index(path)
    assert ours.ours and ours.offsets == [34]
    [again] = relocated_lines(ours.lines, [5], "M.warc.gz", True)
    assert json.loads(again.split(" ", 2)[2]) == {
        "url": tricky,
        "length": 12,
        "offset": 5,
        "filename": "M.warc.gz",
    }


def test_pages_stay_readable_while_another_process_compacts(template, tmp_path, capsys):
    origin = origin_of(template)
    latest = {path: show(capsys, template, origin + path)[1] for path in PAGES}
    then = {path: show(capsys, template, origin + path, _round_time(2))[1] for path in PAGES}
    proj = tmp_path / "live"
    shutil.copytree(template, proj)
    child = _compact_child(proj, drop=False)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "opened"
    reads = 0
    while child.poll() is None:  # read as fast as we can until the compaction is over
        for path in PAGES:
            assert show(capsys, proj, origin + path) == (0, latest[path])
            assert show(capsys, proj, origin + path, _round_time(2)) == (0, then[path])
            reads += 2
    child.communicate(timeout=30)
    assert child.returncode == 0 and reads > 0
    assert segments(capsys, proj)[0]["liveness"] == 1.0


def test_odd_bytes_in_a_content_type_do_not_break_the_index(tmp_path, capsys, server):
    # a server's Content-Type with U+0085 (latin-1 0x85) lands in the CDXJ line as is
    d = tmp_path / "odd"
    run(capsys, "init", d)
    run(capsys, "inject", d, server.url("/a"))
    for month, body in (("01", "one"), ("02", "two")):
        server.html("/a", f"<p>{body}</p>", **{"Content-Type": "text/x\x85y"})
        code, _, err = run(
            capsys, "crawl", d, "--delay", "0", "--now", f"2027-{month}-01T00:00:00Z"
        )
        assert code == 0, err
    code, out, err = run(capsys, "compact", d, "--below", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["records_moved_to_history"] == 1
    assert show(capsys, d, server.url("/a")) == (0, b"<p>two</p>")
    assert show(capsys, d, server.url("/a"), "2027-01-15T00:00:00Z") == (0, b"<p>one</p>")


def test_a_failed_compaction_rolls_back_and_leaves_the_project_usable(proj, capsys):
    origin = origin_of(proj)
    latest = {path: show(capsys, proj, origin + path)[1] for path in PAGES}
    (proj / "history").write_text("a file where the history folder goes")
    code, _, err = run(capsys, "compact", proj, "--below", "1")
    assert code == 1 and "cannot write the compacted segment" in err
    assert "nothing was changed" in err and err.count("\n") == 1
    code, out, err = run(capsys, "segments", proj, "--json")
    assert code == 0 and err == "" and len(json.loads(out)) == ROUNDS
    assert {path: show(capsys, proj, origin + path)[1] for path in PAGES} == latest
    (proj / "history").unlink()
    assert run(capsys, "compact", proj, "--below", "1")[0] == 0
    check_store_matches_disk(proj)


def test_a_broken_line_in_another_index_is_reported_not_a_traceback(proj, capsys):
    listed = segments(capsys, proj)
    last = listed[-1]["name"]
    index = proj / "segments" / last / f"{last}.cdxj"
    index.write_text(index.read_text() + 'garbage "warc/revisit"\n')
    code, _, err = run(
        capsys, "compact", proj, "--segments", listed[0]["name"], "--drop-superseded"
    )
    assert code == 1 and f"{index} is corrupt at line" in err and err.count("\n") == 1


def test_drop_keeps_a_revisit_target_even_when_the_clock_went_backwards(tmp_path, capsys, server):
    d = tmp_path / "clock"
    run(capsys, "init", d)
    run(capsys, "inject", d, server.url("/a"))
    names = []
    for when, body in (("2027-04-11", "v0"), ("2027-02-20", "v0"), ("2027-07-20", "v1")):
        server.html("/a", f"<p>{body}</p>")
        project = Project.open(d)  # due now, whatever the clock said last time
        try:
            store.make_due([server.url("/a")], parse_iso(when + "T00:00:00Z"))
        finally:
            project.close()
        code, out, err = run(
            capsys, "crawl", d, "--delay", "0", "--json", "--now", when + "T00:00:00Z"
        )
        assert code == 0, err
        names += json.loads(out)["segments"]
    # the second crawl, dated before the first, revisited the first one's response
    code, out, _ = run(capsys, "compact", d, "--segments", names[0], "--drop-superseded", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["records_dropped"] == 0 and summary["records_moved_to_history"] == 1
    assert show(capsys, d, server.url("/a"), "2027-03-01T00:00:00Z") == (0, b"<p>v0</p>")


def test_a_new_name_never_meets_a_history_file_of_an_earlier_version(tmp_path):
    """History files were once ``history/<name>.warc.gz``, the name a segment would get."""
    from recrawl.core.archive.segments import allocate_name, legacy_history_relpath

    project = Project.init(tmp_path / "proj")
    try:
        taken = project.path / legacy_history_relpath("20270101000000")
        taken.parent.mkdir(parents=True, exist_ok=True)
        taken.write_bytes(b"")
        assert allocate_name(project.path, T0) == "20270101000001"
    finally:
        project.close()


def test_a_stop_asked_for_while_the_commit_waits_rolls_it_back(proj, capsys):
    """A stop that comes while the commit waits for the write lock is a stop before it."""
    from recrawl.core.archive.compaction import CompactionStopped, compact
    from recrawl.core.store.models import DB

    origin = origin_of(proj)
    before = snapshot(capsys, proj, origin)
    listed = segments(capsys, proj)
    project = Project.open(proj)
    try:
        with pytest.raises(CompactionStopped):
            # says yes only once the commit holds its transaction: as late as it is asked
            compact(project, below=0.5, stop=DB.in_transaction)
        assert Compaction.select().order_by(Compaction.id.desc()).get().state == "rolled_back"
    finally:
        project.close()
    assert segments(capsys, proj) == listed
    assert snapshot(capsys, proj, origin) == before
    check_store_matches_disk(proj)


def test_a_compaction_into_a_full_disk_rolls_back_and_says_so(template, tmp_path, capsys):
    with small_disk(tmp_path / "disk", "4M") as disk:
        proj = disk / "proj"
        shutil.copytree(template, proj)
        origin = origin_of(proj)  # the store's WAL index made: room left for the journal
        latest = {path: show(capsys, proj, origin + path)[1] for path in PAGES}
        filler = fill(disk, leave=64 << 10)  # the store's journal fits, the copy does not
        code, _, err = run(capsys, "compact", proj, "--below", "1")
        assert code == 1 and err.count("\n") == 1, err
        assert err.startswith("recrawl: error: disk full: "), err
        assert err.endswith(
            f"free on {disk}; the compaction was rolled back: nothing was changed\n"
        )
        assert len(segments(capsys, proj)) == ROUNDS
        assert {path: show(capsys, proj, origin + path)[1] for path in PAGES} == latest
        assert not [p for p in all_files(proj) if p.name.endswith((".open", ".tmp"))]
        filler.unlink()
        assert run(capsys, "compact", proj, "--below", "1")[0] == 0
        check_store_matches_disk(proj)
        assert {path: show(capsys, proj, origin + path)[1] for path in PAGES} == latest
