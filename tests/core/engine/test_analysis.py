"""Parsing never blocks fetching (issue 12): a page is parsed and signed off the crawl's
event loop, so the loop goes on while it is; a failure there costs that page only."""

from __future__ import annotations

import hashlib
import threading

from recrawl.core.engine import PageFetched, StatsSnapshot, inject
from recrawl.core.engine.analysis import INLINE_BYTES
from recrawl.core.store.models import PageStatus

from tests.support.crawling import T0, Events, clock_at, crawl, events_of, page, settings

#: How long the blocked analysis waits for the loop before the test calls it stalled.
PATIENCE_S = 60.0


class LoopWatchingSignature:
    """A signature that, for the big page, waits until the crawl's event loop has gone on
    (an observer call, made on the loop) while it works: on the loop, it never would."""

    kind = "md5"
    deferrable = False

    def __init__(self) -> None:
        self.working = threading.Event()
        self.loop_went_on = threading.Event()
        self.thread_name = ""
        self.went_on_meanwhile = False

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        if b"big page" in payload:
            self.thread_name = threading.current_thread().name
            self.working.set()
            self.went_on_meanwhile = self.loop_went_on.wait(PATIENCE_S)
        return hashlib.md5(payload).digest()

    def same(self, old: bytes, new: bytes) -> bool:
        return old == new


def test_the_event_loop_goes_on_while_a_page_is_analysed(project, server):
    server.html("/big", "<p>big page</p>" + "<p>words and more words</p>" * INLINE_BYTES)
    server.html("/small", "<p>small page</p>")
    inject([server.url("/big"), server.url("/small")], T0)
    signature = LoopWatchingSignature()
    events = Events()

    def observer(batch):
        events(batch)
        if signature.working.is_set() and any(isinstance(e, StatsSnapshot) for e in batch):
            signature.loop_went_on.set()

    crawl(project, settings(), clock=clock_at(), observer=observer, signature=signature)

    assert signature.went_on_meanwhile, "the loop stood still while the page was analysed"
    assert signature.thread_name.startswith("recrawl-parse")
    assert threading.current_thread().name != signature.thread_name
    assert page(server.url("/big")).status == PageStatus.FETCHED
    assert [e.status for e in events.of(PageFetched)] == ["fetched", "fetched"]


class FailingSignature(LoopWatchingSignature):
    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        if b"big page" in payload:
            raise RuntimeError("a bug in a plug-in")
        return super().compute(payload, text, links)


def test_an_error_in_the_analysis_costs_that_page_only(project, server):
    server.html("/big", "<p>big page</p>" + "<p>words</p>" * INLINE_BYTES)
    server.html("/small", "<p>small page</p>")
    inject([server.url("/big"), server.url("/small")], T0)
    crawl(project, settings(), clock=clock_at(), signature=FailingSignature())

    assert page(server.url("/small")).status == PageStatus.FETCHED
    big = page(server.url("/big"))
    assert big.status == PageStatus.RETRY and big.payload_file is None
    (event,) = events_of(server.url("/big"))
    assert event.error == (
        "internal error processing the response: RuntimeError: a bug in a plug-in"
    )
