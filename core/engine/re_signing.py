"""Re-signing: a project's signature switched, or a change rule set or unset, each
page's stored signature recomputed (docs/design.md §5, §17).

A fetch compares the new signature with the stored one only when both are of the same
kind; after a switch every page would say "unknown" on its next fetch. So the switch
recomputes each page's signature from its archived payload (the response record its
payload pointer names, :mod:`recrawl.core.archive`), exactly as the crawl computes it
(:class:`~recrawl.core.engine.analysis.PageAnalyser`: the same decoding cap, parse
bounds, text and links; ``outlinks`` from the payload's links too).

It scales: the pages go by in batches by id, each batch written in one transaction, so
a stop (Ctrl-C, the app's Stop) at any point leaves a consistent store: a page has its
old signature and kind or its new ones, and ``compare`` checks the page's own kind.
Running the switch again resumes: it takes only the pages not yet of the new kind.

A page's kind is its URL's: under a change rule, the rule's
(:func:`~recrawl.core.policy.change_rules.kind_for`), so a rule set or unset on a prefix
recomputes the pages it covers the same way, and a page already of its kind is skipped.

A page whose payload cannot be read (its WARC is missing or corrupt, or its latest
capture is no 2xx response, such as a 404 after an earlier 200) gets no signature: its
next fetch says "unknown", as before, and the pages are counted. A page that moves on
meanwhile (a crawl fetched it, a compaction rewrote its segment) keeps what it has.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from multiprocessing import get_context
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.rendering import DOM_MIME, rendering_at
from recrawl.core.archive.segments import read_payload, resolve
from recrawl.core.clock import utcnow
from recrawl.core.config import ParseSettings
from recrawl.core.engine.analysis import analyse_page
from recrawl.core.errors import WarcError
from recrawl.core.net.fetch import FetchResult
from recrawl.core.net.http import HttpResponse, decode_body
from recrawl.core.policy import choices
from recrawl.core.policy.change_rules import ChangeRule, RuledSignatures, kind_for, project_rules
from recrawl.core.policy.crawl_settings import project_crawl_settings
from recrawl.core.policy.signature import Signature, make_signature
from recrawl.core.store.signatures import (
    NewSignature,
    SignedPage,
    count_other_kind,
    other_kind_pages,
    set_signatures,
)

#: Pages read, signed and written per transaction...
BATCH = 200
#: ... or fewer, once their archived payloads hold this many bytes: a batch of big
#: pages must not hold gigabytes at once.
BATCH_BYTES = 32 * 1024 * 1024
#: From this many pages on, signatures are computed by worker processes (one per core):
#: a process pool costs a second or two to start, main-text some 10 ms a page.
POOL_FROM = 2000


@dataclass(frozen=True)
class ReSigningProgress:
    """How far a recompute has come (what the CLI's progress line and the app show)."""

    kind: str
    #: Pages to recompute when it started.
    total: int
    done: int = 0
    recomputed: int = 0
    #: Pages without a readable 2xx payload: their signature was dropped.
    unreadable: int = 0
    #: Pages that moved on meanwhile (fetched, compacted): left as they were.
    skipped: int = 0
    stopped: bool = False
    #: The prefix whose pages it recomputes (a change rule's, §17); None: every page.
    under: str | None = None

    @property
    def finished(self) -> bool:
        return self.done >= self.total and not self.stopped

    def summary(self, resume: str) -> str:
        """What it did, in a sentence without its capital and full stop; ``resume`` says
        how to go on after a stop ("set it again")."""
        if self.total == 0 and self.under is not None:
            return f"every page under {self.under} is already signed as its change rule says"
        if self.total == 0:
            return f"every page's signature is already {self.kind}"
        text = f"recomputed {self.recomputed:,} pages' signatures as {self.kind}"
        if self.unreadable:
            text += (
                f"; {self.unreadable:,} without a readable payload have none now "
                "(their next fetch says unknown)"
            )
        if self.skipped:
            text += f"; {self.skipped:,} fetched or moved meanwhile kept theirs"
        if self.stopped:
            text += f"; stopped with {self.total - self.done:,} left ({resume} to resume)"
        return text


@dataclass(frozen=True)
class _Job:
    """One page's payload and what signing it needs: plain values, for a worker process."""

    page: SignedPage
    status: int | None
    headers: tuple[tuple[str, str], ...]
    body: bytes


def switch_signature(
    project_dir: Path,
    kind: str,
    *,
    progress: Callable[[ReSigningProgress], None] | None = None,
    stop: threading.Event | None = None,
    workers: int | None = None,
    batch: int = BATCH,
) -> ReSigningProgress:
    """Choose ``kind`` for the project and recompute the pages' signatures with it (a
    page under a change rule as its rule says, §17).

    The choice is saved in the transaction of the first batch (alone when no page needs
    a new signature): stopped before it, nothing changed; stopped after it, the project
    signs with the new kind and the pages not yet recomputed say "unknown" once.
    """
    base = make_signature(kind)
    rules = project_rules()
    return recompute_signatures(
        project_dir,
        RuledSignatures(base, rules) if rules.rules else base,
        progress=progress,
        stop=stop,
        workers=workers,
        batch=batch,
        choose=True,
    )


def recompute_signatures(
    project_dir: Path,
    signature: Signature,
    *,
    under: str | None = None,
    progress: Callable[[ReSigningProgress], None] | None = None,
    stop: threading.Event | None = None,
    workers: int | None = None,
    batch: int = BATCH,
    choose: bool = False,
) -> ReSigningProgress:
    """Recompute every page's signature that is not of the kind ``signature`` gives its
    URL (:func:`~recrawl.core.policy.change_rules.kind_for`: its change rule's, if any).

    ``under``: only the pages whose URL this prefix covers (a change rule set or unset
    there). ``progress`` is called before the first batch and after each; ``stop`` ends
    it after the batch in hand. ``workers``: processes that compute signatures (None:
    one per core for a large project, none for a small one). ``choose``: also make the
    kind the project's (with the first batch).
    """
    settings = project_crawl_settings()
    cap, bounds = settings.fetch.max_body_bytes, settings.parse
    wanted = _Wanted(signature, None if under is None else ChangeRule(under))
    label = signature.kind if under is None else kind_for(signature, wanted.starts[0])
    state = ReSigningProgress(label, wanted.count(), under=under)
    if progress is not None:
        progress(state)
    if workers is None:
        workers = (os.cpu_count() or 1) if state.total >= POOL_FROM else 1
    pool: Executor | None = None
    if workers > 1 and state.total > batch:
        # spawn: forking a process with threads (the app's, a crawl's) can deadlock
        pool = ProcessPoolExecutor(
            workers, mp_context=get_context("spawn"), initializer=_ignore_interrupts
        )
    try:
        after = 0
        while True:  # a stop comes into effect after the batch in hand
            candidates = other_kind_pages(wanted.uniform, after, batch, wanted.starts)
            if not candidates:
                break
            kinds = {page.id: kind for page in candidates if (kind := wanted.kind(page))}
            if not kinds:  # all of the right kind already (signed by a crawl meanwhile)
                after = candidates[-1].id
                continue
            jobs = _read_batch(project_dir, [page for page in candidates if page.id in kinds])
            after = jobs[-1].page.id
            sign = _Signer(signature, cap, bounds, utcnow())
            computed = list(
                pool.map(sign, jobs, chunksize=max(1, len(jobs) // (4 * workers)))
                if pool is not None
                else map(sign, jobs)
            )
            news = [
                NewSignature(
                    job.page.id,
                    job.page.payload_file,
                    job.page.payload_offset,
                    value,
                    None if value is None else kinds[job.page.id],
                )
                for job, value in zip(jobs, computed, strict=True)
            ]
            with store.transaction():
                if choose:
                    choices.set_signature(signature.kind)
                    choose = False
                taken = set_signatures(news)
            unreadable = sum(new.signature is None for new in news)
            state = replace(
                state,
                done=state.done + len(news),
                recomputed=state.recomputed + len(news) - unreadable,
                unreadable=state.unreadable + unreadable,
                skipped=state.skipped + len(news) - taken,
            )
            if progress is not None:
                progress(state)
            if stop is not None and stop.is_set():
                break
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    if stop is not None and stop.is_set() and state.done < state.total:
        state = replace(state, stopped=True)
        if progress is not None:
            progress(state)
    elif choose:  # no page needed a new signature
        choices.set_signature(signature.kind)
    return state


@dataclass(frozen=True)
class _Wanted:
    """Which pages a recompute takes, and the kind each is to have."""

    signature: Signature
    #: Only the pages whose URL this rule's prefix covers (None: every page).
    covering: ChangeRule | None

    @property
    def uniform(self) -> str | None:
        """The one kind every page is to have (None: a page's rule decides its kind)."""
        ruled = isinstance(self.signature, RuledSignatures) and any(
            rule.changes_text for rule in self.signature.rules.rules
        )
        return None if ruled else self.signature.kind

    @property
    def starts(self) -> tuple[str, ...]:
        return () if self.covering is None else self.covering.starts

    def kind(self, page: SignedPage) -> str | None:
        """The kind ``page`` is to have; None: it is not to be recomputed (it has it)."""
        if self.covering is not None and not self.covering.matches(page.url):
            return None
        kind = kind_for(self.signature, page.url)
        return None if page.signature_kind == kind else kind

    def count(self) -> int:
        if self.uniform is not None and self.covering is None:
            return count_other_kind(self.uniform)
        # a page's kind is its URL's: they are looked at (ids and URLs, no payload read)
        count = after = 0
        while pages := other_kind_pages(self.uniform, after, 10 * BATCH, self.starts):
            count += sum(self.kind(page) is not None for page in pages)
            after = pages[-1].id
        return count


def _ignore_interrupts() -> None:
    # A terminal's Ctrl-C reaches the whole process group: the workers leave it to the
    # parent, which stops after the batch in hand (a worker killed by it would break
    # the pool instead).
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _read_batch(project_dir: Path, pages: list[SignedPage]) -> list[_Job]:
    """The pages' payloads, as many as fit in :data:`BATCH_BYTES` (at least one)."""
    jobs: list[_Job] = []
    held = 0
    for page in pages:
        if jobs and held >= BATCH_BYTES:
            break  # the rest come with the next batch
        job = _read(project_dir, page)
        held += len(job.body)
        jobs.append(job)
    return jobs


def _read(project_dir: Path, page: SignedPage) -> _Job:
    if page.payload_file is None or page.payload_offset is None:
        return _Job(page, None, (), b"")
    if page.capture_file is not None and page.capture_offset is not None:
        try:
            dom = rendering_at(resolve(project_dir, page.capture_file), page.capture_offset).dom
        except (WarcError, OSError):
            dom = None
        if dom is not None:  # a browser capture is signed by what it rendered (§16)
            return _Job(page, 200, (("Content-Type", DOM_MIME),), dom)
    try:
        record = read_payload(project_dir, page.payload_file, page.payload_offset)
    except (WarcError, OSError):  # a missing or corrupt WARC: counted, never fatal
        return _Job(page, None, (), b"")
    if record.record_type != "response":
        return _Job(page, None, (), b"")
    return _Job(page, record.http_status, tuple(record.http_headers), record.body)


@dataclass(frozen=True)
class _Signer:
    """Signs one payload as the crawl would have on fetching it (picklable)."""

    signature: Signature
    cap: int
    bounds: ParseSettings
    now: datetime

    def __call__(self, job: _Job) -> bytes | None:
        return sign_payload(
            job.page.url, job.status, job.headers, job.body, self.signature, self.cap, self.bounds
        )


def sign_payload(
    url: str,
    status: int | None,
    headers: Sequence[tuple[str, str]],
    body: bytes,
    signature: Signature,
    cap: int,
    bounds: ParseSettings,
) -> bytes | None:
    """An archived payload's signature as the crawl computes it on fetching ``url`` (its
    change rule's when ``signature`` carries rules); None: no 2xx, or it breaks the parse."""
    if status is None or not 200 <= status < 300:
        return None
    response = HttpResponse("HTTP/1.1", status, "", list(headers), body)
    result = FetchResult(url, utcnow(), response=response)
    result.decoded, result.decode_error = decode_body(body, result.header("content-encoding"), cap)
    try:
        analysis = analyse_page(
            url, result.header("content-type"), result.decoded or b"", signature, bounds
        )
    except Exception:  # as in the crawl: a page that breaks the parse costs that page only
        return None
    return analysis.signature
