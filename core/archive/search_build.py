"""The search index's background build (docs/design.md §19): the texts of the versions
captured before the index existed, or while a crawl did not index (``search.index`` off),
read back from the archive.

A crawl indexes each new version of a page as it commits its capture (the commit
pipeline). What it did not index — a store made before search (migration 17 marks one
with captures ``stale``), crawls with indexing off, an index of an older format (cleared
first) — is indexed here: every (URL, payload digest) of the capture table that a page's
HTML or text 2xx response has and the index lacks, its payload read from its WARC (a
browser capture's rendered DOM, §16), as the crawl reads a fetch. The work goes in
batches, each committed in its own transaction: a stop between batches (``should_stop``)
or a kill anywhere keeps what was committed, and the next build goes on from there (it
takes only what the index still lacks). The index is ``complete`` once nothing is left.

From :data:`POOL_FROM` versions on, the texts are made by worker processes (one per
core): a process pool costs a second or two to start, a version a few milliseconds.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.rendering import DOM_MIME, capture_at
from recrawl.core.archive.segments import resolve
from recrawl.core.config import FetchSettings
from recrawl.core.content.search_text import (
    INDEXED_TYPES,
    IndexedText,
    document_of,
    indexed_text,
)
from recrawl.core.errors import MissingFile, WarcError
from recrawl.core.net.http import decode_body
from recrawl.core.store.models import Capture, Page, PageKind, SearchVersion
from recrawl.core.store.search import (
    COMPLETE,
    SEARCH_FORMAT,
    STALE,
    add_texts,
    clear_index,
    indexed_versions,
    search_state,
    set_search_state,
    tidy_index,
    version_count,
)
from recrawl.core.store.sql import writing

#: Versions read, indexed and committed per transaction...
BATCH = 500
#: ... or fewer, once their payloads hold this many bytes.
BATCH_BYTES = 32 * 1024 * 1024
#: From this many versions on, texts are made by worker processes.
POOL_FROM = 2000
#: Where the project keeps its crawl settings (core/policy/crawl_settings.py): the
#: decoding cap a crawl read its fetches with, so a rebuilt text is the crawl's.
_KEPT = "crawl_settings"

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BuildReport:
    """What :func:`ensure_search_index` did."""

    #: The one line to say before the build (None: the index was complete already).
    line: str | None
    #: Versions to index when it started, and those done (indexed or unreadable).
    total: int = 0
    done: int = 0
    #: Versions whose payload could not be read (a WARC missing or damaged): left out.
    unreadable: int = 0
    #: Stopped between batches (``should_stop``): the next build goes on.
    stopped: bool = False
    #: The index was of an older format, cleared and built anew.
    rebuilt: bool = False

    @property
    def complete(self) -> bool:
        return not self.stopped


@dataclass(frozen=True)
class _Job:
    """One version to index: where its first capture lies (plain values, for a worker)."""

    url: str
    digest: str
    #: The WARC's path in the project (the capture table's), and where it is now.
    file: str
    path: str
    offset: int


OLDER = "the search index was made by an older Recrawl: rebuilding it"


def ensure_search_index(
    project_dir: Path,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    *,
    say: Callable[[str], None] | None = None,
    workers: int | None = None,
    batch: int = BATCH,
) -> BuildReport:
    """Make the active store's search index complete: index every page version it lacks.

    ``say(line)`` once before the work starts (the line is also the report's);
    ``progress(done, total)`` before the first batch and after each; ``should_stop()``
    between batches ends it there (committed batches stay; call again to resume).
    ``workers``: processes making texts (None: one per core for a large build)."""
    state = search_state()
    rebuilt = False
    if state.format < SEARCH_FORMAT and version_count() > 0:
        with writing():
            clear_index()
            set_search_state(STALE)
        rebuilt = True
    elif state.complete:
        return BuildReport(None)
    cap = _cap()
    failed: set[tuple[str, str, str, int]] = set()
    jobs = _missing(project_dir, failed)
    total = len(jobs)
    if rebuilt:
        line = OLDER
    elif version_count() == 0:
        line = f"indexing {total:,} page versions captured before the search index existed…"
    else:
        line = f"indexing {total:,} page versions the search index lacks…"
    if say is not None and total:
        say(line)
    done = 0
    if progress is not None:
        progress(done, total)
    if workers is None:
        workers = (os.cpu_count() or 1) if total >= POOL_FROM else 1
    pool: Executor | None = None
    if workers > 1 and total > batch:
        # spawn: forking a process with threads (the app's, a crawl's) can deadlock
        pool = ProcessPoolExecutor(
            workers, mp_context=get_context("spawn"), initializer=_ignore_interrupts
        )
    stopped = False
    try:
        while True:
            if not jobs:
                # captures committed meanwhile without their text (another process's
                # crawl with indexing off, a compaction moving a capture read here) are
                # taken too; none left, and no commit can slip in between: complete
                with writing():
                    jobs = _missing(project_dir, failed)
                    if not jobs:
                        set_search_state(COMPLETE)
                        if done:
                            tidy_index(whole=True)
                        break
                total = max(total, done + len(jobs))
            for taken in _batches(jobs, batch):
                if should_stop is not None and should_stop():
                    stopped = True
                    break
                maker = _Maker(cap)
                made = list(
                    pool.map(maker, taken, chunksize=max(1, len(taken) // (4 * workers)))
                    if pool is not None
                    else map(maker, taken)
                )
                with writing():
                    add_texts([text for text in made if isinstance(text, IndexedText)])
                for job, text in zip(taken, made, strict=True):
                    if isinstance(text, _Unreadable):
                        failed.add((job.url, job.digest, job.file, job.offset))
                done += len(taken)
                if progress is not None:
                    progress(done, total)
            if stopped:
                break
            jobs = []
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    # a version unreadable at one capture may have been read at another (archived whole
    # again, or moved by a compaction meanwhile)
    lost = {(url, digest) for url, digest, _, _ in failed}
    unreadable = len(lost - indexed_versions(lost))
    return BuildReport(line, total, done, unreadable, stopped, rebuilt)


def _ignore_interrupts() -> None:
    # A terminal's Ctrl-C reaches the whole process group: the workers leave it to the
    # parent, which stops after the batch in hand (as re-signing's, core/engine/re_signing.py)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _cap() -> int:
    kept = store.get_setting(_KEPT)
    default = FetchSettings().max_body_bytes
    value = kept.get("fetch.max_body_bytes", default) if isinstance(kept, dict) else default
    return int(value) if isinstance(value, int) and value > 0 else default


def _missing(project_dir: Path, failed: set[tuple[str, str, str, int]]) -> list[_Job]:
    """The versions the index lacks: each (URL, digest) of a page's HTML or text 2xx
    response in the capture table, at its first capture, in file order (the WARCs are
    read front to back)."""
    have = {
        (url, digest)
        for url, digest in SearchVersion.select(SearchVersion.url, SearchVersion.digest)
        .tuples()
        .iterator()
    }
    query = (
        Capture.select(Capture.url, Capture.digest, Capture.file, Capture.offset)
        .join(Page, on=(Page.url == Capture.url))
        .where(
            (Page.kind == PageKind.PAGE)
            & Capture.mime.in_(INDEXED_TYPES)
            & Capture.status.startswith("2")
        )
        .order_by(Capture.url, Capture.stamp, Capture.offset)
        .tuples()
    )
    chosen: dict[tuple[str, str], tuple[str, int]] = {}
    for url, digest, file, offset in query.iterator():
        if (url, digest) in have or (url, digest) in chosen or not digest:
            continue
        if (url, digest, file, int(offset)) in failed:
            continue
        chosen[(url, digest)] = (file, int(offset))
    paths: dict[str, str] = {}
    jobs = []
    for (url, digest), (file, offset) in chosen.items():
        path = paths.get(file)
        if path is None:
            path = paths[file] = str(resolve(project_dir, file))
        jobs.append(_Job(url, digest, file, path, offset))
    jobs.sort(key=lambda job: (job.path, job.offset))
    return jobs


def _batches(jobs: list[_Job], size: int) -> list[list[_Job]]:
    return [jobs[start : start + size] for start in range(0, len(jobs), size)]


class _Unreadable:
    """A version whose payload could not be read."""


_UNREADABLE = _Unreadable()


@dataclass(frozen=True)
class _Maker:
    """Makes one version's text as the crawl made it on fetching it (picklable)."""

    cap: int

    def __call__(self, job: _Job) -> IndexedText | _Unreadable | None:
        return version_text(job.url, job.digest, Path(job.path), job.offset, self.cap)


def version_text(
    url: str, digest: str, path: Path, offset: int, cap: int
) -> IndexedText | _Unreadable | None:
    """The indexed text of the capture at ``offset`` of ``path``: its rendered DOM for a
    browser capture, else its payload decoded (up to ``cap`` bytes, as the crawl read
    it); None when it has no text search reads."""
    try:
        record, rendered = capture_at(path, offset)
    except (WarcError, MissingFile, OSError):
        return _UNREADABLE
    if record.record_type != "response":
        return _UNREADABLE
    try:
        if rendered.dom is not None:  # a browser capture: what the page showed (§16)
            document = document_of(rendered.dom, DOM_MIME, url)
        else:
            headers = {name.lower(): value for name, value in record.http_headers}
            body, _ = decode_body(record.body, headers.get("content-encoding"), cap)
            document = document_of(body, headers.get("content-type"), url)
    except Exception:  # as in the crawl: a payload that breaks the parse costs that one
        return None
    return indexed_text(url, digest, document) if document is not None else None
