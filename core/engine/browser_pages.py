"""Pages of hosts in ``browser`` capture mode, loaded in Chromium (docs/design.md §16).

The browser renders; the crawl does the network. Every request a page makes comes to
:class:`PageLoad`, which fetches it with the crawl's own client (robots.txt and the
embed rules first: what they refuse, the browser is told failed), keeps the response to
archive, and answers the browser with its body. A page load counts as one fetch of its
host for the politeness delay (the round reserves its host's slot around it); what the
page loads comes at the page's pace, as a browser asks for it, each response fetched
once a round however many pages load it (:class:`RoundLoads`).

Once the page has settled, its document is recorded as any page's fetch (a revisit when
its bytes are the ones archived), but its analysis — signature, main text, title,
publication date, links — reads the rendered DOM, kept beside the capture with a
screenshot (:mod:`recrawl.core.archive.rendering`): an edit that only the page's JSON
carries changes the page. What it loaded is recorded as its embeds (a revisit when
unchanged), and its capture's embed list is what the browser loaded.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from recrawl.core import store
from recrawl.core.browser.load import Answer, Intercepted, Refusal, Rendering
from recrawl.core.clock import human_duration
from recrawl.core.engine.embeds import Embedded, failure_reason
from recrawl.core.engine.events import LogMessage
from recrawl.core.engine.offline import Unreached
from recrawl.core.engine.parse import HTML_TYPES, media_type
from recrawl.core.engine.update import Outcome, classify
from recrawl.core.errors import BrowserError, InvalidUrl
from recrawl.core.net.fetch import FetchResult
from recrawl.core.net.http import HttpResponse
from recrawl.core.net.urls import embed_url, host_of

if TYPE_CHECKING:
    from recrawl.core.browser.browser import Browser
    from recrawl.core.config import CrawlSettings
    from recrawl.core.engine.events import EventQueue
    from recrawl.core.engine.round import Round
    from recrawl.core.net.politeness import HostSlot
    from recrawl.core.store.models import Page

#: Headers of a response the browser is not given: its body comes decoded, whole.
_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
#: Responses kept in memory for the round's other page loads, each at most / in all.
KEEP_BODY_BYTES = 4 << 20
KEEP_ALL_BYTES = 256 << 20


class BrowserSession:
    """The crawl's browser: started at its first page, restarted by itself when it
    crashes, closed with the crawl; a page takes one of its tabs while it loads."""

    def __init__(self, settings: CrawlSettings, events: EventQueue) -> None:
        self.settings = settings
        self.events = events
        self._browser: Browser | None = None
        self._starting: asyncio.Task[Browser] | None = None
        #: Why there is no browser (Chromium missing, it would not start), once known.
        self.missing: str | None = None
        self._said: set[str] = set()
        tabs = max(1, min(settings.capture.tabs, settings.politeness.concurrency))
        self._tabs: asyncio.Queue[int] = asyncio.Queue()
        for lane in range(tabs):
            self._tabs.put_nowait(lane)

    async def browser(self) -> Browser | None:
        """The running browser, started now if need be; None (said once a host) if none."""
        if self._browser is not None:
            return self._browser
        if self.missing is not None:
            return None
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        try:
            self._browser = await asyncio.shield(self._starting)
        except BrowserError as exc:
            self.missing = str(exc)
            return None
        return self._browser

    async def _start(self) -> Browser:
        from recrawl.core.browser.browser import Browser  # not for crawls over HTTP alone

        capture = self.settings.capture
        browser = Browser(
            capture, self.settings.fetch.user_agent, self.settings.fetch.max_body_bytes
        )
        await browser.start()
        return browser

    def not_fetched(self, host: str, wait: float) -> None:
        """Say once per host why its pages are left due."""
        if host in self._said:
            return
        self._said.add(host)
        self.events.emit(
            LogMessage(
                "error",
                f"{host} is captured with a browser: {self.missing}; its pages are not "
                f"fetched (tried again in {human_duration(wait)})",
            )
        )

    async def load(self, url: str, load: PageLoad) -> Rendering:
        browser = await self.browser()
        assert browser is not None  # the round asked browser() first
        lane = await self._tabs.get()
        try:
            return await browser.load(url, lane, load)
        finally:
            self._tabs.put_nowait(lane)

    @property
    def memory(self) -> int:
        return self._browser.peak_memory if self._browser is not None else 0

    async def close(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
        if self._browser is not None:
            await self._browser.close()
            self._browser = None


@dataclass
class _Response:
    """One response the round fetched for its page loads."""

    result: FetchResult
    answer: Answer | Refusal
    #: Asked of its server (not refused before it was sent: robots.txt).
    asked: bool = True
    #: Recorded into the round's segment already (by the first page that loaded it).
    recorded: bool = False


@dataclass
class RoundLoads:
    """What the round's page loads fetched, by URL: each fetched and archived once."""

    fetched: dict[str, asyncio.Future[_Response]] = field(default_factory=dict)
    kept_bytes: int = 0


class PageLoad:
    """The crawl's side of one page's load (:class:`~recrawl.core.browser.load.RequestHandler`)."""

    def __init__(self, round: Round, page: Page, slot: HostSlot, lane: int) -> None:
        self.round = round
        self.page = page
        self.slot = slot
        self.lane = lane
        #: The page's own document, once fetched.
        self.document: FetchResult | None = None
        #: What the page loaded, in order, and what it was refused (url, reason).
        self.loaded: list[tuple[str, _Response]] = []
        self.refused: list[tuple[str, str]] = []

    async def __call__(self, request: Intercepted) -> Answer | Refusal:
        if request.navigation and self.document is None:
            return await self._document()
        return await self._resource(request)

    async def _document(self) -> Answer | Refusal:
        parts = self.round.parts
        async with parts.connections:
            result = await parts.fetcher.fetch(self.page.url, parts.clock.now(), lane=self.lane)
        self.document = result
        outcome = classify(result)
        if outcome is not Outcome.OK or result.response is None:
            return Refusal(failure_reason(result.status, result.error), end_load=True)
        return _answer(result)

    async def _resource(self, request: Intercepted) -> Answer | Refusal:
        parts = self.round.parts
        if urlsplit(request.url).scheme not in ("http", "https"):
            # the browser's own (its PDF viewer's chrome-extension: files): not the page's
            return Refusal("not a page's request")
        try:
            url = embed_url(request.url, self.page.url)
        except InvalidUrl as exc:
            return self._refuse(request.url, f"not a URL: {exc.reason}")
        if request.method not in ("GET", "HEAD"):
            return self._refuse(url, f"a {request.method} request: not archived")
        rules = parts.embed_rules() if parts.embed_rules is not None else parts.links.embed_rules
        verdict = rules.check(url)
        if not verdict.accepted:
            line = f"line {verdict.line}" if verdict.line is not None else "no rule matched"
            return self._refuse(url, f"embed rule {verdict.filter} ({verdict.filter_name}), {line}")
        loads = self.round.loads
        future = loads.fetched.get(url)
        if future is None:
            future = loads.fetched[url] = asyncio.get_running_loop().create_future()
            try:
                loaded = await self._fetch(url, list(request.headers.items()))
            except BaseException as exc:
                del loads.fetched[url]
                future.set_exception(exc)
                future.exception()  # retrieved: whoever waits on it sees it too
                raise
            future.set_result(loaded)
            self.loaded.append((url, loaded))
        else:
            loaded = await asyncio.shield(future)
            self.loaded.append((url, loaded))
        if isinstance(loaded.answer, Refusal):
            self.refused.append((url, loaded.answer.reason))
        return loaded.answer

    async def _fetch(self, url: str, sent_as: list[tuple[str, str]]) -> _Response:
        parts = self.round.parts
        now = parts.clock.now()
        host = host_of(url)
        if parts.robots is not None:
            denied = await parts.robots.denial(url, parts.hosts[host], self.lane)
            if isinstance(denied, Unreached):
                reason = "its host could not be reached"
                return _Response(FetchResult(url, now, error=reason), Refusal(reason), asked=False)
            if denied is not None:
                reason = (denied.failure if denied.unavailable else None) or "denied by robots.txt"
                return _Response(FetchResult(url, now, error=reason), Refusal(reason), asked=False)
        async with parts.connections:
            result = await parts.fetcher.fetch(
                url, now, lane=parts.hosts[host].lane, sent_as=sent_as
            )
        if result.response is None:
            return _Response(result, Refusal(failure_reason(None, result.error)))
        loads = self.round.loads
        answer = _answer(result)
        size = len(answer.body)
        if size <= KEEP_BODY_BYTES and loads.kept_bytes + size <= KEEP_ALL_BYTES:
            loads.kept_bytes += size
        else:  # the next page that loads it fetches it again (recorded once all the same)
            loads.fetched.pop(url, None)
        return _Response(result, answer)

    def _refuse(self, url: str, reason: str) -> Refusal:
        self.refused.append((url, reason))
        return Refusal(reason)

    # -- once loaded ----------------------------------------------------------------

    def _embeds(self) -> list[str]:
        """What the page embeds: what it asked for, each once; not the icon a browser
        asks every site for by itself, when the site has none."""
        urls = [url for url, _ in self.loaded] + [url for url, _ in self.refused]
        unasked = {
            url
            for url, loaded in self.loaded
            if _browser_icon(url) and (loaded.result.status or 500) >= 400
        }
        return [url for url in dict.fromkeys(urls) if url not in unasked]

    def embedded(self) -> Embedded:
        """What the page embeds: what it loaded (archived or refused), each once."""
        return Embedded(store.Refs(tuple(self._embeds())))

    def completeness(self) -> store.Completeness:
        """What the capture found of its embeds: each response it loaded is archived,
        as it came; one it was refused, or an error (>= 400), is missing."""
        embeds = set(self._embeds())
        missing: dict[str, str] = {}
        for url, reason in self.refused:
            if url in embeds:
                missing.setdefault(url, reason)
        for url, loaded in self.loaded:
            status = loaded.result.status
            if url in embeds and status is not None and status >= 400:
                missing.setdefault(url, f"HTTP {status}")
        archived = len(embeds - missing.keys())
        kept = tuple(list(missing.items())[: store.MISSING_KEPT])
        started = (
            self.document.started_at if self.document is not None else self.round.parts.clock.now()
        )
        return store.Completeness(self.page.id, started, archived, kept, len(missing))

    def to_record(self) -> list[tuple[str, FetchResult]]:
        """The responses this load fetched that the round has not archived yet (each is
        then marked archived: a URL is recorded once a round)."""
        out = []
        for url, loaded in self.loaded:
            if loaded.asked and not loaded.recorded:
                loaded.recorded = True
                out.append((url, loaded.result))
        return out


@dataclass(frozen=True)
class Loaded:
    """A page's load in the browser: the crawl's side of it, and what the browser left."""

    handler: PageLoad
    rendering: Rendering
    #: The page's fetch as recorded: its document, or why there is none to record (the
    #: browser failed before asking for it, or rendering it).
    result: FetchResult

    @property
    def by_dom(self) -> bool:
        """Whether the page is judged by its rendered DOM: an HTML document. Another (a
        PDF, JSON) is drawn by the browser's own viewer, whose DOM is the same whatever
        the document says: it is judged by its bytes, as over HTTP."""
        kind = media_type(self.result.header("content-type"))
        return not kind or kind in HTML_TYPES  # none said: the browser sniffs it as a page

    @classmethod
    def of(cls, handler: PageLoad, rendering: Rendering, at: datetime) -> Loaded:
        document = handler.document
        if document is None:
            why = rendering.error or "the browser did not ask for the page"
            return cls(
                handler, rendering, FetchResult(handler.page.url, at, error=f"browser: {why}")
            )
        if rendering.error and classify(document) is Outcome.OK:
            # the document came, the rendering did not: nothing to judge the page by
            failed = replace(
                document, response=None, decoded=None, error=f"browser: {rendering.error}"
            )
            return cls(handler, rendering, failed)
        return cls(handler, rendering, document)


def _browser_icon(url: str) -> bool:
    return urlsplit(url).path == "/favicon.ico"


def _answer(result: FetchResult) -> Answer:
    """A fetched response as the browser gets it: the body decoded, whole."""
    response = result.response
    assert response is not None
    headers = [(k, v) for k, v in response.headers if k.lower() not in _HOP_HEADERS]
    body = result.decoded if result.decoded is not None else response.body
    return Answer(response.status, response.reason, headers, body)


def rendered_result(document: FetchResult, rendering: Rendering) -> FetchResult:
    """The rendered DOM as a response to analyse: what the page's signature, text,
    title, date and links are made of."""
    head = [("Content-Type", "text/html; charset=utf-8")]
    return FetchResult(
        url=document.url,
        started_at=document.started_at,
        response=HttpResponse("HTTP/1.1", 200, "OK", head, b""),
        decoded=rendering.dom,
    )
