"""bench/storage_bench.py's generated year, small: the report adds up over its segments and
history files, and a second report reads every file's figures from the cache."""

from __future__ import annotations

from recrawl.core.project import Project
from recrawl.core.services.storage import storage_report

from bench.storage_bench import build


def test_a_generated_year_adds_up_and_is_cached(tmp_path) -> None:
    folder = tmp_path / "project"
    build(folder, captures=2_000, segments=6, history=20, pages=200)
    project = Project.open(folder)
    try:
        first = storage_report(folder)
        sizes = {
            top: sum(p.stat().st_size for p in folder.glob(f"{top}/**/*.warc.gz"))
            for top in ("segments", "history")
        }
        assert first.measured_files == 26 and first.unreadable == []
        assert first.by_kind["pages"] + first.by_kind["embeds"] == sizes["segments"]
        assert first.by_kind["history"] == sizes["history"]
        assert first.by_kind["embeds"] > 0 and len(first.by_site) == 20
        assert sum(b.captures for b in first.by_month) == 26 * (2_000 // 26)
        assert len(first.segments) == 6 and first.compaction.history_files == 20
        again = storage_report(folder)
        assert again.measured_files == 0 and again.by_month == first.by_month
    finally:
        project.close()
