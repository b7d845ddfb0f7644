"""The storage report against a crawled project: its figures add up to the files on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from peewee import OperationalError
from recrawl.core import store
from recrawl.core.archive import storage_stats
from recrawl.core.archive.compaction import compact
from recrawl.core.engine import inject
from recrawl.core.policy import crawl_settings
from recrawl.core.services.storage import KINDS, Bucket, growth, storage_report
from recrawl.core.store.models import DB, Page

from tests.support import httpserver
from tests.support.crawling import DAY, T0, clock_at, crawl
from tests.support.httpserver import Reply

ROUNDS = 4  # 2027-01-01, 02-10, 03-22, 05-01
PNG = b"\x89PNG" + b"p" * 3_000


@pytest.fixture
def second_server():
    other = httpserver.TestServer(address="127.0.0.2").start()
    yield other
    other.stop()


def crawl_rounds(project, server, other) -> None:
    """/a changes every round and embeds /i.png; /b never changes; /c on another host."""
    server.routes["/i.png"] = Reply(200, PNG, {"Content-Type": "image/png"})
    inject([server.url("/a"), server.url("/b"), other.url("/c")], T0)
    for r in range(ROUNDS):
        server.html("/a", f'<p>a version {r}</p><img src="/i.png">' + "x" * 500 * r)
        server.html("/b", "<p>b, always the same</p>")
        other.html("/c", f"<p>c version {r}</p>")
        crawl(project, clock=clock_at(r * 40 * DAY))


def files(folder: Path) -> dict[str, int]:
    out = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root) / name
            out[path.relative_to(folder).as_posix()] = path.stat().st_size
    return out


def warc_sizes(folder: Path, top: str) -> int:
    return sum(
        size
        for rel, size in files(folder).items()
        if rel.startswith(top) and rel.endswith(".warc.gz")
    )


def assert_adds_up(report, folder: Path) -> None:
    on_disk = files(folder)
    assert report.total_bytes == sum(on_disk.values()) == sum(report.by_kind.values())
    assert list(report.by_kind) == list(KINDS)
    segments, history = warc_sizes(folder, "segments/"), warc_sizes(folder, "history/")
    assert report.by_kind["pages"] + report.by_kind["embeds"] == segments
    assert report.by_kind["history"] == history
    assert report.by_kind["indexes"] == sum(s for r, s in on_disk.items() if r.endswith(".cdxj"))
    assert sum(b.bytes for b in report.by_site) == segments + history
    assert sum(b.bytes for b in report.by_month) == segments + history
    for kind in ("pages", "embeds", "history"):
        assert sum(getattr(b, kind) for b in report.by_site) == report.by_kind[kind]
        assert sum(getattr(b, kind) for b in report.by_month) == report.by_kind[kind]


def test_figures_add_up_to_the_files_by_site_month_and_kind(project, server, second_server):
    crawl_rounds(project, server, second_server)
    report = storage_report(project.path)
    assert_adds_up(report, project.path)
    sites = {b.key: b for b in report.by_site}
    assert set(sites) == {"127.0.0.1", "127.0.0.2"}
    assert sites["127.0.0.1"].captures == 3 * ROUNDS  # /a, /b, /i.png each round
    assert sites["127.0.0.2"].captures == ROUNDS and sites["127.0.0.2"].embeds == 0
    # the image's first capture is a response of its 3 kB; later ones revisits
    assert sites["127.0.0.1"].embeds > len(PNG)
    assert [b.key for b in report.by_month] == ["2027-01", "2027-02", "2027-03", "2027-05"]
    assert all(b.captures == 4 for b in report.by_month)
    # each round's segment is one month's WARC: its bytes are the file's
    sizes = sorted(s for r, s in files(project.path).items() if r.endswith(".warc.gz"))
    assert sorted(b.bytes for b in report.by_month) == sizes
    # growth: February and March are full months (January holds the first capture,
    # May the latest; April, with none, counts as a month of nothing)
    months = {b.key: b.bytes for b in report.by_month}
    assert report.growth.method == "full-months"
    assert report.growth.months == ("2027-02", "2027-03", "2027-04")
    assert report.growth.bytes_per_month == round((months["2027-02"] + months["2027-03"]) / 3)
    assert report.growth.next_year_bytes == 12 * report.growth.bytes_per_month
    assert report.free.free_bytes > 0 and report.free.warning is None


def test_superseded_bytes_are_what_compaction_moves_to_history(project, server, second_server):
    crawl_rounds(project, server, second_server)
    before = storage_report(project.path)
    segs = {s.name: s for s in before.segments}
    # the latest round is all live; every older one holds superseded captures
    assert [s.superseded_bytes == 0 for s in before.segments] == [False, False, False, True]
    fold = before.compaction
    assert fold.segments == tuple(sorted(segs)[:3])
    assert fold.superseded_records == sum(
        segs[n].records - segs[n].live_records for n in fold.segments
    )
    assert fold.history_files == 0 and fold.drop_superseded_bytes == fold.superseded_bytes
    summary = compact(project, below=1.0)
    assert summary.compacted == list(fold.segments)
    assert summary.records_moved_to_history == fold.superseded_records
    after = storage_report(project.path)
    assert_adds_up(after, project.path)
    # the history file holds those captures, with its own warcinfo instead of theirs
    assert abs(after.by_kind["history"] - fold.superseded_bytes) < 1_000
    assert after.compaction.segments == () and after.compaction.superseded_bytes == 0
    assert after.compaction.history_files == 1
    assert after.compaction.history_bytes == after.by_kind["history"]
    # bytes stay in the months they were captured in
    assert [(b.key, b.captures) for b in after.by_month] == [
        (b.key, b.captures) for b in before.by_month
    ]


def test_the_cache_is_reused_and_follows_a_compaction(project, server, second_server, monkeypatch):
    crawl_rounds(project, server, second_server)
    first = storage_report(project.path)
    assert first.measured_files == ROUNDS
    cached = store.get_setting(storage_stats.CACHE_KEY)
    assert len(cached["files"]) == ROUNDS

    def no_reading(*args, **kwargs):
        raise AssertionError("a cached file was measured again")

    with monkeypatch.context() as patch:
        patch.setattr(storage_stats, "measure", no_reading)
        again = storage_report(project.path)
    assert again.measured_files == 0
    assert again.by_site == first.by_site and again.by_kind == first.by_kind
    summary = compact(project, below=1.0)
    after = storage_report(project.path)
    assert after.measured_files == 2  # the new segment and the history file
    assert set(store.get_setting(storage_stats.CACHE_KEY)["files"]) == {
        f"segments/{summary.new_segment}/{summary.new_segment}.warc.gz",
        summary.history_file,
        *(
            f"segments/{s.name}/{s.name}.warc.gz"
            for s in after.segments
            if s.name != summary.new_segment
        ),
    }
    assert_adds_up(after, project.path)


def test_a_cache_the_store_refuses_is_skipped(project, server, second_server, monkeypatch):
    crawl_rounds(project, server, second_server)

    def full(*args, **kwargs):
        raise OperationalError("database or disk is full")

    monkeypatch.setattr(store, "set_setting", full)
    report = storage_report(project.path)
    assert_adds_up(report, project.path)
    assert store.get_setting(storage_stats.CACHE_KEY) is None  # nothing written, no error


def test_an_embed_counts_as_an_embed(project, server, second_server):
    crawl_rounds(project, server, second_server)
    report = storage_report(project.path)
    embeds = {p.url for p in Page.select().where(Page.kind == "embed")}
    assert embeds == {server.url("/i.png")}
    assert report.by_kind["embeds"] == sum(b.embeds for b in report.by_site) > 0


def test_the_warning_when_free_space_is_below_the_setting(project, server, second_server):
    crawl_rounds(project, server, second_server)
    crawl_settings.save({"storage.warn_free": 1 << 60})  # more than any disk has
    report = storage_report(project.path)
    assert report.free.warn_below == 1 << 60
    assert report.free.warning is not None
    assert "free on" in report.free.warning and "storage.warn_free" in report.free.warning
    crawl_settings.save({"storage.warn_free": 0})  # never
    assert storage_report(project.path).free.warning is None


def bucket(month: str, size: int) -> Bucket:
    return Bucket(month, 1, size, 0, 0)


def test_growth_is_the_mean_of_the_last_full_months_or_the_rate_so_far():
    months = [
        bucket("2027-01", 5),
        bucket("2027-02", 100),
        bucket("2027-03", 200),
        bucket("2027-04", 300),
        bucket("2027-05", 400),
        bucket("2027-06", 7),
    ]
    full = growth(months, ("20270115000000", "20270603000000"), free=9_000)
    assert full.method == "full-months" and full.months == ("2027-03", "2027-04", "2027-05")
    assert full.bytes_per_month == 300 and full.next_year_bytes == 3_600
    assert full.months_until_full == 30.0
    # two weeks in one month: the rate so far, as a month's (30.4375 days)
    young = growth([bucket("2027-01", 1_400)], ("20270101000000", "20270115000000"), free=0)
    assert young.method == "since-first" and young.bytes_per_month == round(100 * 30.4375)
    # under a day: not known
    assert growth([bucket("2027-01", 9)], ("20270101000000", "20270101060000"), 0).method is None
    assert growth([], None, 0).bytes_per_month is None


def test_files_being_written_and_strays_have_kinds_of_their_own(project, server, second_server):
    crawl_rounds(project, server, second_server)
    first = storage_report(project.path)
    pending = project.path / "segments/20990101000000/20990101000000.warc.gz.open"
    pending.parent.mkdir()
    pending.write_bytes(b"w" * 1_234)
    (project.path / "notes.txt").write_bytes(b"n" * 56)
    report = storage_report(project.path)
    assert_adds_up(report, project.path)
    assert report.by_kind["open"] == 1_234
    assert report.by_kind["other"] == first.by_kind["other"] + 56
    assert report.by_site == first.by_site  # an open WARC has no index yet


def test_a_warc_whose_index_is_unreadable_is_named_and_counted_apart(
    project, server, second_server
):
    crawl_rounds(project, server, second_server)
    name = min(s["name"] for s in store.segment_summaries())
    relpath = f"segments/{name}/{name}.warc.gz"
    index = project.path / f"segments/{name}/{name}.cdxj"
    good = index.read_text()
    index.write_text("not an index line\n")
    report = storage_report(project.path)
    assert report.unreadable == [relpath]
    size = (project.path / relpath).stat().st_size
    assert report.total_bytes == sum(files(project.path).values())
    assert (
        report.by_kind["pages"] + report.by_kind["embeds"]
        == warc_sizes(project.path, "segments/") - size
    )
    assert [b.key for b in report.by_month] == ["2027-02", "2027-03", "2027-05"]
    index.write_text(good)  # the figures are the WARC's: measured once its index reads
    mended = storage_report(project.path)
    assert mended.unreadable == [] and mended.measured_files == 1
    assert_adds_up(mended, project.path)
    index.write_text("not an index line\n")  # the WARC is unchanged: its figures stand
    assert storage_report(project.path).by_month == mended.by_month


@pytest.mark.parametrize(
    "corrupt",
    [
        "{",  # not JSON
        '{"version": 1, "files": [1, 2]}',  # files not a mapping
        '{"version": 1, "files": {"segments/x/x.warc.gz": [1]}}',  # an entry not a mapping
    ],
)
def test_a_corrupt_cache_row_is_measured_again(project, server, second_server, corrupt):
    crawl_rounds(project, server, second_server)
    first = storage_report(project.path)
    DB.execute_sql("UPDATE setting SET value = ? WHERE key = ?", (corrupt, storage_stats.CACHE_KEY))
    again = storage_report(project.path)
    assert again.measured_files == ROUNDS
    assert again.by_site == first.by_site and again.by_month == first.by_month


def test_a_cache_entry_of_the_wrong_types_is_measured_again(project, server, second_server):
    crawl_rounds(project, server, second_server)
    first = storage_report(project.path)
    cached = store.get_setting(storage_stats.CACHE_KEY)
    name = min(cached["files"])
    entry = cached["files"][name]
    entry["tallies"] = [[str(v) for v in tally] for tally in entry["tallies"]]
    store.set_setting(storage_stats.CACHE_KEY, cached)
    again = storage_report(project.path)
    assert again.measured_files == 1
    assert again.by_site == first.by_site and again.by_month == first.by_month


def test_a_history_folder_moved_elsewhere_through_a_link_counts_as_history(
    project, server, second_server, tmp_path
):
    crawl_rounds(project, server, second_server)
    compact(project, below=1.0)
    history = project.path / "history"
    moved = tmp_path / "bigger-disk" / "history"
    moved.parent.mkdir()
    history.rename(moved)
    history.symlink_to(moved, target_is_directory=True)
    report = storage_report(project.path)
    warcs = sum(p.stat().st_size for p in moved.glob("*.warc.gz"))
    assert report.by_kind["history"] == report.compaction.history_bytes == warcs > 0
    assert sum(b.bytes for b in report.by_month) == report.warc_bytes
    assert report.by_kind["indexes"] == sum(
        p.stat().st_size for p in project.path.glob("segments/*/*.cdxj")
    ) + sum(p.stat().st_size for p in moved.glob("*.cdxj"))


def test_a_store_another_writer_holds_is_not_waited_for(
    project, server, second_server, monkeypatch
):
    """The cache's write gives up at once on a store another process is writing (a long
    transaction): a quick look does not wait the store's 10 s for the write lock."""
    import sqlite3

    crawl_rounds(project, server, second_server)
    waits = []
    write = store.set_setting

    def noting_the_wait(key, value):
        waits.append(DB.execute_sql("PRAGMA busy_timeout").fetchone()[0])
        write(key, value)

    monkeypatch.setattr(store, "set_setting", noting_the_wait)
    other = sqlite3.connect(project.path / "recrawl.sqlite", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # the write lock, as a crawl's commit holds it
        report = storage_report(project.path)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert_adds_up(report, project.path)
    assert store.get_setting(storage_stats.CACHE_KEY) is None  # skipped, made next time
    assert waits and waits[0] <= storage_stats.WRITE_WAIT_MS
    assert DB.execute_sql("PRAGMA busy_timeout").fetchone()[0] == 10_000  # as it was
    assert storage_report(project.path).measured_files == ROUNDS  # and written now
    assert store.get_setting(storage_stats.CACHE_KEY) is not None
