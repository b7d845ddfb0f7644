"""A fetched page's analysis (its parse and its signature), off the crawl's event loop.

A big page takes a while to parse, even within the parse bounds (core/content/markup_bounds.py);
on the event loop that would hold up every other host's fetches and timeouts (a page of
100,000 nested ``<div>`` elements once held them for two minutes), and in the crawl's
process it holds the interpreter lock the other threads (the app's window) need. So
pages are analysed by worker processes (:mod:`.pool`). A tiny page is analysed on the
loop: its analysis costs less than sending it. A signature that cannot be sent to
another process (a plug-in holding threads or locks) is computed in the crawl's process,
on one worker thread (one parse tree in memory at once).
"""

from __future__ import annotations

import asyncio
import pickle
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recrawl.core.config import ParseSettings
from recrawl.core.engine.parse import ParseResult, is_html, looks_binary, media_type, parse_html
from recrawl.core.policy.signature import OutlinksSignature, Signature

if TYPE_CHECKING:  # not at run time: the analysis processes need no HTTP client
    from recrawl.core.engine.pool import AnalysisPool
    from recrawl.core.net.fetch import FetchResult

#: Bodies up to this size are analysed on the loop (less than the hand-over costs).
INLINE_BYTES = 2 * 1024


@dataclass(frozen=True)
class Analysis:
    """What a 2xx page's body says: its links (None if not HTML), its signature.

    ``parsed.text`` is not kept: the signature is made of it, nothing else reads it.
    """

    parsed: ParseResult | None
    signature: bytes
    #: The outlinks' hashes (``outlinks`` signature form) when asked for and HTML.
    link_hashes: bytes | None = None


def text_of(content_type: str | None, body: bytes, parsed: ParseResult | None) -> str | None:
    """Text for signatures: HTML's text, None for other text, "" for binary payloads.

    An empty text makes text-based signatures fall back to the payload's hash, so a
    changed image is not mistaken for unchanged garbage "words".
    """
    if parsed is not None:
        return parsed.text
    if looks_binary(content_type, body):
        return ""
    return None if media_type(content_type).startswith("text/") else ""


def analyse_page(
    url: str, content_type: str | None, body: bytes, signature: Signature, bounds: ParseSettings
) -> Analysis:
    """The page's analysis (pure: the same in the crawl's process and in a worker)."""
    parsed = parse_html(body, url, content_type, bounds) if is_html(content_type, body) else None
    links = tuple(link.url for link in parsed.links) if parsed else ()
    signed = signature.compute(body, text_of(content_type, body, parsed), links)
    hashes = None
    if parsed is not None:
        parsed.text = None  # read by the signature only; not sent back nor kept
        if bounds.hash_links:
            hashes = OutlinksSignature().compute(b"", None, links)
    return Analysis(parsed, signed, hashes)


def can_be_sent(signature: Signature) -> bool:
    """Whether ``signature`` can go to a worker process (it pickles)."""
    try:
        pickle.dumps(signature)
    except Exception:  # any reason at all: it stays in this process
        return False
    return True


class PageAnalyser:
    """Analyses one crawl's pages; :meth:`close` when the crawl ends.

    ``processes``: the analysis processes (0: none, pages are analysed in this process).
    """

    def __init__(self, signature: Signature, bounds: ParseSettings, processes: int = 0) -> None:
        self.signature = signature
        self.bounds = bounds
        self._pool: AnalysisPool | None = None
        if processes > 0 and can_be_sent(signature):
            from recrawl.core.engine.pool import AnalysisPool

            self._pool = AnalysisPool(signature, bounds, processes)
        self._thread: ThreadPoolExecutor | None = None

    async def analyse(self, url: str, result: FetchResult) -> Analysis | Exception:
        """The page's analysis, or the error it raised (it costs that page only)."""
        body = result.decoded or b""
        content_type = result.header("content-type")
        try:
            if len(body) <= INLINE_BYTES:
                return self.analyse_now(url, content_type, body)
            if self._pool is not None:
                return await self._pool.analyse(url, content_type, body)
            if self._thread is None:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="recrawl-parse")
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self._thread, self.analyse_now, url, content_type, body
            )
        except Exception as exc:  # a bug or absurd input: recorded as the page's failure
            return exc

    def analyse_now(self, url: str, content_type: str | None, body: bytes) -> Analysis:
        return analyse_page(url, content_type, body, self.signature, self.bounds)

    def close(self) -> None:
        """Wait for the analyses in progress (bounded), then end the thread and workers."""
        if self._thread is not None:
            self._thread.shutdown(wait=True, cancel_futures=True)
            self._thread = None
        if self._pool is not None:
            self._pool.close()
