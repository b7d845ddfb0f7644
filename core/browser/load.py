"""What one page load in the browser exchanges with the crawl, as plain values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Intercepted:
    """A request the page made, paused in the browser until the crawl answers it."""

    url: str
    method: str
    #: The headers the browser would send (Accept, Referer, Range…), as it names them.
    headers: dict[str, str]
    #: CDP's resource type: Document, Stylesheet, Image, Media, Font, Script, XHR, Fetch,
    #: Manifest, Other…
    resource_type: str
    #: The tab's own document: the page's first navigation (later ones by its scripts
    #: count toward ``capture.max_navigations`` and are answered like any request).
    navigation: bool


@dataclass(frozen=True)
class Answer:
    """The response the browser is given: the body decoded (no Content-Encoding)."""

    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(frozen=True)
class Refusal:
    """A request the browser is told failed: blocked by the embed rules or robots.txt,
    or not fetched. ``end_load``: the page's own document did not come back 2xx (a
    redirect, an error): the load ends there, with no rendering."""

    reason: str
    end_load: bool = False


class RequestHandler(Protocol):
    """The crawl's side of a load: fetches, archives and answers each request."""

    async def __call__(self, request: Intercepted) -> Answer | Refusal: ...


@dataclass(frozen=True)
class Rendering:
    """A page as the browser left it once it settled (or was cut off)."""

    #: The tab's URL at the end (a script may have navigated elsewhere).
    url: str
    #: The DOM serialised after the load and the scrolls, UTF-8, its doctype first;
    #: empty when ``error`` is set.
    dom: bytes
    title: str
    #: The viewport at the top of the page, PNG; None when screenshots are off or failed.
    screenshot: bytes | None
    #: What was bounded or refused on the way, each with its setting where one applies:
    #: "still loading after 30 s (capture.page_timeout)", "an alert dismissed",
    #: "a popup closed", "a download refused", "scrolled 10 times (capture.max_scrolls)".
    notes: tuple[str, ...] = field(default=())
    #: The load failed (the tab crashed, the browser hung or restarted, the document was
    #: refused): no DOM then.
    error: str | None = None
