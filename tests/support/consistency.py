"""What must hold of a project however its last command ended (a stop, a kill, a crash).

Checked after the recovery that the next command performs: every fetched page's latest
capture reads back, the store and the disk agree, no capture is there twice, and every
WARC passes ``warcio check``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from recrawl.core.project import Project
from recrawl.core.store.models import (
    Baseline,
    Compaction,
    FetchEvent,
    News,
    NewsKind,
    Page,
    PageKind,
    Segment,
)

from tests.support.capture_table import check_table_matches_indexes
from tests.support.warcs import cdxj_lines, read_warc, warcio_check

#: ``show(url)``: what ``recrawl show`` prints for the page (its exit status must be 0).
Show = Callable[[str], bytes]
#: ``expected(url, fetched_at)``: the body the site served for that fetch.
Expected = Callable[[str, datetime], bytes]


def archive_files(project_dir: Path) -> list[Path]:
    return sorted(project_dir.glob("segments/*/*")) + sorted(project_dir.glob("history/*"))


def indexed_captures(project_dir: Path) -> Counter[str]:
    """Captures per URL in every CDXJ index (segments and history)."""
    found: Counter[str] = Counter()
    for index in archive_files(project_dir):
        if index.suffix == ".cdxj":
            found.update(fields["url"] for _, _, fields in cdxj_lines(index))
    return found


def check_project(
    project_dir: Path,
    show: Show,
    expected: Expected | None = None,
    warcs_checked: set[tuple[Path, int]] | None = None,
) -> dict[str, int]:
    """Assert the invariants; returns captures per URL.

    ``warcs_checked`` keeps (path, size) of WARCs that passed ``warcio check`` already
    (a closed WARC never changes), so a long test checks each file once.
    """
    files = archive_files(project_dir)
    leftovers = [p.name for p in files if p.name.endswith((".open", ".tmp"))]
    assert not leftovers, f"temporary files left: {leftovers}"

    project = Project.open(project_dir)
    try:
        assert not project.notes, f"the command before left recovery to do: {project.notes}"
        check_table_matches_indexes(project_dir, lookups=False)
        segments = {s.name: s for s in Segment.select()}
        assert all(s.state == "closed" for s in segments.values())
        jobs = Compaction.select().where(Compaction.state.in_(("copying", "committed")))
        assert not jobs.count(), "a compaction is left unfinished"
        fetched = [
            (p.url, p.last_fetched, p.segment, p.capture_file, p.payload_segment, p.payload_file)
            for p in Page.select().where(Page.segment.is_null(False))
        ]
        events: Counter[str] = Counter(
            e.page.url
            for e in FetchEvent.select(FetchEvent, Page)
            .join(Page)
            .where(FetchEvent.http_status.is_null(False))
        )
        # news is written with the pages' updates (docs/design.md §10, §15): a page whose
        # content the crawler has seen (its first successful fetch set
        # content_changed_at) counts in its host's baseline while that is under way, and
        # has one "new" item when it was found after the baseline was done (its id is
        # above the baseline's last page); embeds are never news (§14)
        succeeded: dict[str, set[int]] = {}
        for page_id, host in (
            Page.select(Page.id, Page.host)
            .where(Page.content_changed_at.is_null(False) & (Page.kind == PageKind.PAGE))
            .tuples()
        ):
            succeeded.setdefault(host, set()).add(page_id)
        new_items: Counter[int] = Counter(
            n.page_id for n in News.select(News.page).where(News.kind == NewsKind.NEW)
        )
        baselines = {b.host: b for b in Baseline.select()}
        baseline_items = Counter(
            n.host for n in News.select(News.host).where(News.kind == NewsKind.BASELINE)
        )
        latest = {
            e.page.url: e.fetched_at
            for e in FetchEvent.select(FetchEvent, Page)
            .join(Page)
            .where(FetchEvent.http_status == 200)
            .order_by(FetchEvent.fetched_at)
        }
    finally:
        project.close()

    assert set(new_items.values()) <= {1}, "a page new twice"
    assert set(succeeded) <= set(baselines), "pages archived outside any baseline"
    for host, baseline in baselines.items():
        pages = succeeded.get(host, set())
        new = {page for page in pages if page in new_items}
        if baseline.last_page is None:  # under way: every page archived is in it
            assert not new and baseline.pages == len(pages), f"{host}: baseline vs fetches"
        else:
            assert new == {p for p in pages if p > baseline.last_page}, f"{host}: new vs fetches"
            assert baseline.pages <= len(pages - new), f"{host}: baseline vs fetches"
        assert baseline_items[host] == (baseline.page_id is not None), f"{host}: its item"
    assert set(new_items) <= set().union(*succeeded.values()), "news vs fetches"

    # the store and the disk agree: a row for every folder, the files of every row
    assert {p.name for p in project_dir.glob("segments/*")} == set(segments)
    for name, segment in segments.items():
        warc = project_dir / segment.warc_file
        assert warc.is_file(), f"segment {name} has no WARC"
        assert (warc.parent / f"{name}.cdxj").is_file(), f"segment {name} has no index"
    for url, _, segment_name, capture, payload_segment, payload in fetched:
        assert segment_name in segments and payload_segment in segments, url
        assert (project_dir / capture).is_file() and (project_dir / payload).is_file(), url

    # nothing captured twice: one capture per fetch that got an answer, in the indexes
    # and in the WARCs alike
    indexed = indexed_captures(project_dir)
    assert indexed == events, _difference(indexed, events)
    warcs = [p for p in files if p.name.endswith(".warc.gz")]
    recorded: Counter[str] = Counter(
        rec.url
        for path in warcs
        for rec in read_warc(path)
        if rec.type in ("response", "revisit") and rec.url is not None
    )
    assert recorded == indexed, _difference(recorded, indexed)

    # every fetched page's latest capture reads back: the body of its last fetch
    for url, *_ in fetched:
        body = show(url)
        if expected is not None and url in latest:
            assert body == expected(url, latest[url]), f"{url} shows another capture"

    unchecked = [
        p for p in warcs if warcs_checked is None or (p, p.stat().st_size) not in warcs_checked
    ]
    if unchecked:
        done = warcio_check(*unchecked)
        assert done.returncode == 0, f"warcio check: {done.stdout}{done.stderr}"
        if warcs_checked is not None:
            warcs_checked.update((path, path.stat().st_size) for path in unchecked)
    return dict(indexed)


def _difference(found: Counter[str], wanted: Counter[str]) -> str:
    urls = sorted(set(found) | set(wanted))
    return "; ".join(f"{u}: {found[u]} vs {wanted[u]}" for u in urls if found[u] != wanted[u])
