"""Compaction by policy end to end (docs/design.md §18): `recrawl crawl --now` every 6 simulated
hours across a month's end, against a loopback site whose pages change every round, every
day or never. After each crawl the project holds one segment a finished month, one a
finished day of this month and today's rounds, and `show --at` of every capture ever
made gives the bytes the site served then."""

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
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from recrawl.core.clock import parse_iso, segment_name, to_iso

from recrawl.main import main
from tests.support import httpserver
from tests.support.warcs import cdxj_lines

START = parse_iso("2027-01-29T00:00:00Z")
#: path -> the page changes every this many rounds (0: never); an article a day too
PAGES = {"/": 0, "/round": 1, "/daily": 4, "/never": 0}


def body(path: str, version: int) -> str:
    rng = random.Random(f"{path}:{version}")
    words = " ".join(f"w{rng.randrange(100_000)}" for _ in range(rng.randrange(300, 900)))
    return f"<html><body><h1>{path} {version}</h1><p>{words}</p></body></html>"


def version(path: str, round_: int) -> int:
    period = PAGES.get(path, 0)
    return round_ // period if period else 0


def fetched_in(round_: int) -> list[str]:
    """As a news site is watched: the front page and /round every round, /daily and the
    day's new article at its first round, /never once. Each day then keeps something
    live (its article), so each fold leaves a segment."""
    paths = ["/", "/round"]
    if round_ % 4 == 0:
        paths += ["/daily", f"/article-{round_ // 4}"]
    if round_ == 0:
        paths.append("/never")
    return paths


@pytest.fixture
def site() -> Iterator[httpserver.TestServer]:
    server = httpserver.TestServer().start()
    server.html("/", "".join(f'<a href="{p}">{p}</a> ' for p in PAGES))
    yield server
    server.stop()


def run(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def show_at(capsys, proj: Path, url: str, stamp: str) -> bytes:
    capsys.readouterr()
    at = to_iso(datetime.strptime(stamp, "%Y%m%d%H%M%S"))
    assert main(["show", str(proj), url, "--at", str(at)]) == 0
    return capsys.readouterr().out.encode()


def captures(proj: Path) -> Counter[tuple[str, str]]:
    """(url, 14-digit stamp) of every capture any index lists, segments' and history's."""
    seen: Counter[tuple[str, str]] = Counter()
    for index in sorted(proj.glob("segments/*/*.cdxj")) + sorted(proj.glob("history/*.cdxj")):
        for _, stamp, fields in cdxj_lines(index):
            seen[fields["url"], stamp] += 1
    return seen


def segment_names(proj: Path) -> list[str]:
    return sorted(p.name for p in (proj / "segments").iterdir())


def expected_count(rounds: list[datetime], now: datetime) -> int:
    """day-month: a segment a finished month, a finished day of this month, a round today."""
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    this_month = today.replace(day=1)
    months = {t.strftime("%Y%m") for t in rounds if t < this_month}
    days = {t.date() for t in rounds if this_month <= t < today}
    return len(months) + len(days) + len([t for t in rounds if t >= today])


@pytest.mark.slow
def test_crawls_over_simulated_days_keep_a_bounded_number_of_segments(tmp_path, capsys, site):
    proj = tmp_path / "p"
    assert run(capsys, "init", proj)[0] == 0
    served: dict[tuple[str, str], bytes] = {}  # (url, stamp) -> the bytes served then
    rounds: list[datetime] = []
    said: list[str] = []
    for r in range(4 * 4 + 2):  # Jan 29 to Feb 2, 06:00
        now = START + timedelta(hours=6 * r)
        paths = fetched_in(r)
        for path in paths:
            site.html(path, body(path, version(path, r)))
        # each a seed (known ones made due): a crawl is one round, one segment
        assert run(capsys, "inject", proj, *map(site.url, paths))[0] == 0
        assert run(capsys, "refetch", proj, *map(site.url, paths))[0] == 0
        code, out, err = run(capsys, "crawl", proj, "--now", to_iso(now), "--delay", "0", "--json")
        assert code == 0, err
        assert json.loads(out)["fetched"] == len(paths)
        rounds.append(now)
        said += [line for line in err.splitlines() if line.startswith("compacted ")]
        for url, stamp in captures(proj):
            if (url, stamp) not in served:
                assert stamp.startswith(segment_name(now)[:10])  # this round's
                path = url[len(site.origin) :]
                served[url, stamp] = body(path, version(path, r)).encode()
        assert len(segment_names(proj)) == expected_count(rounds, now), (now, segment_names(proj))
    # every capture of every round is there once, and reads as it was served
    assert set(captures(proj).values()) == {1}
    assert len(served) == sum(len(fetched_in(r)) for r in range(len(rounds)))
    for (url, stamp), expected in served.items():
        assert show_at(capsys, proj, url, stamp) == expected, (url, stamp)
    # the folds said what they did, and named their segments from the period folded
    text = "\n".join(said)
    assert "compacted 4 segments of 2027-01-29 into 20270129000001 (" in text
    assert "compacted 4 segments of 2027-01-30 into 20270130000001 (" in text
    assert "compacted 6 segments of 2027-01 into 20270101000000 (" in text
    assert "compacted 4 segments of 2027-02-01 into 20270201000001 (" in text
    assert len(said) == 4
    assert segment_names(proj) == [
        "20270101000000", "20270201000001", "20270202000000", "20270202060000"
    ]  # fmt: skip
    assert list((proj / "history").glob("*.warc.gz"))  # superseded captures kept, not dropped
    code, out, _ = run(capsys, "segments", proj, "--json")
    assert all(s["liveness"] > 0 for s in json.loads(out))


def test_settings_choose_the_policy_or_none(tmp_path, capsys, site):
    proj = tmp_path / "p"
    run(capsys, "init", proj)
    run(capsys, "inject", proj, *map(site.url, PAGES))
    for path in PAGES:
        site.html(path, body(path, 0))
    code, _, err = run(capsys, "settings", proj, "--set", "compaction.fold=weekly")
    assert code != 0 and "compaction.fold: must be day-month, day or month" in err
    assert run(capsys, "settings", proj, "--set", "compaction.auto=false")[0] == 0
    for r in range(3):
        run(capsys, "refetch", proj, "--all")
        now = START + timedelta(hours=12 * r)  # two rounds on Jan 29, one on Jan 30
        assert run(capsys, "crawl", proj, "--now", to_iso(now), "--delay", "0")[0] == 0
    assert len(segment_names(proj)) == 3  # auto off: nothing folded
    assert run(capsys, "settings", proj, "--set", "compaction.auto=true")[0] == 0
    run(capsys, "refetch", proj, "--all")
    code, _, err = run(
        capsys, "crawl", proj, "--now", to_iso(START + timedelta(hours=36)), "--delay", "0"
    )
    assert code == 0
    assert "compacted 2 segments of 2027-01-29 into 20270129000001" in err
    assert len(segment_names(proj)) == 3  # Jan 29 folded; Jan 30's two rounds


# -- killed at random moments of its compaction ------------------------------------------

#: `recrawl crawl` as a user runs it, its compactions' steps printed as they go (the
#: default progress of compact(), the one a fold by policy uses, made to talk).
CRAWL_SCRIPT = """
import sys
from recrawl.core.archive.compaction import run
run.quiet = lambda p: print(p.phase, p.done, p.total, flush=True)
from recrawl.main import main
sys.exit(main(sys.argv[1:]))
"""


def crawl_child(proj: Path, now: datetime) -> subprocess.Popen[str]:
    args = ["crawl", str(proj), "--now", str(to_iso(now)), "--delay", "0"]
    return subprocess.Popen(
        [sys.executable, "-c", CRAWL_SCRIPT, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


@pytest.fixture(scope="module")
def killed_site() -> Iterator[httpserver.TestServer]:
    server = httpserver.TestServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def three_days(tmp_path_factory, killed_site) -> tuple[Path, dict[tuple[str, str], bytes]]:
    """Jan 30 to Feb 1, four rounds a day with auto compaction off, then on again; and
    the pages due for the next round (Feb 2, 00:00), whose crawl folds January into one
    segment and Feb 1 into another."""
    site = killed_site
    proj = tmp_path_factory.mktemp("auto") / "template"
    main(["init", str(proj)])
    main(["settings", str(proj), "--set", "compaction.auto=false"])
    served: dict[tuple[str, str], bytes] = {}
    start = START + timedelta(days=1)
    for r in range(4 * 3 + 1):
        paths = fetched_in(r)
        for path in paths:
            site.html(path, body(path, version(path, r)))
        main(["inject", str(proj), *map(site.url, paths)])
        main(["refetch", str(proj), *map(site.url, paths)])
        if r == 4 * 3:
            break  # the next round's pages are due: the killed crawl fetches them
        assert (
            main(["crawl", str(proj), "--now", str(to_iso(start + r * SIX_HOURS)), "--delay", "0"])
            == 0
        )
        for path in paths:
            stamp = next(
                s for u, s in captures(proj) if u == site.url(path) and (u, s) not in served
            )
            served[site.url(path), stamp] = body(path, version(path, r)).encode()
    main(["settings", str(proj), "--set", "compaction.auto=true"])
    return proj, served


SIX_HOURS = timedelta(hours=6)
ROOT = Path(__file__).resolve().parents[4]


def unfinished_states(proj: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(proj / "recrawl.sqlite")) as db:
        return [s for (s,) in db.execute("SELECT state FROM compaction")]


@pytest.mark.slow
def test_sigkill_at_random_moments_of_an_auto_compaction(three_days, tmp_path, capsys):
    template, served = three_days
    now = START + timedelta(days=4)  # 2027-02-02T00:00
    calibration = tmp_path / "calibration"
    shutil.copytree(template, calibration)
    child = crawl_child(calibration, now)
    lines = child.communicate(timeout=120)[0].splitlines()
    assert child.returncode == 0
    phases = [line.split()[0] for line in lines]
    assert phases.count("done") == 2  # two folds: January, and Feb 1
    assert segment_names(calibration) == ["20270101000000", "20270201000001", "20270202000000"]
    before = captures(template)
    assert set(before) == set(served)

    def as_served(proj: Path) -> dict[tuple[str, str], bytes]:
        """The template's captures and those of the killed crawl's round (made before
        its folds), each with the bytes the site served."""
        new = set(captures(proj)) - set(before)
        assert sorted(urlsplit(url).path for url, _ in new) == sorted(fetched_in(12))
        assert all(stamp.startswith("202702020000") for _, stamp in new)
        made = {
            (u, t): body(urlsplit(u).path, version(urlsplit(u).path, 12)).encode() for u, t in new
        }
        return {**served, **made}

    rng = random.Random(2027)
    late = [i for i, p in enumerate(phases, 1) if p in ("commit", "rename", "delete")]
    copying = [i for i, p in enumerate(phases, 1) if p == "copy"]
    moments = sorted(rng.sample(copying, 3) + rng.sample(late, 3))
    outcomes: Counter[str] = Counter()
    for i, moment in enumerate(moments):
        proj = tmp_path / f"kill{i}"
        shutil.copytree(template, proj)
        child = crawl_child(proj, now)
        assert child.stdout is not None
        for _ in range(moment):  # kill right after the child reports this step
            child.stdout.readline()
        child.kill()
        child.communicate(timeout=30)
        outcomes.update(
            f"killed while {s}" for s in unfinished_states(proj) if s in ("copying", "committed")
        )
        # the next command recovers: every capture is there once and reads as served
        assert run(capsys, "segments", proj)[0] == 0
        found = captures(proj)
        expected = as_served(proj)
        assert set(found) == set(expected) and set(found.values()) == {1}, moment
        assert not [p for p in proj.rglob("*") if p.name.endswith((".open", ".tmp"))], moment
        for (url, stamp), data in expected.items():
            assert show_at(capsys, proj, url, stamp) == data, (moment, url, stamp)
        # the next crawl folds what is still due, to the same end
        assert (
            run(capsys, "crawl", proj, "--now", to_iso(now + timedelta(hours=1)), "--delay", "0")[0]
            == 0
        )
        # (a fold rolled back leaves its name taken: the next one is named a second on)
        assert [n[:8] for n in segment_names(proj)] == ["20270101", "20270201", "20270202"]
        assert set(captures(proj)) == set(expected)
        assert all(s in ("done", "rolled_back") for s in unfinished_states(proj))
    assert outcomes["killed while copying"] >= 2, outcomes
    assert outcomes["killed while committed"] >= 1, outcomes


def test_a_fold_that_fails_is_a_warning_and_the_crawl_goes_on(tmp_path, capsys, site):
    """A damaged segment: its fold is refused before a byte is copied (compaction's own
    check), said in one line, and tried again by the next crawl, after a repair."""
    proj = tmp_path / "p"
    run(capsys, "init", proj)
    run(capsys, "inject", proj, *map(site.url, PAGES))
    for path in PAGES:
        site.html(path, body(path, 0))
    run(capsys, "settings", proj, "--set", "compaction.auto=false")
    for r in range(2):
        run(capsys, "refetch", proj, "--all")
        assert (
            run(capsys, "crawl", proj, "--now", to_iso(START + r * SIX_HOURS), "--delay", "0")[0]
            == 0
        )
    run(capsys, "settings", proj, "--set", "compaction.auto=true")
    index = next((proj / "segments").glob("*/*.cdxj"))
    text = index.read_bytes()
    index.write_bytes(text[: len(text) // 2])  # cut mid-line
    run(capsys, "refetch", proj, "--all")
    code, out, err = run(
        capsys, "crawl", proj, "--now", to_iso(START + timedelta(days=1)), "--delay", "0", "--json"
    )
    assert code == 0 and json.loads(out)["fetched"] == len(PAGES)
    [warning] = [line for line in err.splitlines() if "compact" in line]
    assert warning.startswith("warning: could not compact the 2 segments of 2027-01-29: ")
    assert len(segment_names(proj)) == 3  # nothing folded
    index.write_bytes(text)
    code, _, err = run(
        capsys, "crawl", proj, "--now", to_iso(START + timedelta(days=1, hours=1)), "--delay", "0"
    )
    assert code == 0 and "compacted 2 segments of 2027-01-29 into 20270129000001 (" in err
