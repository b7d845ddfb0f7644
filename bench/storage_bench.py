"""``recrawl storage`` on a project the size of a simulated year (docs/design.md §18).

    python bench/storage_bench.py [--captures 200000] [--segments 60] [--history 300]
                                  [--pages 5000] [--runs 5] [--keep]

Writes the project directly, without crawling: ``--segments`` closed segments and
``--history`` history files sharing ``--captures`` CDXJ lines (sparse WARCs of the sizes
the lines imply: the command reads indexes and sizes, never a record), and ``--pages``
pages of 20 hosts, a fifth of them embeds, whose latest captures are in the segments.
Then times the whole process, ``recrawl storage DIR --json``: once cold (every file
measured, the cache written) and ``--runs`` times warm (from the cache), and prints the
median. Target (issue 29): under 0.5 s warm.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

TARGET_S = 0.5
T0 = datetime(2027, 1, 1)


def build(folder: Path, captures: int, segments: int, history: int, pages: int) -> None:
    from recrawl.core import store
    from recrawl.core.archive.cdxj import cdxj_line, write_index
    from recrawl.core.archive.segments import history_relpath, warc_relpath
    from recrawl.core.project import Project
    from recrawl.core.store.models import Page

    rng = random.Random(7)
    project = Project.init(folder)
    hosts = [f"site{n}.example" for n in range(20)]
    urls = [f"https://{hosts[i % 20]}/p/{i}" for i in range(pages)]
    embed = {url for i, url in enumerate(urls) if i % 5 == 0}
    files = segments + history
    per_file = captures // files
    year = timedelta(days=365)
    pointers: dict[str, tuple[str, str, int]] = {}
    for number in range(files):
        start = T0 + year * number / files
        name = start.strftime("%Y%m%d%H%M%S")
        is_history = number < history  # the older ones, as compaction leaves them
        relpath = history_relpath(name) if is_history else warc_relpath(name)
        warc = folder / relpath
        warc.parent.mkdir(parents=True, exist_ok=True)
        lines, offset = [], 300
        for n in range(per_file):
            url = urls[rng.randrange(pages)]
            length = rng.randrange(800, 30_000)
            when = start + timedelta(seconds=n * 20)
            fields = {"mime": "text/html", "status": "200", "digest": "sha1:X"}
            fields.update(length=length, offset=offset, filename=warc.name)
            lines.append(cdxj_line(url, when, fields))
            if not is_history:
                pointers[url] = (name, relpath, offset)
            offset += length + 600
        with open(warc, "wb") as fh:
            fh.truncate(offset)  # sparse: the bytes are never read
        write_index(warc.with_suffix("").with_suffix(".cdxj"), lines)
        if not is_history:
            store.create_segment(name, start, relpath)
            store.close_segment(name, len(lines), offset, start)
    rows = []
    for url in urls:
        name, relpath, offset = pointers.get(url, (None, None, None))
        rows.append(
            {
                "url": url,
                "host": url.split("/")[2],
                "kind": "embed" if url in embed else "page",
                "status": "fetched",
                "first_seen": T0,
                "next_fetch": T0 + year,
                "fetch_interval": 86400.0,
                "segment": name,
                "capture_file": relpath,
                "capture_offset": offset,
                "payload_segment": name,
                "payload_file": relpath,
                "payload_offset": offset,
            }
        )
    with store.transaction():
        for start in range(0, len(rows), 500):
            Page.insert_many(rows[start : start + 500]).execute()
    project.close()


def timed(folder: Path) -> tuple[float, float]:
    """The wall time of one ``recrawl storage DIR --json``, and its CPU time (user +
    system: less sensitive than the wall time to other work on the machine)."""
    recrawl = Path(sys.executable).with_name("recrawl")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [str(recrawl), "storage", str(folder), "--json"], check=True, capture_output=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--captures", type=int, default=200_000)
    parser.add_argument("--segments", type=int, default=60)
    parser.add_argument("--history", type=int, default=300)
    parser.add_argument("--pages", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the project, print its path")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="recrawl-storage-bench-")) / "project"
    try:
        started = time.perf_counter()
        build(folder, args.captures, args.segments, args.history, args.pages)
        built = time.perf_counter() - started
        cold, cold_cpu = timed(folder)
        runs = [timed(folder) for _ in range(args.runs)]
        warm = statistics.median(wall for wall, _ in runs)
        warm_cpu = statistics.median(cpu for _, cpu in runs)
        verdict = "ok" if warm < TARGET_S else "MISSED"
        print(
            f"storage: {args.captures:,} captures in {args.segments} segments + "
            f"{args.history} history files, {args.pages:,} pages (built in {built:.1f} s): "
            f"cold {cold:.2f} s ({cold_cpu:.2f} s CPU), warm {warm:.3f} s ({warm_cpu:.3f} s "
            f"CPU; median of {args.runs}; target < {TARGET_S} s: {verdict})"
        )
        return 0 if warm < TARGET_S else 1
    finally:
        if args.keep:
            print(folder)
        else:
            shutil.rmtree(folder.parent, ignore_errors=True)


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.exit(main())
