"""Full-text search through time on a big project (issue 30): the index's build rate, its
size, and the latency of mixed queries with first/last-seen.

    python bench/search_bench.py [--pages 100000] [--versions 5] [--queries 100]
                                 [--workers 2] [--keep DIR]

The project is generated, not crawled (bench/search_text_gen.py writes the text): real
segments through the project's own segment writer (one a round), the capture table's
rows and a page row per URL. Each page has ``--versions`` versions, each a few paragraphs
of words of a Zipf-distributed vocabulary (one page in twenty in Russian, Greek, Arabic or
Chinese), each version its predecessor with sentences added, removed or edited; one page
in five is captured once more unchanged (an identical-payload revisit) between versions.

Then:

a. the background build over the whole project: every page version's text read from its
   WARC record, made an :class:`IndexedText` in ``--workers`` processes and added to the
   store (``store.search.add_texts``) in batches, one transaction each: versions/s and MB
   of text/s;
b. the index's size: the FTS tables' pages (``dbstat``) and the stored compressed texts,
   against the text indexed and the WARC bytes (target: the FTS index ≤ 25 % of its text);
c. ``--queries`` mixed queries through :func:`recrawl.core.archive.search.search` (words of
   high, middle and low frequency, phrases of 2–4 words taken from the pages' texts,
   prefixes, an exclusion, two-word queries, words of the other scripts), each timed with
   its first/last-seen: median and p95 (targets < 100 ms and < 300 ms), then the slowest.

A benchmark, not a test: exit status 0 whatever the figures; each target says ok or MISSED.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import search_text_gen as gen

T0 = datetime(2027, 1, 1)
ROUND = timedelta(days=7)
MEDIAN_TARGET_MS, P95_TARGET_MS = 100.0, 300.0
INDEX_SHARE_TARGET = 0.25
BATCH = 400


# -- the project -----------------------------------------------------------------------------


def url_of(i: int) -> str:
    return f"https://site{i % 40}.example/section{i % 13}/page-{i}.html"


def html_of(page: gen.PageText, language: str, site: str) -> bytes:
    paragraphs = "".join(f"<p>{' '.join(p)}</p>\n" for p in page.paragraphs)
    return (
        f'<!DOCTYPE html>\n<html lang="{language}"><head><meta charset="utf-8">'
        f'<title>{page.title}</title></head>\n<body><header><nav><a href="/">Home</a> '
        f'<a href="/news/">News</a> <a href="/about">About</a></nav></header>\n'
        f"<main><article><h1>{page.title}</h1>\n{paragraphs}</article></main>\n"
        f"<footer><p>{site}</p></footer></body></html>\n"
    ).encode()


@dataclass
class Generated:
    project: Path
    pages: int
    captures: int = 0
    revisits: int = 0
    versions: int = 0
    html_bytes: int = 0
    #: Some sentences of the texts (for phrase queries), as written.
    sentences: list[str] = field(default_factory=list)
    #: Sentences of the other scripts, by language.
    foreign: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class Made:
    """What a worker made of one page: its captures' records, round by round."""

    url: str
    language: str
    #: (round, instant, digest, members, body size, title): members None for a capture
    #: that repeats the previous one's payload (a revisit).
    captures: list[tuple[int, datetime, str, object | None, int, str]]
    sample: str | None


def _plan(i: int, versions: int, rng: random.Random) -> list[int]:
    """The version each round captures: one page in five is captured once more,
    unchanged, in a round between two versions."""
    plan = list(range(versions))
    if i % 5 == 0 and versions > 1:
        again = rng.randint(1, versions - 1)
        plan.insert(again, again - 1)
    return plan


def make_pages(start: int, stop: int, versions: int, seed: int) -> list[Made]:
    """In a worker process: pages ``start``..``stop``, their texts and WARC records."""
    from recrawl.core.archive.warc_writer import RecordBuilder
    from recrawl.core.net.http import HttpRequest, HttpResponse

    rng = random.Random(seed * 1_000_003 + start)
    langs = gen.languages(40_000, seed, draws_seed=seed * 7_919 + start)
    builder = RecordBuilder()
    out = []
    for i in range(start, stop):
        url = url_of(i)
        site = urlsplit(url).hostname or ""
        language = gen.language_of(i)
        request = HttpRequest("GET", urlsplit(url).path, "HTTP/1.1", [("Host", site)])
        texts = list(gen.versions(langs[language], rng, versions))
        captures: list[tuple[int, datetime, str, object | None, int, str]] = []
        previous = None
        for r, v in enumerate(_plan(i, versions, rng)):
            at = T0 + ROUND * r + timedelta(seconds=i)
            body = html_of(texts[v], language, site)
            headers = [("Content-Type", "text/html; charset=utf-8")]
            response = HttpResponse("HTTP/1.1", 200, "OK", headers, body)
            members = builder.response_members(url, at, request, response)
            digest = members.payload_digest
            if digest == previous:  # unchanged (or edited back): the crawl writes a revisit
                captures.append((r, at, digest, None, len(body), texts[v].title))
            else:
                captures.append((r, at, digest, members, len(body), texts[v].title))
            previous = digest
        sample = None
        if i % (97 if language == "en" else 11) == 0:
            sample = rng.choice(rng.choice(rng.choice(texts).paragraphs))
        out.append(Made(url, language, captures, sample))
    return out


def generate(
    folder: Path, pages: int, versions: int, workers: int, seed: int = 19, chunk: int = 1000
) -> Generated:
    """Write the project: ``versions + 1`` rounds (the last only for the pages captured once
    more), one segment each, then the pages' rows. Texts and records are made in
    ``workers`` processes; this one writes them, in page order."""
    from recrawl.core.archive.segment_writer import SegmentWriter
    from recrawl.core.archive.warc import IDENTICAL_PAYLOAD
    from recrawl.core.net.http import HttpRequest, HttpResponse
    from recrawl.core.project import Project

    project = Project.init(folder)
    writers = []
    for r in range(versions + 1):
        at = T0 + ROUND * r
        writers.append(SegmentWriter(project.path, at.strftime("%Y%m%d%H%M%S"), at))
    out = Generated(folder, pages)
    # what write_response reads of a response whose records are built already: its status
    response_stub = HttpResponse("HTTP/1.1", 200, "OK", [], b"")
    latest: dict[str, tuple[Any, ...]] = {}
    starts = range(0, pages, chunk)
    with ProcessPoolExecutor(workers) as pool:
        made_chunks = pool.map(
            make_pages,
            starts,
            [min(s + chunk, pages) for s in starts],
            [versions] * len(starts),
            [seed] * len(starts),
        )
        for made_chunk in made_chunks:
            for made in made_chunk:
                path = urlsplit(made.url).path
                request = HttpRequest("GET", path, "HTTP/1.1", [])
                previous: tuple[datetime, str] | None = None  # the response: date, id
                for r, at, digest, members, size, title in made.captures:
                    writer = writers[r]
                    if members is None:
                        assert previous is not None
                        head = [("Content-Type", "text/html; charset=utf-8")]
                        response = HttpResponse("HTTP/1.1", 200, "OK", head, b"")
                        writer.write_revisit(
                            made.url, at, request, response, profile=IDENTICAL_PAYLOAD,
                            digest=digest, refers_to_uri=made.url,
                            refers_to_date=previous[0], refers_to_id=previous[1],
                        )  # fmt: skip
                        out.revisits += 1
                    else:
                        written = writer.write_response(
                            made.url, at, request, response_stub, digest=digest,
                            mime="text/html", members=members,
                        )  # fmt: skip
                        previous = (at, written.record_id)
                        latest[made.url] = (writer, at, digest, title, written)
                        out.versions += 1
                        out.html_bytes += size
                    out.captures += 1
                if made.sample is not None:
                    if made.language == "en":
                        out.sentences.append(made.sample)
                    else:
                        out.foreign.setdefault(made.language, []).append(made.sample)
            done = _index_of(made_chunk[-1].url) + 1
            if done % 10_000 < chunk:
                print(f"  generated {done:,} pages", flush=True)
    for r, writer in enumerate(writers):
        writer.close(T0 + ROUND * r + timedelta(days=2), writer.written())
    _page_rows(latest)
    project.close()
    return out


def _index_of(url: str) -> int:
    return int(url.rsplit("-", 1)[1].removesuffix(".html"))


def _page_rows(latest: dict[str, tuple[Any, ...]]) -> None:
    """A page row per URL, pointing at its latest capture (a response: its payload too)."""
    from recrawl.core.store.connection import transaction
    from recrawl.core.store.models import Page, PageKind, PageStatus

    rows = []
    for url, (writer, at, digest, title, written) in latest.items():
        rows.append(
            {
                "url": url,
                "host": urlsplit(url).hostname,
                "kind": PageKind.PAGE,
                "status": PageStatus.FETCHED,
                "first_seen": T0,
                "first_fetched": T0,
                "last_fetched": at,
                "next_fetch": at + ROUND,
                "fetch_interval": ROUND.total_seconds(),
                "content_changed_at": at,
                "payload_digest": digest,
                "content_type": "text/html; charset=utf-8",
                "title": title,
                "segment": writer.name,
                "capture_file": writer.relpath,
                "capture_offset": written.offset,
                "capture_length": written.length,
                "payload_segment": writer.name,
                "payload_file": writer.relpath,
                "payload_offset": written.offset,
                "payload_length": written.length,
                "payload_record_id": written.record_id,
                "payload_date": at,
            }
        )
    with transaction():
        for start in range(0, len(rows), 500):
            Page.insert_many(rows[start : start + 500]).execute()


# -- the build -------------------------------------------------------------------------------


@dataclass
class Built:
    versions: int
    text_bytes: int
    seconds: float
    how: str


def build(project: Path, workers: int) -> Built:
    """The project's background build (``ensure_search_index``, as `recrawl search` and
    the app run it), then the text it made searchable: every version's title and text."""
    from recrawl.core import store
    from recrawl.core.archive.search_build import ensure_search_index
    from recrawl.core.project import Project
    from recrawl.core.store.models import SearchVersion
    from recrawl.core.store.search import STALE, set_search_state, version_texts

    opened = Project.open(project)
    try:
        started = time.perf_counter()
        shown = [0]

        def progress(done: int, total: int) -> None:
            if done // 50_000 != shown[0]:
                shown[0] = done // 50_000
                print(f"  indexed {done:,} of {total:,} versions", flush=True)

        with store.transaction():  # made by the generator, not by crawls: not indexed yet
            set_search_state(STALE)
        report = ensure_search_index(project, progress, workers=workers)
        seconds = time.perf_counter() - started
        pairs = list(SearchVersion.select(SearchVersion.url, SearchVersion.digest).tuples())
        text_bytes = 0
        for start in range(0, len(pairs), 5000):
            for document in version_texts(pairs[start : start + 5000]).values():
                text_bytes += len(document.text.encode()) + len((document.title or "").encode())
    finally:
        opened.close()
    how = f"ensure_search_index, texts made in {workers} processes; {report.unreadable} unreadable"
    return Built(len(pairs), text_bytes, seconds, how)


# -- the index's size ------------------------------------------------------------------------


@dataclass
class Sizes:
    fts: int
    tables: int
    compressed_texts: int
    warc: int


def sizes(project: Path) -> Sizes:
    from recrawl.core.project import Project
    from recrawl.core.store.models import DB

    opened = Project.open(project)
    try:

        def one(sql: str) -> int:
            return int(DB.execute_sql(sql).fetchone()[0] or 0)

        fts = one("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search_fts%'")
        tables = one(
            "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search_doc%' "
            "OR name LIKE 'search_version%'"
        )
        texts = one("SELECT SUM(length(body)) FROM search_doc")
    finally:
        opened.close()
    warc = sum(path.stat().st_size for path in project.rglob("*.warc.gz"))
    return Sizes(fts, tables, texts, warc)


# -- the queries -----------------------------------------------------------------------------


def queries(made: Generated, count: int, seed: int = 19) -> list[tuple[str, str]]:
    """``count`` queries of several kinds, (kind, query), from the vocabulary and from
    sentences of the pages' texts."""
    rng = random.Random(seed)
    words = gen.latin_words(40_000, seed)

    def word(low: int, high: int) -> str:
        return words[rng.randrange(low, min(high, len(words)))]

    def phrase(sentence: str, length: int) -> str:
        tokens = [t.strip(".,。") for t in sentence.split()]
        tokens = [t for t in tokens if t]
        start = rng.randrange(max(1, len(tokens) - length + 1))
        return '"' + " ".join(tokens[start : start + length]) + '"'

    sentences = made.sentences or ["the harbour wall will close"]
    kinds: list[tuple[str, float, object]] = [
        ("common word", 0.07, lambda: word(0, 60)),
        ("middle word", 0.08, lambda: word(300, 3_000)),
        ("rare word", 0.08, lambda: word(8_000, 40_000)),
        ("phrase 2", 0.09, lambda: phrase(rng.choice(sentences), 2)),
        ("phrase 3", 0.09, lambda: phrase(rng.choice(sentences), 3)),
        ("phrase 4", 0.09, lambda: phrase(rng.choice(sentences), 4)),
        ("prefix", 0.12, lambda: word(200, 20_000)[:4] + "*"),
        ("two words", 0.12, lambda: f"{word(100, 2_000)} {word(1_000, 20_000)}"),
        ("exclusion", 0.12, lambda: f"{word(50, 1_000)} -{word(0, 200)}"),
    ]
    foreign = [s for found in made.foreign.values() for s in found]
    out: list[tuple[str, str]] = []
    for kind, share, make in kinds:
        out += [(kind, make()) for _ in range(max(1, round(share * count)))]  # type: ignore[operator]
    while len(out) < count:
        if foreign:
            sentence = rng.choice(foreign)
            if sentence.endswith("。"):  # Chinese: a few characters, a phrase of tokens
                at = rng.randrange(max(1, len(sentence) - 4))
                out.append(("other script", sentence[at : at + rng.randint(2, 3)]))
            else:
                out.append(("other script", phrase(sentence, rng.randint(1, 2)).strip('"')))
        else:
            out.append(("middle word", word(300, 3_000)))
    rng.shuffle(out)
    return out[:count]


@dataclass
class Timed:
    kind: str
    query: str
    ms: float
    hits: int


def run_queries(project: Path, asked: list[tuple[str, str]]) -> list[Timed]:
    from recrawl.core.archive.search import search
    from recrawl.core.project import Project

    opened = Project.open(project)
    try:
        search("warmup")  # the store's first query opens its tables
        out = []
        for kind, text in asked:
            started = time.perf_counter()
            results = search(text)
            ms = (time.perf_counter() - started) * 1000
            for hit in results.hits:  # first/last-seen are part of every hit
                assert hit.first_seen <= hit.last_seen
            out.append(Timed(kind, text, ms, len(results.hits)))
    finally:
        opened.close()
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2, help="processes making texts")
    parser.add_argument("--keep", type=Path, default=None, help="build the project here, keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="recrawl-search-bench-"))
    folder = root / "project"
    kept = root / "bench.json"
    try:
        if kept.exists():  # a kept run's project, built already: its queries again
            saved = json.loads(kept.read_text())
            made = Generated(folder, **saved["made"])
            built = Built(**saved["built"])
            print(f"(the project, and its build, of the run kept in {root})")
        else:
            started = time.perf_counter()
            made = generate(folder, args.pages, args.versions, args.workers)
            made.seconds = time.perf_counter() - started
            built = build(folder, args.workers)
            if args.keep:
                made_fields = {k: v for k, v in vars(made).items() if k != "project"}
                kept.write_text(json.dumps({"made": made_fields, "built": vars(built)}))
        print(
            f"project: {made.pages:,} pages, {made.captures:,} captures ({made.versions:,} "
            f"versions, {made.revisits:,} revisits), {made.html_bytes / 1e6:,.0f} MB of HTML, "
            f"generated in {made.seconds:.0f} s",
            flush=True,
        )
        rate = built.versions / built.seconds
        mbps = built.text_bytes / 1e6 / built.seconds
        print(
            f"build: {built.versions:,} versions, {built.text_bytes / 1e6:,.0f} MB of text in "
            f"{built.seconds:.0f} s: {rate:,.0f} versions/s, {mbps:.2f} MB of text/s ({built.how})",
            flush=True,
        )
        size = sizes(folder)
        share = size.fts / built.text_bytes
        print(
            f"index: FTS {size.fts / 1e6:,.1f} MB = {share:.1%} of the {built.text_bytes / 1e6:,.0f} "
            f"MB of text it indexes (target ≤ {INDEX_SHARE_TARGET:.0%}: {verdict(share <= INDEX_SHARE_TARGET)}), "
            f"{size.fts / size.warc:.1%} of the {size.warc / 1e6:,.0f} MB of WARCs; documents and "
            f"versions {size.tables / 1e6:,.1f} MB (compressed texts {size.compressed_texts / 1e6:,.1f} MB); "
            f"all {(size.fts + size.tables) / built.text_bytes:.1%} of the text, "
            f"{(size.fts + size.tables) / size.warc:.1%} of the WARCs",
            flush=True,
        )
        timed = run_queries(folder, queries(made, args.queries))
        times = [t.ms for t in timed]
        median, high = statistics.median(times), p95(times)
        print(
            f"queries: {len(timed)} mixed, with first/last-seen: median {median:.1f} ms "
            f"(target < {MEDIAN_TARGET_MS:.0f}: {verdict(median < MEDIAN_TARGET_MS)}), p95 "
            f"{high:.1f} ms (target < {P95_TARGET_MS:.0f}: {verdict(high < P95_TARGET_MS)})"
        )
        kinds: dict[str, list[Timed]] = {}
        for t in timed:
            kinds.setdefault(t.kind, []).append(t)
        for kind, found in kinds.items():
            ms = [t.ms for t in found]
            hits = statistics.median(t.hits for t in found)
            print(
                f"  {kind:<13} {len(found):>3}: median {statistics.median(ms):7.1f} ms, "
                f"max {max(ms):7.1f} ms, median {hits:.0f} hits"
            )
        print("  slowest:")
        for t in sorted(timed, key=lambda t: -t.ms)[:5]:
            print(f"    {t.ms:8.1f} ms  {t.kind:<13} {t.query!r} ({t.hits} hits)")
        return 0
    finally:
        if args.keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.exit(main())
