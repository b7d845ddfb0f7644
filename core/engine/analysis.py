"""A fetched page's analysis (its parse and its signature), off the crawl's event loop.

A big page takes a while to parse, even within the parse bounds (core/content/markup_bounds.py);
on the event loop that would hold up every other host's fetches and timeouts (a page of
100,000 nested ``<div>`` elements once held them for two minutes). So one worker thread
analyses pages, one at a time (one parse tree in memory at once); Lexbor lets go of
the GIL while it builds a tree, and Python hands the loop the GIL between the rest.
A small page is analysed on the loop: its parse costs less than the hand-over.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from recrawl.core.config import ParseSettings
from recrawl.core.engine.parse import ParseResult, is_html, looks_binary, media_type, parse_html
from recrawl.core.net.fetch import FetchResult
from recrawl.core.policy.signature import Signature

#: Bodies up to this size are analysed on the loop (a few hundred microseconds).
INLINE_BYTES = 32 * 1024


@dataclass(frozen=True)
class Analysis:
    """What a 2xx page's body says: its links and text (None if not HTML), its signature."""

    parsed: ParseResult | None
    signature: bytes


def text_of(result: FetchResult, parsed: ParseResult | None) -> str | None:
    """Text for signatures: HTML's text, None for other text, "" for binary payloads.

    An empty text makes text-based signatures fall back to the payload's hash, so a
    changed image is not mistaken for unchanged garbage "words".
    """
    if parsed is not None:
        return parsed.text
    content_type = result.header("content-type")
    if looks_binary(content_type, result.decoded or b""):
        return ""
    return None if media_type(content_type).startswith("text/") else ""


class PageAnalyser:
    """Analyses one crawl's pages; :meth:`close` when the crawl ends."""

    def __init__(self, signature: Signature, bounds: ParseSettings) -> None:
        self.signature = signature
        self.bounds = bounds
        self._thread: ThreadPoolExecutor | None = None

    async def analyse(self, url: str, result: FetchResult) -> Analysis | Exception:
        """The page's analysis, or the error it raised (it costs that page only)."""
        body = result.decoded or b""
        try:
            if len(body) <= INLINE_BYTES:
                return self.analyse_now(url, result)
            if self._thread is None:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="recrawl-parse")
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self.analyse_now, url, result)
        except Exception as exc:  # a bug or absurd input: recorded as the page's failure
            return exc

    def analyse_now(self, url: str, result: FetchResult) -> Analysis:
        content_type = result.header("content-type")
        body = result.decoded or b""
        parsed = (
            parse_html(body, url, content_type, self.bounds)
            if is_html(content_type, body)
            else None
        )
        links = tuple(link.url for link in parsed.links) if parsed else ()
        return Analysis(parsed, self.signature.compute(body, text_of(result, parsed), links))

    def close(self) -> None:
        """Wait for a parse in progress (bounded), then end the thread."""
        if self._thread is not None:
            self._thread.shutdown(wait=True, cancel_futures=True)
            self._thread = None
