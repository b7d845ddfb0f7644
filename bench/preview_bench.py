#!/usr/bin/env python
"""Change-rule preview benchmark: how fast ``changes --preview`` re-judges archived captures.

    python bench/preview_bench.py [--pages 1000] [--rounds 10] [--unchanged 0.0]
                                  [--browser] [--workers N] [--seed 7] [--keep]

1. Builds a project the way a crawl leaves it: ``--rounds`` segments written by
   :class:`recrawl.core.archive.segment_writer.SegmentWriter` (real gzipped WARC records
   and CDXJ indexes, the store's pointers committed as a round commits them), each
   holding one capture of every one of ``--pages`` news articles (about 7 KB of HTML:
   navigation, a sidebar, a footer, an article of 6 to 10 paragraphs with a "Trending
   now" ticker inside it). ``--pages`` × ``--rounds`` captures in all (10,000 by default).
   At each fetch the ticker moves on (a new headline) unless the fetch finds the page
   unchanged (probability ``--unchanged``; 0 by default: every capture is a payload of
   its own, the worst case, nothing to skip by digest), and one fetch in ten also
   carries a real edit (a paragraph added). Unchanged fetches are revisit records.
   ``--browser``: every capture also keeps its rendered DOM beside it (§16), which the
   preview must read and sign instead of the payload.
2. Previews the rule ``--remove .ticker`` on the site through
   ``Services(project).changes.preview`` (what ``recrawl changes --preview`` runs), with
   its progress on stderr, and prints the time, the captures per second and the counts.
   Target: 10,000 captures in at most 30 s on this machine. Exit status 1 if missed.
   The CPU time of every process is printed beside it, and the load average: on a
   machine others are using, the wall time says more about them than about the preview.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recrawl.core import store
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.archive.segments import allocate_name
from recrawl.core.archive.warc import IDENTICAL_PAYLOAD, payload_digest
from recrawl.core.engine.change_preview import PreviewProgress, preview_rule
from recrawl.core.net.http import HttpRequest, HttpResponse
from recrawl.core.policy.change_rules import ChangeRule
from recrawl.core.project import Project

T0 = datetime(2027, 1, 1)
HOST = "news.example"
TARGET_S = 30.0
CAPTURES_TARGET = 10_000
WORDS = [
    "council",
    "harbour",
    "bridge",
    "survey",
    "river",
    "museum",
    "station",
    "library",
    "festival",
    "tram",
    "school",
    "garden",
    "summit",
    "valley",
    "market",
    "district",
    "volunteers",
    "engineers",
    "residents",
    "budget",
    "plans",
    "report",
    "measurement",
    "agency",
    "committee",
    "season",
    "weather",
    "road",
    "project",
    "opening",
    "hall",
]


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(10, 18))]
    return " ".join(words).capitalize() + f", {rng.randint(2, 900)} of them said."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(3, 5)))


def render(title: str, paragraphs: list[str], trending: str, links: list[str]) -> bytes:
    nav = "".join(f"<li><a href='/section/{w}'>{w.title()}</a></li>" for w in WORDS[:12])
    side = "".join(f"<li><a href='{href}'>{href.rsplit('/', 1)[-1]}</a></li>" for href in links)
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f"<header><nav><ul>{nav}</ul></nav></header>"
        f"<main><article><h1>{title}</h1><p class='ticker'>Trending now: {trending}</p>"
        f"{body}</article><aside><h2>Related</h2><ul>{side}</ul></aside></main>"
        "<footer><p>News Example, all rights reserved. Contact the newsroom.</p></footer>"
        "</body></html>"
    ).encode()


def build(
    folder: Path, pages: int, rounds: int, unchanged: float, browser: bool, seed: int
) -> Project:
    project = Project.init(folder)
    rng = random.Random(seed)
    urls = [f"http://{HOST}/article/{i}" for i in range(pages)]
    store.add_pages(
        [store.NewPage(url=u, host=HOST, next_fetch=T0, fetch_interval=86400.0) for u in urls], T0
    )
    ids = store.page_ids(urls)
    titles = [sentence(rng).rstrip(".") for _ in urls]
    texts = [[paragraph(rng) for _ in range(rng.randint(6, 10))] for _ in urls]
    links = [[f"/article/{rng.randrange(pages)}" for _ in range(8)] for _ in urls]
    known: dict[int, dict[str, object]] = {}
    request = HttpRequest("GET", "/", "HTTP/1.1", [("Host", HOST)])
    for r in range(rounds):
        now = T0 + timedelta(days=r)
        writer = SegmentWriter(folder, allocate_name(folder, now), now)
        batch = store.CommitBatch(segment=writer.name)
        for i, url in enumerate(urls):
            earlier = known.get(i)
            if earlier is None or rng.random() >= unchanged:
                if rng.random() < 0.1:
                    texts[i].append(paragraph(rng))  # a real edit
                body = render(titles[i], texts[i], sentence(rng), links[i])
                digest = payload_digest(body)
                headers = [("Content-Type", "text/html; charset=utf-8")]
                response = HttpResponse("HTTP/1.1", 200, "OK", headers, body)
                written = writer.write_response(
                    url, now, request, response, digest=digest, mime="text/html"
                )
                earlier = known[i] = {
                    "payload_segment": writer.name,
                    "payload_file": writer.relpath,
                    "payload_offset": written.offset,
                    "payload_length": written.length,
                    "payload_record_id": written.record_id,
                    "payload_date": now,
                    "payload_digest": digest,
                    "body": body,
                }
            else:
                response = HttpResponse("HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], b"")
                written = writer.write_revisit(
                    url, now, request, response,
                    profile=IDENTICAL_PAYLOAD,
                    digest=str(earlier["payload_digest"]),
                    refers_to_uri=url,
                    refers_to_date=earlier["payload_date"],  # type: ignore[arg-type]
                    refers_to_id=str(earlier["payload_record_id"]),
                )  # fmt: skip
            if browser:  # the rendered DOM: the document as the browser left it
                writer.write_rendering(url, now, written.record_id, earlier["body"], None)  # type: ignore[arg-type]
            batch.records += 1
            pointers = {k: v for k, v in earlier.items() if k != "body"}
            batch.page_updates.append(
                (
                    ids[url],
                    {
                        "status": "fetched",
                        "segment": writer.name,
                        "capture_file": writer.relpath,
                        "capture_offset": written.offset,
                        "capture_length": written.length,
                        "last_fetched": now,
                        "content_type": "text/html; charset=utf-8",
                        **pointers,
                    },
                )
            )
        batch.committed_bytes = writer.flush()
        store.commit_batch(batch, now)
        writer.close(now, batch.committed_bytes)
    return project


class Progress:
    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self, state: PreviewProgress) -> None:
        now = time.monotonic()
        if now - self.last < 1.0 and state.done < state.captures:
            return
        self.last = now
        print(f"  previewing: {state.done:,} of {state.captures:,} captures", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--unchanged", type=float, default=0.0)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the project folder")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="preview-bench-")) / "project"
    started = time.perf_counter()
    project = build(folder, args.pages, args.rounds, args.unchanged, args.browser, args.seed)
    captures = args.pages * args.rounds
    print(f"built {captures:,} captures of {args.pages:,} pages in "
          f"{time.perf_counter() - started:.1f} s ({folder})")  # fmt: skip
    rule = ChangeRule(f"{HOST}/", remove=(".ticker",))
    load = os.getloadavg()[0]
    cpu_before = os.times()
    started = time.perf_counter()
    # what Services(project).changes.preview runs, with the workers chosen
    found = preview_rule(project.path, rule, progress=Progress(), workers=args.workers)
    elapsed = time.perf_counter() - started
    after = os.times()  # the worker processes' CPU time counts once they were joined
    cpu = sum(after[:4]) - sum(cpu_before[:4])
    project.close()
    rate = captures / elapsed
    print(
        f"preview of --remove .ticker: {captures:,} captures in {elapsed:.1f} s "
        f"({rate:,.0f} captures/s); {found.judged:,} fetches judged, "
        f"{found.to_unchanged:,} changed -> unchanged, {found.to_changed:,} unchanged -> "
        f"changed, {found.unreadable:,} unreadable"
    )
    print(
        f"CPU time {cpu:.1f} s over all processes ({cpu / captures * 1000:.2f} ms a capture); "
        f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after (others' work slows it)"
    )
    at_target = CAPTURES_TARGET / rate
    verdict = "ok" if at_target <= TARGET_S else "MISSED"
    print(
        f"10,000 captures at this rate: {at_target:.1f} s (target <= {TARGET_S:.0f} s): {verdict}"
    )
    if not args.keep:
        import shutil

        shutil.rmtree(folder.parent)
    return 0 if at_target <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
