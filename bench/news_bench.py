"""News benchmark: the What's new queries on a big store, the news and feed commands.

    python bench/news_bench.py [--pages 1000000] [--news 100000] [--hosts 200] [--days 365]
                               [--keep DIR]

Builds a project of ``--pages`` pages on ``--hosts`` hosts and ``--news`` news items over
``--days`` days (rows written straight into the store: a crawl of a million pages would take
hours; ``--keep DIR`` keeps it, and a later run with the same DIR reuses it), then
times what the What's new panel asks of the store thread: the days (counts by day and
kind), a day's sites (counts by site and kind) when it opens, the first block of a
site's items, the unseen count and "mark all as seen"; beside them the counts by day,
site and kind of the whole store in one query, which the panel does not ask. Then
``recrawl news --json`` and ``recrawl feed`` as processes (wall time, peak memory).
Target: every panel query well under 1 s, so the store thread keeps the tables moving.
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from recrawl.core import store
from recrawl.core.project import Project
from recrawl.core.store.models import DB, NewsKind

START = datetime(2027, 1, 1)


def build(folder: Path, pages: int, news: int, hosts: int, days: int) -> Project:
    project = Project.init(folder)
    rng = random.Random(7)
    names = [f"site{n}.example" for n in range(hosts)]
    cursor = DB.cursor()
    with DB.atomic():
        cursor.executemany(
            "INSERT INTO page (url, host, status, first_seen, next_fetch, fetch_interval, depth,"
            " retries, score, cash, metadata, title) VALUES (?, ?, 'fetched', ?, ?, 86400.0, 1,"
            " 0, 1.0, 0.0, '{}', ?)",
            (
                (
                    f"https://{names[n % hosts]}/page/{n}",
                    names[n % hosts],
                    str(START),
                    str(START + timedelta(days=days)),
                    f"Page {n}",
                )
                for n in range(pages)
            ),
        )
    kinds = [NewsKind.NEW] * 6 + [NewsKind.CHANGED] * 3 + [NewsKind.GONE, NewsKind.BACK]
    span = days * 86400
    rows = sorted(
        (START + timedelta(seconds=rng.randrange(span)), rng.randrange(pages)) for _ in range(news)
    )
    with DB.atomic():
        cursor.executemany(
            "INSERT INTO news (page_id, host, at, kind) VALUES (?, ?, ?, ?)",
            ((page + 1, names[page % hosts], str(at), rng.choice(kinds)) for at, page in rows),
        )
    DB.execute_sql("ANALYZE")
    return project


def timed(label: str, work: Callable[[], Any], runs: int = 3) -> Any:
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<52} {best * 1000:9.1f} ms")
    return result


def command(label: str, args: list[str]) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "recrawl.main", *args], capture_output=True, check=False
    )
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    status = "" if done.returncode == 0 else f"  (exit {done.returncode})"
    print(
        f"{label:<52} {wall * 1000:9.1f} ms  peak {max(peak, before) / 1024:.0f} MB"
        f"  {len(done.stdout) / 1e6:.1f} MB out{status}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--news", type=int, default=100_000)
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--keep", metavar="DIR", help="build the project here and keep it")
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp()) / "news"
    start = time.perf_counter()
    if (folder / "recrawl.sqlite").exists():
        project = Project.open(folder)
        print(f"{store.page_count():,} pages, {store.count_news():,} news items (kept)")
    else:
        project = build(folder, args.pages, args.news, args.hosts, args.days)
        print(
            f"{args.pages:,} pages, {args.news:,} news items on {args.hosts} hosts over "
            f"{args.days} days, built in {time.perf_counter() - start:.0f} s"
        )
    everything = store.NewsFilter()
    days = timed("the days: counts by day and kind", lambda: store.news_days())
    print(f"{'':<52} {len(days):,} days")
    timed("  of one kind", lambda: store.news_days(store.NewsFilter(kind="changed")))
    timed("  of one site", lambda: store.news_days(store.NewsFilter(host="site7.example")))
    since, until = store.day_bounds(days[0].day)
    sites = timed(
        "a day's sites: counts by site and kind",
        lambda: store.news_groups(store.NewsFilter(since, until)),
    )
    groups = timed("(all groups by day, site and kind at once)", lambda: store.news_groups())
    print(f"{'':<52} {len(groups):,} groups")
    one = store.NewsFilter(since, until, None, sites[0].host)
    timed("a site's day: its first 200 items", lambda: store.news_items(one, None, 200))
    timed("newest 200 items, all sites", lambda: store.news_items(everything, None, 200))
    timed("sites with news (the site filter)", store.news_hosts)
    timed("unseen count", store.unseen_news_count)
    timed("mark all as seen", store.mark_news_seen, runs=1)
    timed("unseen count (after the mark)", store.unseen_news_count)
    project.close()
    command("recrawl news --json (every item)", ["news", str(folder), "--json"])
    command("recrawl news --since (last 30 days)", ["news", str(folder), "--since", "2027-12-01"])
    command("recrawl feed (every item)", ["feed", str(folder)])
    command("recrawl feed --since (last 30 days)", ["feed", str(folder), "--since", "2027-12-01"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
