"""Applying a chain to the known pages (docs/design.md §10): how long it takes on a large store.

    python bench/filter_reach_bench.py [--pages 1000000] [--hosts 1000] [--share 0.1] [--keep]

Builds a store of ``--pages`` fetched pages over ``--hosts`` hosts (the default chain with
every host in scope), then times, each on the same store in turn:

- the preview of an edit whose new regex rule rejects ``--share`` of the pages
  (``filter preview``: every known URL through both chains);
- applying it (``filter set``): judging every page, then the short transactions that
  store the chain and mark the rejected pages ``filtered`` with their record;
- applying the chain before the edit again: the filtered pages come back;
- taking one site out of the crawl (the Sites panel): only that host's pages are judged;
- applying the same chain again (nothing changes: the cost of judging alone).

Each line gives the wall and CPU seconds (on a busy machine the CPU time says more), of
judging and of writing apart, and what changed. Judging holds no lock; writing goes in
transactions of 2,000 pages, between which a crawl's commits go.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from recrawl.core import store
from recrawl.core.clock import parse_iso
from recrawl.core.filters import parse_chain
from recrawl.core.policy import choices
from recrawl.core.policy.filter_impact import known_urls, preview
from recrawl.core.policy.filter_reach import plan_reach
from recrawl.core.policy.sites import remove_site
from recrawl.core.project import Project
from recrawl.core.store.models import DB, Page, PageStatus

T0 = parse_iso("2027-01-01T00:00:00Z")
SECTIONS = ("news", "blog", "archive", "shop", "forum", "docs", "about", "events", "media", "tags")


def build(folder: Path, pages: int, hosts: int, seed: int) -> Project:
    project = Project.init(folder)
    rng = random.Random(seed)
    names = [f"site{h}.example" for h in range(hosts)]
    choices.add_scope_hosts(names, T0)
    rows = []
    for i in range(pages):
        host = names[i % hosts]
        section = SECTIONS[rng.randrange(len(SECTIONS))]
        url = f"https://{host}/{section}/{i // hosts}/page-{rng.randrange(10**6)}.html"
        rows.append((url, host, PageStatus.FETCHED, T0, T0, T0, 86400.0, 0, 1.0, 0.0, 0, "{}"))
    columns = (
        "url, host, status, first_seen, last_fetched, next_fetch, fetch_interval, retries, "
        "score, cash, depth, metadata"
    )
    with DB.atomic():
        DB.obj.cursor().executemany(
            f"INSERT OR IGNORE INTO page ({columns}) VALUES ({', '.join('?' * 12)})", rows
        )
    return project


def edited(text: str) -> str:
    """The chain with a regex filter first that rejects the ``archive`` section."""
    return (
        "[[filter]]\nkind = \"regex\"\nname = \"no-archive\"\nrules = '''\n-/archive/\n+.\n'''\n\n"
        + text
    )


def timed_apply(label: str, text: str) -> None:
    """``choices.apply_chain``, its two steps timed apart (wall and CPU seconds)."""
    started, cpu = time.perf_counter(), time.process_time()
    plan = plan_reach(parse_chain(text))
    judged, judged_cpu = time.perf_counter(), time.process_time()
    reach = plan.commit(lambda: store.set_setting("filter_chain", text), T0)
    done, done_cpu = time.perf_counter(), time.process_time()
    print(
        f"{label:<34} {done - started:7.2f} s wall, {done_cpu - cpu:6.2f} s CPU  (judge "
        f"{judged - started:6.2f} s / {judged_cpu - cpu:6.2f} s CPU, write "
        f"{done - judged:6.2f} s / {done_cpu - judged_cpu:6.2f} s CPU)  "
        f"{reach.checked:,} judged, {reach.filtered:,} filtered, {reach.back:,} back"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the generated project")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="recrawl-reach-bench-"))
    try:
        started = time.perf_counter()
        project = build(root / "project", args.pages, args.hosts, args.seed)
        count = Page.select().count()
        print(
            f"store: {count:,} pages on {args.hosts:,} hosts "
            f"(built in {time.perf_counter() - started:.0f} s)"
        )
        before = choices.chain_text()
        after = edited(before)

        started, cpu = time.perf_counter(), time.process_time()
        known = known_urls()
        result = preview(choices.project_chain(), parse_chain(after), known)
        print(
            f"{'preview of the edit':<34} {time.perf_counter() - started:7.2f} s wall, "
            f"{time.process_time() - cpu:6.2f} s CPU  {result['newly_filtered']:,} would be "
            f"filtered, {result['coming_back']:,} back"
        )
        del known
        timed_apply("apply the edit", after)
        timed_apply("apply the chain before it (back)", before)
        timed_apply("apply the same chain again", before)
        started, cpu = time.perf_counter(), time.process_time()
        removal = remove_site("site7.example", T0)
        print(
            f"{'remove one site (Sites panel)':<34} {time.perf_counter() - started:7.2f} s wall, "
            f"{time.process_time() - cpu:6.2f} s CPU  {removal.pages:,} pages of "
            f"{removal.host} filtered"
        )
        project.close()
    finally:
        if args.keep:
            print(f"kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
