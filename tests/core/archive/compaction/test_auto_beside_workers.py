"""Compaction by policy on a shared PostgreSQL store (docs/design.md §12, §18): a crawl's fold
runs beside a live worker whose round is in flight (its open segment is never taken),
and skips quietly while another process holds the store's compaction lock."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.clock import parse_iso, to_iso
from recrawl.core.project import Project
from recrawl.core.store.models import Segment

from tests.support import httpserver
from tests.support.interrupted import GatedSite, recrawl, start, watchdog
from tests.support.multisite import wait_until
from tests.support.warcs import cdxj_lines

DAY_ONE = parse_iso("2027-03-01T00:00:00Z")
SIX_HOURS = timedelta(hours=6)
PAGES = 4


@pytest.fixture
def site() -> Iterator[GatedSite]:
    server = httpserver.TestServer().start()
    yield GatedSite(server, PAGES)
    server.stop()


def captures(folder: Path) -> Counter[tuple[str, str]]:
    seen: Counter[tuple[str, str]] = Counter()
    for index in sorted(folder.glob("segments/*/*.cdxj")) + sorted(folder.glob("history/*.cdxj")):
        for _, stamp, fields in cdxj_lines(index):
            seen[fields["url"], stamp] += 1
    return seen


def segment_rows(folder: Path) -> list[tuple[str, str]]:
    project = Project.open(folder)
    try:
        return sorted((s.name, s.state) for s in Segment.select())
    finally:
        project.close()


def crawl_at(folder: Path, now: datetime) -> str:
    done = recrawl("crawl", folder, "--now", to_iso(now), "--delay", "0")
    return done.stderr


@pytest.mark.slow
def test_a_fold_beside_a_live_worker_and_one_skipped_while_another_compacts(tmp_path, site, pg_url):
    folder = tmp_path / "shared"
    recrawl("init", folder, "--db", pg_url)
    recrawl(
        "settings", folder, "--set", "workers.lease_seconds=3s", "--set", "watch.round_gap=0s",
        "--set", "sources.enabled=false", "--set", "compaction.auto=false",
    )  # fmt: skip
    recrawl("inject", folder, *(site.url(i) for i in range(PAGES)))
    served: dict[tuple[str, str], bytes] = {}
    for r in range(4):  # four rounds of 2027-03-01, each a worker's (machine-pid)
        site.version = r
        recrawl("refetch", folder, "--all")
        crawl_at(folder, DAY_ONE + r * SIX_HOURS)
        for url, stamp in captures(folder):
            if (url, stamp) not in served:
                served[url, stamp] = site.body(int(url.rsplit("/p", 1)[1]), r)
    assert len(served) == 4 * PAGES
    day_one = [name for name, _ in segment_rows(folder)]
    assert len(day_one) == 4 and all("-" in name for name in day_one)
    recrawl("settings", folder, "--set", "compaction.auto=true")

    # a worker's round of 2027-03-02 in flight: its answers held, its segment open
    site.version = 4
    recrawl("refetch", folder, "--all")
    site.hold()
    worker = start(
        "worker", folder, "--name", "live", "--until-idle", "--json", "--delay", "0",
        "--now", to_iso(DAY_ONE + 4 * SIX_HOURS),
    )  # fmt: skip
    with watchdog(worker):
        assert wait_until(lambda: any(s == "open" for _, s in segment_rows(folder)))
        (open_name,) = [n for n, s in segment_rows(folder) if s == "open"]
        assert open_name.endswith("-live")
        # a crawl now: the worker holds the host, so it fetches nothing; then it folds
        said = crawl_at(folder, DAY_ONE + 4 * SIX_HOURS + timedelta(hours=1))
        assert "compacted 4 segments of 2027-03-01 into 20270301000000 (" in said, said
        rows = segment_rows(folder)
        assert rows == [("20270301000000", "closed"), (open_name, "open")]
        site.release()
        out, err = worker.communicate(timeout=120)
    assert worker.returncode == 0, err
    assert sum(json.loads(line)["fetched"] for line in out.splitlines()) == PAGES
    assert segment_rows(folder) == [("20270301000000", "closed"), (open_name, "closed")]
    # every capture once, and each of 2027-03-01 reads as it was served
    found = captures(folder)
    assert set(found.values()) == {1} and set(served) <= set(found)
    assert len(found) == len(served) + PAGES
    for (url, stamp), data in served.items():
        at = to_iso(datetime.strptime(stamp, "%Y%m%d%H%M%S"))
        shown = recrawl("show", folder, url, "--at", at).stdout
        assert shown.encode() == data, (url, stamp)

    # another process compacting (holding the store's compaction lock): a fold due is
    # left to it, quietly, and done by the next crawl once the lock is free
    for r in range(2):
        site.version = 5 + r
        recrawl("refetch", folder, "--all")
        crawl_at(folder, DAY_ONE + (5 + r) * SIX_HOURS)
    project = Project.open(folder)
    try:
        with store.exclusive(store.COMPACTION, "a test compacting"):
            said = crawl_at(folder, DAY_ONE + 8 * SIX_HOURS)  # 2027-03-03: 03-02 is due
            # nothing about folding at all (a robots.txt warning may come and go)
            assert not [line for line in said.splitlines() if "compact" in line], said
    finally:
        project.close()
    assert len([n for n, _ in segment_rows(folder) if n.startswith("20270302")]) == 3
    said = crawl_at(folder, DAY_ONE + 8 * SIX_HOURS + timedelta(hours=1))
    assert "compacted 3 segments of 2027-03-02 into 20270302000000 (" in said, said
