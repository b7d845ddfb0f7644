"""What one fetch does to its page: change detection, the capture, links, the new record.

The update itself is :func:`~recrawl.core.engine.update.update_page` (pure); here its
inputs are gathered (the signature compared, the capture written, the links discovered)
and its result goes into the round's commit batch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from recrawl.core import store
from recrawl.core.browser.load import Rendering
from recrawl.core.clock import Clock
from recrawl.core.config import CrawlSettings
from recrawl.core.disk import is_full
from recrawl.core.engine.analysis import Analysis
from recrawl.core.engine.capture_writer import CaptureWriter
from recrawl.core.engine.embeds import Embedded, Found, failure_reason, refs_of
from recrawl.core.engine.events import EventQueue, LogMessage, PageFetched
from recrawl.core.engine.links import LinkDiscoverer
from recrawl.core.engine.news import news_kind
from recrawl.core.engine.sources import SourceFinder
from recrawl.core.engine.update import Capture, Outcome, PageUpdate, update_page
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.fetch import FetchResult
from recrawl.core.net.robots import RobotsPolicy
from recrawl.core.net.urls import embed_url
from recrawl.core.policy.change_rules import kind_for, signature_for
from recrawl.core.policy.schedule import Change, FetchSchedule
from recrawl.core.policy.scoring import Scoring
from recrawl.core.policy.signature import OutlinksSignature, Signature, compare
from recrawl.core.store.models import NewsKind, Page, PageKind, PageStatus


class FetchRecorder:
    """Records fetches into a round's batch and segment; one per crawl."""

    def __init__(
        self,
        settings: CrawlSettings,
        clock: Clock,
        schedule: FetchSchedule,
        signature: Signature,
        scoring: Scoring,
        links: LinkDiscoverer,
        events: EventQueue,
        sources: SourceFinder | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.schedule = schedule
        self.signature = signature
        self.scoring = scoring
        self.links = links
        self.events = events
        #: Notes the feeds pages advertise (None: the crawl reads no sources).
        self.sources = sources
        #: The baselines of the round's hosts (docs/design.md §15), read as the round starts
        #: (:meth:`start_round`); a host without one has had no page archived yet.
        self.baselines: dict[str, store.BaselineState] = {}

    def start_round(self, hosts: Iterable[str]) -> None:
        """Read the baselines of a round's hosts: they tell a first fetch's news."""
        self.baselines = store.baseline_states(hosts)

    def robots_denied(self, page: Page, policy: RobotsPolicy, batch: store.CommitBatch) -> Outcome:
        """Record a page robots.txt kept from being requested; returns the outcome counted.

        Rules that deny it make it ``robots_denied``. An unavailable robots.txt (5xx,
        unreachable) says nothing of the page's own will: it is a failed attempt, counted
        as an error with the reason named, and the page stays ``retry`` (then ``gone``
        after ``max_retries``, as for any failed fetch) on the schedule's retry interval.
        """
        now = self.clock.now()
        if policy.unavailable:
            outcome, note = Outcome.FAILED, policy.failure
        else:
            outcome, note = Outcome.ROBOTS_DENIED, "denied by robots.txt"
        update = update_page(
            page,
            outcome,
            None,
            now,
            self.schedule,
            max_retries=self.settings.max_retries,
            note=note,
        )
        for name in ("last_fetched", "first_fetched"):
            update.fields.pop(name, None)  # nothing of the page itself was requested
        self._add(page, update, Change.UNKNOWN, now, batch)
        self.events.emit(
            PageFetched(page.url, update.status, None, "unknown", 0, 0.0, note, page.kind)
        )
        return outcome

    def record_safely(
        self,
        page: Page,
        result: FetchResult,
        outcome: Outcome,
        batch: store.CommitBatch,
        captures: CaptureWriter,
        asked_wait: float | None = None,
        analysis: Analysis | Exception | None = None,
        embedded: Embedded | None = None,
        rendering: Rendering | None = None,
    ) -> Outcome:
        """Record one fetch; a bug or absurd input costs that page, not the crawl.

        On an error, the page's WARC records and batch entries are taken back, so the
        segment holds no capture that no page points at, and the page is recorded as
        failed with the reason. Returns the outcome recorded. ``asked_wait``: the
        seconds the server asked to wait (a long Retry-After). ``analysis``: a 2xx
        page's (:class:`~.analysis.PageAnalyser`), or the error that made; for a redirect
        or an error, the signature of the 2xx payload it replaces (or None).
        """
        mark = captures.tell()
        saved = batch.snapshot()
        try:
            if isinstance(analysis, Exception):
                raise analysis
            self._record(
                page, result, outcome, batch, captures, asked_wait, analysis, embedded, rendering
            )
        except Exception as exc:
            if is_full(exc):  # no page's failure: the crawl stops (crawl.py)
                raise
            captures.rollback(mark)
            batch.restore(saved)
            reason = f"internal error processing the response: {type(exc).__name__}: {exc}"
            self.events.emit(LogMessage("error", f"{page.url}: {reason}"))
            failed = replace(result, response=None, error=reason)
            self._record(page, failed, Outcome.FAILED, batch, captures, asked_wait, None)
            return Outcome.FAILED
        return outcome

    def record_embed_safely(
        self,
        page: Page,
        result: FetchResult,
        outcome: Outcome,
        batch: store.CommitBatch,
        captures: CaptureWriter,
        analysis: Analysis | Exception | None = None,
    ) -> tuple[Outcome, Found]:
        """Record one fetch of an embed (docs/design.md §14), and what its page gets of it; as
        :meth:`record_safely`, a bug or absurd input costs that embed alone."""
        mark = captures.tell()
        saved = batch.snapshot()
        try:
            if isinstance(analysis, Exception):
                raise analysis
            return outcome, self._record_embed(page, result, outcome, batch, captures, analysis)
        except Exception as exc:
            if is_full(exc):  # no page's failure: the crawl stops (crawl.py)
                raise
            captures.rollback(mark)
            batch.restore(saved)
            reason = f"internal error processing the response: {type(exc).__name__}: {exc}"
            self.events.emit(LogMessage("error", f"{page.url}: {reason}"))
            failed = replace(result, response=None, error=reason)
            found = self._record_embed(page, failed, Outcome.FAILED, batch, captures, None)
            return Outcome.FAILED, found

    def _record_embed(
        self,
        page: Page,
        result: FetchResult,
        outcome: Outcome,
        batch: store.CommitBatch,
        captures: CaptureWriter,
        analysis: Analysis | None,
    ) -> Found:
        """An embed's fetch: its capture (a revisit when the bytes are the ones archived),
        its schedule (changed when the bytes are not), no news, no links followed."""
        now = result.started_at
        change = Change.UNKNOWN
        capture: Capture | None = None
        note = _fetch_note(result)
        refs: store.Refs | None = None  # None: keep what the row holds
        if outcome is Outcome.OK:
            if analysis is None:
                raise ValueError("a 2xx embed recorded without its analysis")
            capture = captures.page(page, result, now, analysis.members)
            if page.payload_digest is not None:
                same = capture.payload_digest == page.payload_digest
                change = Change.UNCHANGED if same else Change.CHANGED
            embeds = analysis.embeds
            refs = refs_of(embeds)
            if embeds is not None and embeds.notes:
                note = "; ".join(filter(None, [note, *embeds.notes]))
            dropped = embeds.dropped if embeds is not None else 0
            found = Found(True, refs=refs, dropped=dropped)
        elif outcome is Outcome.NOT_MODIFIED:
            change = Change.UNCHANGED
            capture = captures.not_modified(page, result, now)
            found = Found(True, refs=store.read_refs(page.embed_refs))  # kept as they are
        elif outcome in (Outcome.REDIRECT_PERM, Outcome.REDIRECT_TEMP):
            capture = captures.response(page, result, now)
            location = result.header("location") or ""
            try:
                refs = store.Refs((embed_url(location, page.url),))
                found = Found(False, refs=refs, redirect=True)
            except InvalidUrl as exc:
                refs = store.Refs()
                found = Found(False, f"a redirect to no URL: {exc.reason}")
        elif outcome is Outcome.GONE:
            capture = captures.response(page, result, now)
            refs = store.Refs()
            found = Found(False, f"HTTP {result.status}")
        else:
            found = Found(False, failure_reason(result.status, result.error))
        update = self._update(page, result, outcome, now, batch, captures, change, capture, note)
        if refs is not None:
            _keep_refs(page, update, store.pack_refs(refs) or b"")
        batch.page_updates.append((page.id, update.fields))
        batch.embed_fetches.add(page.id)
        batch.events.append(update.event)
        self._fetched(page, result, update, change, PageKind.EMBED)
        return found

    def _update(
        self,
        page: Page,
        result: FetchResult,
        outcome: Outcome,
        now: datetime,
        batch: store.CommitBatch,
        captures: CaptureWriter,
        change: Change,
        capture: Capture | None,
        note: str | None,
        **more: Any,
    ) -> PageUpdate:
        """The fetch's update of its row (and the capture counted in the batch)."""
        if capture is not None:
            batch.records += 1
        return update_page(
            page,
            outcome,
            result,
            now,
            self.schedule,
            change=change,
            capture=capture,
            segment=captures.segment,
            max_retries=self.settings.max_retries,
            note=note,
            **more,
        )

    def _fetched(
        self,
        page: Page,
        result: FetchResult,
        update: PageUpdate,
        change: Change,
        kind: str,
        news: str | None = None,
    ) -> None:
        size = len(result.response.body) if result.response is not None else 0
        status, error = update.status, update.event["error"]
        self.events.emit(
            PageFetched(
                page.url,
                status,
                result.status,
                change.value,
                size,
                result.elapsed_ms,
                error,
                kind,
                news,
            )
        )

    def _record(
        self,
        page: Page,
        result: FetchResult,
        outcome: Outcome,
        batch: store.CommitBatch,
        captures: CaptureWriter,
        asked_wait: float | None,
        analysis: Analysis | None,
        embedded: Embedded | None = None,
        rendering: Rendering | None = None,
    ) -> None:
        """``rendering``: a browser capture's (docs/design.md §16): the analysis is of its
        DOM, kept beside the capture with its screenshot."""
        now = result.started_at
        change = Change.UNKNOWN
        capture: Capture | None = None
        signature = None
        note = _fetch_note(result)
        targets: list[str] = []
        title = None
        #: The outlinks to keep for the next fetch's count (``discovery``), and the count.
        outlinks: bytes | None = None
        new_links: int | None = None
        if outcome is Outcome.OK:
            if analysis is None:
                raise ValueError("a 2xx page recorded without its analysis")
            parsed = analysis.parsed
            if parsed is not None:
                targets = self.links.from_html(page, parsed, batch)
                if parsed.feeds and self.sources is not None:
                    feeds = [url for url in parsed.feeds if self.links.in_scope(url)]
                    batch.sources += self.sources.feeds(page.url, feeds)
                if parsed.cut is not None:
                    note = f"{note}; {parsed.cut}" if note else parsed.cut
                title = parsed.title
            if self.schedule.counts_new_links and analysis.link_hashes is not None:
                outlinks = analysis.link_hashes
                if page.outlinks is not None:
                    new_links = OutlinksSignature.new_links(page.outlinks, outlinks)
            capture = captures.page(page, result, now, analysis.members)
            if not capture.refers_back and page.kind == PageKind.PAGE:
                self._index(page, analysis, capture, batch)
            if rendering is not None:
                captures.rendering(page.url, now, rendering.dom or None, rendering.screenshot)
                if rendering.notes:
                    note = "; ".join(filter(None, [note, *rendering.notes]))
            change, signature = self._change(page, analysis, capture)
        elif outcome is Outcome.NOT_MODIFIED:
            change = Change.UNCHANGED
            if self.schedule.counts_new_links and page.outlinks is not None:
                new_links = 0  # the same page: the same links
            capture = captures.not_modified(page, result, now)
        elif outcome in (Outcome.REDIRECT_PERM, Outcome.REDIRECT_TEMP):
            capture = captures.response(page, result, now)
            targets = self.links.from_redirect(page, result.header("location") or "", batch)
        elif outcome is Outcome.GONE:
            capture = captures.response(page, result, now)
        if outcome is not Outcome.OK and analysis is not None and analysis.earlier_signature:
            # the 2xx payload this capture replaces, signed now (round._sign_replaced):
            # the page's next 2xx is compared with it
            signature = (analysis.earlier_signature, kind_for(self.signature, page.url))
        update = self._update(
            page, result, outcome, now, batch, captures, change, capture, note,
            signature=signature, new_links=new_links,
        )  # fmt: skip
        if outlinks is not None:
            update.fields["outlinks"] = outlinks
        if asked_wait is not None and update.status == PageStatus.RETRY:
            # the server named its break (Retry-After): come back then, not after the
            # schedule's retry day, which may be sooner than it asked
            update.fields["next_fetch"] = now + timedelta(seconds=asked_wait)
        if outcome is Outcome.OK and embedded is not None:
            # none is an empty list: NULL says "not known" (a capture from before embeds)
            _keep_refs(page, update, store.pack_refs(embedded.refs) or b"")
            if embedded.dropped:
                cut = f"{embedded.dropped:,} embeds past the per-page limit (parse.max_embeds)"
                update.event["error"] = "; ".join(filter(None, [update.event["error"], cut]))
        elif capture is not None and outcome is not Outcome.NOT_MODIFIED:
            _keep_refs(page, update, b"")  # a redirect or an error embeds nothing
        if outcome is Outcome.OK:
            update.fields["title"] = title  # each successful fetch's own (None: none)
            if analysis is not None and analysis.published is not None:
                # the page's own date, over its sitemap's or feed's (docs/design.md §11)
                update.fields["published_at"] = analysis.published
        if outcome is not Outcome.FAILED and outcome is not Outcome.THROTTLED:
            update.fields.update(self.scoring.on_fetched(page, targets, batch))
        news = self._add(page, update, change, now, batch)
        self._fetched(page, result, update, change, PageKind.PAGE, news)

    def _index(
        self, page: Page, analysis: Analysis, capture: Capture, batch: store.CommitBatch
    ) -> None:
        """A page's new version: its text for search, committed with its capture, under the
        URL and payload digest the capture table gives it (docs/design.md §19)."""
        if not self.settings.search.index:
            batch.unindexed = True  # the index no longer has every version's text
        elif analysis.text is not None:
            batch.texts.append(replace(analysis.text, url=page.url, digest=capture.payload_digest))

    def _change(
        self, page: Page, analysis: Analysis, capture: Capture
    ) -> tuple[Change, tuple[bytes, str] | None]:
        """The fetch's change and the signature to store (None: keep the page's)."""
        new = analysis.signature
        if new is None:  # deferred (analysis.signing): the bytes decide, or nothing does
            same_bytes = page.payload_record_id is not None and (
                capture.payload_record_id == page.payload_record_id
            )
            return (Change.UNCHANGED if same_bytes else Change.UNKNOWN), None
        own = signature_for(self.signature, page.url)  # under its change rule, if any
        kind = own.kind
        if analysis.earlier_signature is not None:  # the archived payload, signed just now
            change = compare(own, analysis.earlier_signature, kind, new)
        else:
            change = compare(own, page.signature, page.signature_kind, new)
        return change, (new, kind)

    def _add(
        self, page: Page, update: PageUpdate, change: Change, at: datetime, batch: store.CommitBatch
    ) -> str | None:
        """Put a fetch's page update, its event and its news (if any) into the batch; the
        news kind (``baseline``: a page archived by its host's first crawl), if any."""
        batch.page_updates.append((page.id, update.fields))
        batch.events.append(update.event)
        if page.kind == PageKind.EMBED:
            return None  # what a page needs to be seen is never news (docs/design.md §14)
        kind = news_kind(page, update.status, change)
        if kind == NewsKind.NEW:
            baseline = self.baselines.get(page.host)
            if baseline is None or not baseline.complete:
                # the host's first crawl: one baseline item says it all (docs/design.md §15)
                batch.baseline.append((page.id, page.host, at))
                return NewsKind.BASELINE
            if not baseline.is_new(page.id):
                return None  # found by the first crawl, archived only now: nothing new
        if kind is not None:
            batch.news.append((page.id, page.host, at, kind))
        return kind


def _keep_refs(page: Page, update: PageUpdate, packed: bytes) -> None:
    """The capture's embeds on the row, and on its fetch event when they changed (b"":
    none), so an older capture's embeds are known later (an export's)."""
    update.fields["embed_refs"] = packed
    before = bytes(page.embed_refs) if page.embed_refs is not None else None
    if packed != before:
        update.event["embed_refs"] = packed


def _fetch_note(result: FetchResult) -> str | None:
    """What the fetch record says of the body: cut at the cap, or not decoded."""
    if result.truncated:
        size = len(result.response.body) if result.response is not None else 0
        return f"body cut ({result.truncated}) at {size} bytes"
    return result.decode_error
