"""A change rule tried on the pages' own history before it is saved (docs/design.md §17).

No other tool can say what a rule would have done: Recrawl has each page's past
captures. The preview walks them, as a crawl would have judged each fetch, under the
project's rules and under the new one, and counts the fetches judged otherwise. It
scales as re-signing does: worker processes (one per core) judge pages in chunks, and a
signature is computed once per payload digest (a page's history repeats payloads).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import datetime
from multiprocessing import get_context
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.captures import CaptureRef, captures_of
from recrawl.core.archive.rendering import DOM_MIME, capture_at
from recrawl.core.archive.warc import StoredRecord, payload_digest, read_record
from recrawl.core.config import ParseSettings
from recrawl.core.engine.re_signing import sign_payload
from recrawl.core.errors import WarcError
from recrawl.core.policy import choices
from recrawl.core.policy.change_rules import (
    ChangeRule,
    ChangeRules,
    RuledSignatures,
    project_rules,
    signature_for,
)
from recrawl.core.policy.crawl_settings import project_crawl_settings
from recrawl.core.policy.signature import Signature


@dataclass(frozen=True)
class PreviewExample:
    """One past fetch the rule would have judged otherwise: open its two captures."""

    url: str
    #: The fetch's capture, and the one before it it was compared with (UTC).
    at: datetime
    before: datetime
    #: What the project's current rules said, and what the new rule says: "changed",
    #: "unchanged".
    was: str
    would_be: str


@dataclass(frozen=True)
class PreviewProgress:
    """How far a preview has come (the CLI's progress line, the editor's bar)."""

    pages: int
    captures: int
    done: int = 0


@dataclass(frozen=True)
class Preview:
    """What a rule would have done to the matching pages' past fetches."""

    prefix: str
    #: Pages under the prefix, and the pairs of consecutive captures judged.
    pages: int
    judged: int
    #: Past fetches that were changed and would have been unchanged, and the reverse.
    to_unchanged: int
    to_changed: int
    #: Some of each, newest first (a few per page at most).
    examples: tuple[PreviewExample, ...]
    #: Pairs that could not be judged (a capture unreadable, not text).
    unreadable: int = 0
    stopped: bool = False


# -- the preview ------------------------------------------------------------------------------

#: From this many captures on, they are judged by worker processes (one per core): a
#: pool costs a second or two to start, a main-text signature some 3 to 10 ms a payload.
POOL_FROM = 1000
#: Examples kept of each direction, and of one page.
EXAMPLES = 10
EXAMPLES_PER_PAGE = 3
#: Signatures a process keeps by payload digest (a page's history repeats its payloads:
#: a ticker rotating through a few, a revisit of an old one); past this it starts again.
CACHED = 200_000


def preview_rule(
    project_dir: Path,
    rule: ChangeRule,
    *,
    progress: Callable[[PreviewProgress], None] | None = None,
    stop: threading.Event | None = None,
    workers: int | None = None,
) -> Preview:
    """What ``rule`` would have judged otherwise in the history of the pages it would
    apply to (the longest prefix, with it among the project's rules); nothing saved.

    Each page's 2xx captures are taken oldest first, and each with the one before it is
    judged changed or unchanged under the project's rules and under the new one, with
    the signatures a crawl computes (:func:`~.re_signing.sign_payload`); two captures of
    one payload digest are unchanged under both, unsigned. A browser capture is judged
    by its DOM (§16). ``progress`` follows the captures walked; ``stop`` ends it after the
    pages in hand, with what was counted.
    """
    rule.check()
    current = choices.project_signature()
    base = current.base if isinstance(current, RuledSignatures) else current
    rules = project_rules().with_rule(rule)
    new = RuledSignatures(base, rules)
    urls = [url for url in store.page_urls_under(rule.starts) if _ruled_by(rules, url, rule)]
    found = captures_of(project_dir, urls)
    pages = [_Page(url, tuple(found[url])) for url in urls if len(found[url]) > 1]
    state = PreviewProgress(len(urls), sum(len(found[url]) for url in urls))
    if progress is not None:
        progress(state)
    settings = project_crawl_settings()
    judge = _Judge(current, new, settings.fetch.max_body_bytes, settings.parse)
    if workers is None:
        workers = (os.cpu_count() or 1) if state.captures >= POOL_FROM else 1
    tally = _Verdicts()
    done = state.captures - sum(len(page.captures) for page in pages)  # nothing to pair
    chunks = _chunks(pages, max(20, state.captures // (16 * workers)))
    stopped = False
    if workers > 1 and len(chunks) > 1:
        pool = ProcessPoolExecutor(
            workers,
            mp_context=get_context("spawn"),  # as re-signing: no fork of a threaded process
            initializer=_start_worker,
            initargs=(judge,),
        )
        try:
            pending = {pool.submit(_judge_in_worker, chunk) for chunk in chunks}
            while pending and not stopped:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    done += tally.add(future.result())
                if progress is not None:
                    progress(replace(state, done=done))
                stopped = bool(stop is not None and stop.is_set() and pending)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        for index, chunk in enumerate(chunks):
            done += tally.add(judge.pages(chunk))
            if progress is not None:
                progress(replace(state, done=done))
            if stop is not None and stop.is_set() and index < len(chunks) - 1:
                stopped = True
                break
    return Preview(
        prefix=rule.prefix,
        pages=len(urls),
        judged=tally.judged,
        to_unchanged=tally.to_unchanged,
        to_changed=tally.to_changed,
        examples=tally.kept_examples(),
        unreadable=tally.unreadable,
        stopped=stopped,
    )


def _ruled_by(rules: ChangeRules, url: str, rule: ChangeRule) -> bool:
    applies = rules.rule_for(url)
    return applies is not None and applies.prefix == rule.prefix


def _chunks(pages: list[_Page], captures: int) -> list[list[_Page]]:
    """The pages in chunks of about ``captures`` captures (a page is never split)."""
    chunks: list[list[_Page]] = []
    held = captures
    for page in pages:
        if held >= captures:
            chunks.append([])
            held = 0
        chunks[-1].append(page)
        held += len(page.captures)
    return chunks


@dataclass(frozen=True)
class _Page:
    url: str
    captures: tuple[CaptureRef, ...]


@dataclass
class _Verdicts:
    """What judging some pages found (sent back from a worker process)."""

    captures: int = 0
    judged: int = 0
    to_unchanged: int = 0
    to_changed: int = 0
    unreadable: int = 0
    examples: list[PreviewExample] = field(default_factory=list)

    def add(self, more: _Verdicts) -> int:
        """Counts ``more`` (another worker's) in; the captures it walked."""
        self.judged += more.judged
        self.to_unchanged += more.to_unchanged
        self.to_changed += more.to_changed
        self.unreadable += more.unreadable
        self.examples.extend(more.examples)
        return more.captures

    def kept_examples(self) -> tuple[PreviewExample, ...]:
        """The newest :data:`EXAMPLES` of each way, newest first."""
        newest = sorted(self.examples, key=lambda e: (e.at, e.url), reverse=True)
        kept = [e for e in newest if e.would_be == "unchanged"][:EXAMPLES]
        kept += [e for e in newest if e.would_be == "changed"][:EXAMPLES]
        return tuple(sorted(kept, key=lambda e: (e.at, e.url), reverse=True))


@dataclass
class _Signed:
    """One capture as signed: the key of what was signed, and its two signatures."""

    key: str
    capture: CaptureRef
    #: What is signed when it is not read from the capture's own record: its DOM.
    dom: bytes | None = None
    #: The capture's response record, read already (None: a revisit, or unreadable).
    record: StoredRecord | None = None
    signatures: tuple[bytes | None, bytes | None] | None = None


@dataclass
class _Judge:
    """Judges pages' histories under the current rules and the new one (picklable: each
    worker process gets one, and keeps its signatures by payload digest)."""

    current: Signature
    new: Signature
    cap: int
    bounds: ParseSettings
    cache: dict[tuple[str, str, str], bytes | None] = field(default_factory=dict)

    def pages(self, pages: list[_Page]) -> _Verdicts:
        verdicts = _Verdicts()
        for page in pages:
            self._page(page, verdicts)
        return verdicts

    def _page(self, page: _Page, verdicts: _Verdicts) -> None:
        verdicts.captures += len(page.captures)
        examples: list[PreviewExample] = []
        before: _Signed | None = None
        for capture in page.captures:
            signed = self._source(capture)
            if signed is None:
                continue  # not a 2xx: no fetch compared with it
            if before is not None:
                verdict = self._pair(page, before, signed)
                if verdict is None:
                    verdicts.unreadable += 1
                else:
                    verdicts.judged += 1
                    was, would_be = verdict
                    if was != would_be:
                        if would_be == "unchanged":
                            verdicts.to_unchanged += 1
                        else:
                            verdicts.to_changed += 1
                        examples.append(
                            PreviewExample(
                                page.url, capture.date, before.capture.date, was, would_be
                            )
                        )
            before = signed
        verdicts.examples.extend(examples[-EXAMPLES_PER_PAGE:])

    def _source(self, capture: CaptureRef) -> _Signed | None:
        """What a capture is judged by; None when it is no 2xx (nor a 304's revisit)."""
        if capture.status != "-" and not capture.status.startswith("2"):
            return None
        try:  # its record and what lies beside it, read once
            record, rendered = capture_at(capture.path, capture.offset)
        except (WarcError, OSError):
            return _Signed(f"unreadable:{capture.path}:{capture.offset}", capture)
        if rendered.dom is not None:  # a browser capture is judged by what it rendered (§16)
            return _Signed("dom:" + payload_digest(rendered.dom), capture, rendered.dom)
        key = capture.digest or f"at:{capture.path}:{capture.offset}"
        if record.record_type == "response":
            return _Signed(key, capture, record=record)
        return _Signed(key, capture)

    def _pair(self, page: _Page, old: _Signed, new: _Signed) -> tuple[str, str] | None:
        """(was, would be) for ``new`` compared with ``old``; None: one is unreadable."""
        if old.key == new.key:
            return "unchanged", "unchanged"  # the same payload: unchanged whatever signs it
        before, after = self._signatures(page, old), self._signatures(page, new)
        if None in before or None in after:
            return None
        judged = []
        for index, signature in enumerate((self.current, self.new)):
            own = signature_for(signature, page.url)
            old_value, new_value = before[index], after[index]
            assert old_value is not None and new_value is not None
            judged.append("unchanged" if own.same(old_value, new_value) else "changed")
        return judged[0], judged[1]

    def _signatures(self, page: _Page, signed: _Signed) -> tuple[bytes | None, bytes | None]:
        if signed.signatures is None:
            own = (signature_for(self.current, page.url), signature_for(self.new, page.url))
            keys = (
                self._key(page.url, signed.key, own[0]),
                self._key(page.url, signed.key, own[1]),
            )
            if not all(key in self.cache for key in keys):
                status, headers, body = self._payload(page, signed)
                if len(self.cache) >= CACHED:
                    self.cache.clear()
                both = sign_payload(
                    page.url, status, headers, body, _Both(*own), self.cap, self.bounds
                )
                values = (None, None) if both is None else _Both.split(both)
                self.cache.update(zip(keys, values, strict=True))
            signed.signatures = (self.cache[keys[0]], self.cache[keys[1]])
        return signed.signatures

    @staticmethod
    def _key(url: str, digest: str, signature: Signature) -> tuple[str, str, str]:
        # the links an outlinks signature hashes are resolved against the page's URL
        return (digest, signature.kind, url if "outlinks" in signature.kind else "")

    def _payload(
        self, page: _Page, signed: _Signed
    ) -> tuple[int | None, tuple[tuple[str, str], ...], bytes]:
        if signed.dom is not None:
            return 200, (("Content-Type", DOM_MIME),), signed.dom
        if signed.record is not None:
            record = signed.record
            signed.record = None  # signed once: its body is not kept
        elif signed.key.startswith("unreadable:"):
            return None, (), b""
        else:  # a revisit: the page's own response of that payload, before it
            capture = signed.capture
            earlier = [
                c
                for c in page.captures
                if c.record_type == "response"
                and c.digest == capture.digest
                and c.date <= capture.date
            ]
            if not earlier:
                return None, (), b""
            try:
                record = read_record(earlier[-1].path, earlier[-1].offset)
            except (WarcError, OSError):
                return None, (), b""
        return record.http_status, tuple(record.http_headers), record.body


@dataclass(frozen=True)
class _Both:
    """Two signatures of a page from one analysis of it (one parse, one decoding): each
    is what :func:`~.analysis.analyse_page` computes with it alone."""

    first: Signature
    second: Signature

    @property
    def kind(self) -> str:
        return f"{self.first.kind}|{self.second.kind}"  # never stored

    @property
    def deferrable(self) -> bool:
        return False

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        first = self.first.compute(payload, text, links)
        second = self.second.compute(payload, text, links)
        return len(first).to_bytes(4, "big") + first + second

    def same(self, old: bytes, new: bytes) -> bool:
        return old == new

    @staticmethod
    def split(both: bytes) -> tuple[bytes, bytes]:
        size = int.from_bytes(both[:4], "big")
        return both[4 : 4 + size], both[4 + size :]


_WORKER: list[_Judge] = []


def _start_worker(judge: _Judge) -> None:
    # as re-signing's workers: a terminal's Ctrl-C is the parent's to act on
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER.append(judge)


def _judge_in_worker(pages: list[_Page]) -> _Verdicts:
    return _WORKER[0].pages(pages)
