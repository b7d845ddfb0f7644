"""Compaction benchmark: MB/s of `compact --below 0.5` against a plain copy of the same bytes.

    python bench/compact_bench.py [--pages 5000] [--rounds 200] [--body-kb 48] [--seed 0]
                                  [--listing-pages 1000000] [--listing-segments 1000] [--keep]

1. Generates a project the way a long crawl leaves it: ``--rounds`` segments written by
   :class:`recrawl.core.archive.segments.SegmentWriter` (gzipped WARC records, sorted CDXJ, store
   pointers). Pages are refetched every 1 to 100 rounds or fetched once (those arrive
   in bursts), and a fetch finds a page changed with a per-page probability; unchanged
   fetches are revisits that keep old responses alive. Segments end up with liveness
   from a few percent to nearly all (about 300 MB of WARC by default). Bodies are
   ``--body-kb`` of random text, about 29 KB once gzipped by default: the size of a
   typical HTML page as transferred. Compaction has a cost per record (index lines,
   page pointers), so smaller records lower its MB/s (see bench/README.md).
2. Copies the WARCs of the segments below 50 % liveness to a scratch folder on the
   same disk (``shutil.copyfile`` + fsync per file): the plain-copy figure.
3. Runs ``recrawl.core.archive.compaction.compact(below=0.5)`` (superseded captures to history, as by
   default) and prints its MB/s over the same bytes, lock, planning, store transaction
   and deletions included. Steps 2 and 3 run ``--trials`` times, each on a fresh copy of
   the project with dirty pages flushed first (this machine's disk is noisy); the
   verdict compares medians. Target >= 0.5x.
4. Builds a store of ``--listing-pages`` pages over ``--listing-segments`` segments
   (pointers only, no WARCs: liveness is computed from the store) and times the
   whole ``recrawl segments DIR --json`` command. Target < 2 s.

Exit status 1 if a target is missed. Both runs read files the generator has just
written (the page cache is warm for the copy and the compaction alike).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recrawl.core import store
from recrawl.core.archive.compaction import choose_segments, compact
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.segments import allocate_name, warc_relpath
from recrawl.core.archive.warc import IDENTICAL_PAYLOAD, payload_digest
from recrawl.core.net.http import HttpRequest, HttpResponse
from recrawl.core.project import Project
from recrawl.core.store.models import DB, Segment

T0 = datetime(2027, 1, 1)
ONCE = 1 << 30
PERIODS = (1, 5, 20, 50, 100, ONCE)  # rounds between fetches of a page (ONCE: fetched once)
PERIOD_WEIGHTS = (0.005, 0.02, 0.05, 0.1, 0.2, 0.6)
CHANGE_PROBABILITIES = (0.05, 0.2, 0.5, 0.8)  # that a fetch finds the page changed
COPY_TARGET = 0.5
LISTING_TARGET_S = 2.0
MB = 1e6


def _body(rng: np.random.Generator, kb: int) -> bytes:
    """Letters and spaces: compresses about as badly as real text with markup removed."""
    letters = rng.integers(97, 124, size=kb * 1024, dtype=np.uint8)
    letters[letters == 123] = 32
    return b"<html><body><p>" + letters.tobytes() + b"</p></body></html>"


def generate(folder: Path, pages: int, rounds: int, body_kb: int, seed: int) -> Project:
    project = Project.init(folder)
    rng = random.Random(seed)
    bodies = np.random.default_rng(seed)
    urls = [f"http://site{i % 97}.example/page/{i}" for i in range(pages)]
    store.add_pages(
        [
            store.NewPage(url=u, host=u.split("/")[2], next_fetch=T0, fetch_interval=86400.0)
            for u in urls
        ],
        T0,
    )
    ids = store.page_ids(urls)
    # Pages fetched once arrive in bursts (a new site section found), so some rounds are
    # mostly first captures that stay live and others mostly refetches that go stale.
    bursts = [rng.paretovariate(0.7) for _ in range(rounds)]
    period = rng.choices(PERIODS, PERIOD_WEIGHTS, k=pages)
    start = [
        rng.choices(range(rounds), bursts)[0] if p == ONCE else rng.randrange(p) for p in period
    ]
    change_p = [rng.choice(CHANGE_PROBABILITIES) for _ in range(pages)]
    payload: dict[int, dict] = {}
    request = HttpRequest("GET", "/", "HTTP/1.1", [("User-Agent", "Recrawl-bench")])
    for r in range(rounds):
        now = T0 + timedelta(days=r)
        writer = SegmentWriter(folder, allocate_name(folder, now), now)
        batch = store.CommitBatch(segment=writer.name)
        for i, url in enumerate(urls):
            if r < start[i] or (r - start[i]) % period[i]:
                continue
            known = payload.get(i)
            if known is None or rng.random() < change_p[i]:
                body = _body(bodies, body_kb)
                digest = payload_digest(body)
                response = HttpResponse(
                    "HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], body
                )
                written = writer.write_response(
                    url, now, request, response, digest=digest, mime="text/html"
                )
                known = payload[i] = {
                    "payload_segment": writer.name,
                    "payload_file": writer.relpath,
                    "payload_offset": written.offset,
                    "payload_length": written.length,
                    "payload_record_id": written.record_id,
                    "payload_date": now,
                    "payload_digest": digest,
                }
            else:
                response = HttpResponse("HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], b"")
                written = writer.write_revisit(
                    url, now, request, response,
                    profile=IDENTICAL_PAYLOAD,
                    digest=known["payload_digest"],
                    refers_to_uri=url,
                    refers_to_date=known["payload_date"],
                    refers_to_id=known["payload_record_id"],
                )  # fmt: skip
            batch.records += 1
            batch.page_updates.append(
                (
                    ids[url],
                    {
                        "segment": writer.name,
                        "capture_file": writer.relpath,
                        "capture_offset": written.offset,
                        "capture_length": written.length,
                        "last_fetched": now,
                        **known,
                    },
                )
            )
        batch.committed_bytes = writer.flush()
        store.commit_batch(batch, now)
        writer.close(now, batch.committed_bytes)
    return project


def plain_copy(folder: Path, names: list[str]) -> tuple[int, float]:
    scratch = folder / "plain-copy"
    scratch.mkdir()
    total = 0
    started = time.perf_counter()
    for name in names:
        source = folder / warc_relpath(name)
        target = scratch / source.name
        shutil.copyfile(source, target)
        with open(target, "rb+") as fh:
            os.fsync(fh.fileno())
        total += source.stat().st_size
    elapsed = time.perf_counter() - started
    shutil.rmtree(scratch)
    return total, elapsed


def listing_store(folder: Path, pages: int, segments: int, seed: int) -> None:
    """A store of ``pages`` pages whose pointers spread over ``segments`` segments."""
    project = Project.init(folder)
    rng = random.Random(seed)
    names = [(T0 + timedelta(hours=h)).strftime("%Y%m%d%H%M%S") for h in range(segments)]
    per_segment = [0] * segments
    rows = []
    for i in range(pages):
        capture = rng.randrange(segments)
        # a third of the latest captures are revisits of a response in an older segment
        target = rng.randrange(capture + 1) if rng.random() < 1 / 3 else capture
        per_segment[capture] += 1
        rows.append(
            (
                f"http://site{i % 1000}.example/{i}", f"site{i % 1000}.example", "fetched",
                T0, T0, 86400.0, 0, 1.0, 0.0, 0, "{}",
                names[capture], warc_relpath(names[capture]), i * 4000, 4000,
                names[target], warc_relpath(names[target]), i * 4000 + (capture != target), 4000,
            )
        )  # fmt: skip
    columns = (
        "url, host, status, first_seen, next_fetch, fetch_interval, retries, score, cash, "
        "depth, metadata, segment, capture_file, capture_offset, capture_length, "
        "payload_segment, payload_file, payload_offset, payload_length"
    )
    with DB.atomic():
        DB.obj.cursor().executemany(
            f"INSERT INTO page ({columns}) VALUES ({', '.join('?' * 19)})", rows
        )
        for name, count in zip(names, per_segment, strict=True):
            Segment.create(
                name=name, created_at=T0, closed_at=T0, state="closed",
                warc_file=warc_relpath(name), records=count * 2, bytes=count * 8000,
            )  # fmt: skip
    project.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument(
        "--body-kb",
        type=int,
        default=48,
        help="response body size; 48 KB of random text gzips to ~29 KB, a typical HTML page "
        "as transferred",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--listing-pages", type=int, default=1_000_000)
    parser.add_argument("--listing-segments", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=3, help="timed runs of each (median)")
    parser.add_argument("--keep", action="store_true", help="keep the generated projects")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="recrawl-compact-bench-"))
    ok = True
    try:
        started = time.perf_counter()
        project = generate(root / "project", args.pages, args.rounds, args.body_kb, args.seed)
        warc_bytes = sum(p.stat().st_size for p in root.glob("project/segments/*/*.warc.gz"))
        captures = Segment.select().count(), sum(s.records for s in Segment.select())
        print(
            f"project: {captures[0]} segments, {captures[1]:,} captures, {warc_bytes / MB:.0f} MB "
            f"of WARC, {args.pages:,} pages (generated in {time.perf_counter() - started:.0f} s)"
        )
        summaries = store.segment_summaries()
        liveness = sorted(s["liveness"] for s in summaries)
        print(
            "liveness: min {:.0%}, quartiles {:.0%} / {:.0%} / {:.0%}, max {:.0%}".format(
                liveness[0], *(liveness[len(liveness) * q // 4] for q in (1, 2, 3)), liveness[-1]
            )
        )
        chosen = choose_segments(below=0.5)
        project.close()
        copies, compactions = [], []
        for trial in range(args.trials):
            # each trial on a fresh copy of the project; dirty pages flushed before each
            # timed step, so neither pays for the other's (or the setup's) writeback
            trial_dir = root / f"trial{trial}"
            shutil.copytree(root / "project", trial_dir)
            os.sync()
            copies.append(plain_copy(trial_dir, chosen))
            os.sync()
            trial_project = Project.open(trial_dir)
            summary = compact(trial_project, below=0.5)
            trial_project.close()
            compactions.append(summary)
            shutil.rmtree(trial_dir)
        copied = copies[0][0]
        copy_rates = sorted(copied / MB / seconds for _, seconds in copies)
        rates = sorted(s.bytes_before / MB / s.elapsed_s for s in compactions)
        print(
            f"plain copy: {len(chosen)} segments below 50 %, {copied / MB:.0f} MB; MB/s over "
            f"{args.trials} trials: {', '.join(f'{r:.0f}' for r in copy_rates)} "
            "(shutil.copyfile + fsync per file)"
        )
        summary = compactions[0]
        print(
            f"compaction: {summary.bytes_before / MB:.0f} MB; MB/s: "
            f"{', '.join(f'{r:.0f}' for r in rates)}; {summary.records_kept:,} records kept "
            f"({summary.bytes_after / MB:.0f} MB), {summary.records_moved_to_history:,} moved to "
            f"history ({summary.history_bytes / MB:.0f} MB)"
        )
        phases = {
            phase: sorted(s.phases[phase] for s in compactions)[len(compactions) // 2]
            for phase in compactions[0].phases
        }
        print(
            "compaction phases (median s): " + ", ".join(f"{k} {v:.3f}" for k, v in phases.items())
        )
        median = len(rates) // 2
        ratio = rates[median] / copy_rates[median]
        verdict = "ok" if ratio >= COPY_TARGET else "MISSED"
        ok &= ratio >= COPY_TARGET
        print(
            f"ratio compaction/plain copy (medians): {ratio:.2f}x, best/best "
            f"{rates[-1] / copy_rates[-1]:.2f}x (target >= {COPY_TARGET}x): {verdict}"
        )

        started = time.perf_counter()
        listing = root / "listing"
        listing_store(listing, args.listing_pages, args.listing_segments, args.seed)
        print(
            f"listing store: {args.listing_pages:,} pages over {args.listing_segments:,} segments "
            f"(built in {time.perf_counter() - started:.0f} s)"
        )
        times = []
        for _ in range(3):
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "recrawl", "segments", str(listing), "--json"],
                capture_output=True,
                cwd=Path(__file__).resolve().parents[1],
            )
            times.append(time.perf_counter() - started)
            if done.returncode != 0:
                print(done.stderr.decode(), file=sys.stderr)
                return 1
        verdict = "ok" if max(times) < LISTING_TARGET_S else "MISSED"
        ok &= max(times) < LISTING_TARGET_S
        print(
            f"`recrawl segments --json`, whole command: {', '.join(f'{t:.2f}' for t in times)} s "
            f"(target < {LISTING_TARGET_S:.0f} s): {verdict}"
        )
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
