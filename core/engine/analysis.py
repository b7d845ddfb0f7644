"""A fetched page's analysis (its parse and its signature), off the crawl's event loop.

A big page takes a while to parse, even within the parse bounds (core/content/markup_bounds.py);
on the event loop that would hold up every other host's fetches and timeouts (a page of
100,000 nested ``<div>`` elements once held them for two minutes), and in the crawl's
process it holds the interpreter lock the other threads (the app's window) need. So
pages are analysed by analysis processes (:mod:`.pool`). A tiny page is analysed on the
loop: its analysis costs less than sending it. A signature that cannot be sent to
another process (a plug-in holding threads or locks) is computed in the crawl's process,
on one thread of its own (one parse tree in memory at once).

A *deferrable* signature (``main-text``: some 8 ms a page, more than the rest of the
page's analysis together) is computed only when a comparison needs it. A page's first
fetch stores none; a later fetch of the same bytes is unchanged without one (the bytes
decide); a fetch of other bytes signs both the new payload and the archived one it
replaces (:class:`Earlier`), so the comparison is the one an eager signature makes,
and from then on the page has its signature. A first crawl of a site, where every
fetch is a first one, pays for no main text at all.
"""

from __future__ import annotations

import asyncio
import os
import pickle
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from recrawl.core.archive.warc import payload_digest, read_record
from recrawl.core.archive.warc_writer import Members, RecordBuilder
from recrawl.core.config import UNCOMPARABLE, ParseSettings
from recrawl.core.content.search_text import IndexedText, document_of, indexed_text
from recrawl.core.engine.parse import (
    HTML_TYPES,
    EmbedList,
    ParseResult,
    is_css,
    is_html,
    is_script,
    looks_binary,
    media_type,
    parse_html,
    parse_script,
    parse_stylesheet,
)
from recrawl.core.errors import WarcError
from recrawl.core.net.http import HttpRequest, HttpResponse, decode_body
from recrawl.core.policy.change_rules import signature_for
from recrawl.core.policy.signature import OutlinksSignature, Signature

if TYPE_CHECKING:  # not at run time: the analysis processes need no HTTP client
    from recrawl.core.engine.pool import AnalysisPool
    from recrawl.core.net.fetch import FetchResult
    from recrawl.core.store.models import Page

#: Bodies up to this size are analysed on the loop (less than the hand-over costs).
INLINE_BYTES = 2 * 1024


@dataclass(frozen=True)
class Earlier:
    """The archived payload a fetch replaces (its response record), to sign beside it."""

    path: str
    offset: int
    #: The crawl's decoding cap (``fetch.max_body_bytes``), as when it was fetched.
    cap: int


@dataclass(frozen=True)
class ToArchive:
    """A fetch whose response is archived whole: its records are built with its analysis
    (:class:`~recrawl.core.archive.warc_writer.Members`), off the crawl's process."""

    url: str
    instant: datetime
    request: HttpRequest
    response: HttpResponse
    truncated: str | None
    ip: str | None


@dataclass(frozen=True)
class Asked:
    """What a page's analysis is asked for besides its parse and links."""

    #: Compute its signature (False: deferred, :func:`signing`).
    sign: bool = True
    #: Sign this archived payload too (:func:`signing`).
    earlier: Earlier | None = None
    #: Build its response's records.
    archive: ToArchive | None = None
    #: Look for its publication date, at the latest this instant (the fetch's); None:
    #: don't (it is read on a page's first fetch only).
    date_by: datetime | None = None
    #: Make its text for search (docs/design.md §19): a page's new version.
    index: bool = False


@dataclass(frozen=True)
class Analysis:
    """What a 2xx page's body says: its links (None if not HTML), its signature, and
    the publication date it states (when it was looked for, and found).

    ``parsed.text`` is not kept: the signature is made of it, nothing else reads it.
    """

    parsed: ParseResult | None
    #: None: not computed (deferred: see the module's docstring).
    signature: bytes | None
    #: The :class:`Earlier` payload's signature, when one was asked for and could be read.
    earlier_signature: bytes | None = None
    #: The records of a :class:`ToArchive`, when one was given.
    members: Members | None = None
    #: When the page says it was published (naive UTC; docs/design.md §11).
    published: datetime | None = None
    #: The outlinks' hashes (``outlinks`` signature form) when asked for and HTML.
    link_hashes: bytes | None = None
    #: What an HTML page or a stylesheet embeds (docs/design.md §14); None for other bodies.
    embeds: EmbedList | None = None
    #: Its text for search, when asked (:attr:`Asked.index`) and it has one (HTML or
    #: plain text); its ``digest`` is left empty: the capture's is set when it is recorded.
    text: IndexedText | None = None


def signing(
    page: Page, result: FetchResult, signature: Signature, project_dir: Path, cap: int
) -> tuple[bool, Earlier | None]:
    """Whether a fetch's signature is computed now, and the earlier payload to sign with it.

    -> ``(sign, earlier)``. An eager signature is always computed; a deferrable one only
    when the page's bytes changed since a payload that has no signature of this kind.
    """
    signature = signature_for(signature, page.url)
    if not signature.deferrable:
        return True, None
    if page.signature is not None and page.signature_kind == signature.kind:
        return True, None  # compared with the stored one
    if page.signature_kind == UNCOMPARABLE:
        return True, None  # its capture mode changed: compared with nothing, signed anew
    if result.response is None or page.payload_digest is None or page.payload_file is None:
        return False, None  # a first fetch: nothing to compare with yet
    if page.payload_digest == payload_digest(result.response.body) and not result.truncated:
        return False, None  # the same bytes: unchanged, whatever the signature
    if page.payload_offset is None:
        return True, None
    # here, not at the top: the analysis processes import this module, never the store
    from recrawl.core.archive.segments import resolve

    path = resolve(project_dir, page.payload_file)
    return True, Earlier(str(path), page.payload_offset, cap)


def unsigned_payload(
    page: Page, signature: Signature, project_dir: Path, cap: int
) -> Earlier | None:
    """The archived payload a redirect's or error's capture is about to replace, when a
    deferrable signature has not signed it yet: signed then, it is what the page's next
    2xx is compared with, as an eager signature kept over the redirect or error would be.

    Only a page that had a 2xx has one (:func:`sign_earlier` reads no other response).
    """
    signature = signature_for(signature, page.url)
    if not signature.deferrable or page.content_changed_at is None:
        return None
    if page.signature_kind == UNCOMPARABLE or (
        page.signature is not None and page.signature_kind == signature.kind
    ):
        return None  # kept over the capture as it is (or compared with nothing: a new mode)
    if page.payload_file is None or page.payload_offset is None:
        return None
    from recrawl.core.archive.segments import resolve

    path = resolve(project_dir, page.payload_file)
    return Earlier(str(path), page.payload_offset, cap)


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
    url: str,
    content_type: str | None,
    body: bytes,
    signature: Signature,
    bounds: ParseSettings,
    asked: Asked = Asked(),
) -> Analysis:
    """The page's analysis (pure but for reading ``asked.earlier``: the same in the
    crawl's process and in an analysis process)."""
    parsed = embeds = document = None
    if is_html(content_type, body):
        # search reads what the type says is HTML, as it reads an archived payload
        whole = asked.index and media_type(content_type) in HTML_TYPES
        parsed = parse_html(body, url, content_type, bounds, date_by=asked.date_by, document=whole)
        embeds, parsed.embeds = parsed.embeds, None  # sent back once, beside it
        document, parsed.document = parsed.document, None
    elif asked.index:
        document = document_of(body, content_type, url)
    elif is_css(content_type, url) and not looks_binary(content_type, body):
        embeds = parse_stylesheet(body, url, content_type, bounds)
    elif is_script(content_type, url) and not looks_binary(content_type, body):
        embeds = parse_script(body, url, bounds)
    links = tuple(link.url for link in parsed.links) if parsed else ()
    signed = None
    if asked.sign:
        own = signature_for(signature, url)  # under the page's change rule, if any
        signed = own.compute(body, text_of(content_type, body, parsed), links)
    published = hashes = None
    if parsed is not None:
        parsed.text = None  # read by the signature only; not sent back nor kept
        published, parsed.published = parsed.published, None  # (sent back once)
        if bounds.hash_links:
            hashes = OutlinksSignature().compute(b"", None, links)
    earlier, archive = asked.earlier, asked.archive
    before = sign_earlier(url, earlier, signature, bounds) if earlier is not None else None
    members = None
    if archive is not None:
        members = _builder().response_members(
            archive.url,
            archive.instant,
            archive.request,
            archive.response,
            archive.truncated,
            archive.ip,
        )
    text = indexed_text(url, "", document) if document is not None else None
    return Analysis(parsed, signed, before, members, published, hashes, embeds, text)


_BUILDER: list[RecordBuilder] = []


def _builder() -> RecordBuilder:
    """This process's record builder (its warcio writer and buffer, made once)."""
    if not _BUILDER:
        _BUILDER.append(RecordBuilder())
    return _BUILDER[0]


def sign_earlier(
    url: str, earlier: Earlier, signature: Signature, bounds: ParseSettings
) -> bytes | None:
    """The archived payload's signature; None if it is unreadable or no 2xx response."""
    try:
        record = read_record(Path(earlier.path), earlier.offset)
    except (WarcError, OSError):
        return None
    status = record.http_status
    if record.record_type != "response" or status is None or not 200 <= status < 300:
        return None
    headers = {name.lower(): value for name, value in record.http_headers}
    decoded, _ = decode_body(record.body, headers.get("content-encoding"), earlier.cap)
    try:
        return analyse_page(
            url, headers.get("content-type"), decoded or b"", signature, bounds
        ).signature
    except Exception:  # as for the page itself: a payload that breaks the parse
        return None


def can_be_sent(signature: Signature) -> bool:
    """Whether ``signature`` can go to an analysis process (it pickles)."""
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
        # the processes' pipes are watched by the crawl's event loop, which on Windows
        # cannot watch an anonymous pipe: there, pages are analysed on a thread
        if processes > 0 and os.name == "posix" and can_be_sent(signature):
            from recrawl.core.engine.pool import AnalysisPool

            self._pool = AnalysisPool(signature, bounds, processes)
        self._thread: ThreadPoolExecutor | None = None

    async def analyse(
        self, url: str, result: FetchResult, asked: Asked = Asked()
    ) -> Analysis | Exception:
        """The page's analysis, or the error it raised (it costs that page only).

        ``asked.archive``'s records are built by an analysis process only (elsewhere the
        capture writer builds them)."""
        return await self._analyse(url, result.header("content-type"), result.decoded or b"", asked)

    async def sign_archived(self, url: str, earlier: Earlier) -> bytes | None:
        """The signature of an archived payload alone (:func:`unsigned_payload`); None
        if it could not be read or signed."""
        done = await self._analyse(url, None, b"", Asked(sign=False, earlier=earlier))
        return None if isinstance(done, Exception) else done.earlier_signature

    async def _analyse(
        self, url: str, content_type: str | None, body: bytes, asked: Asked
    ) -> Analysis | Exception:
        try:
            if len(body) <= INLINE_BYTES and asked.earlier is None:
                return self.analyse_now(url, content_type, body, replace(asked, archive=None))
            if self._pool is not None:
                return await self._pool.analyse(url, content_type, body, asked)
            if self._thread is None:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="recrawl-parse")
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self._thread,
                self.analyse_now,
                url,
                content_type,
                body,
                replace(asked, archive=None),
            )
        except Exception as exc:  # a bug or absurd input: recorded as the page's failure
            return exc

    def analyse_now(
        self, url: str, content_type: str | None, body: bytes, asked: Asked = Asked()
    ) -> Analysis:
        return analyse_page(url, content_type, body, self.signature, self.bounds, asked)

    def close(self) -> None:
        """Wait for the analyses in progress (bounded), then end the thread and the analysis
        processes."""
        if self._thread is not None:
            self._thread.shutdown(wait=True, cancel_futures=True)
            self._thread = None
        if self._pool is not None:
            self._pool.close()
