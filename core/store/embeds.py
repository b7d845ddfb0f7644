"""Embeds (docs/design.md §14): rows of kind ``embed``, what each capture embeds, completeness.

An embed is stored like a page (its own interval, signature and captures) but is never
due by itself: a round fetches it with a page that embeds it, once its interval has
passed (:mod:`recrawl.core.engine.embeds`). What a capture embeds is kept on its row
(``embed_refs``), so a page that answers 304 still has its embeds fetched; what a page
capture found of them is kept on its fetch event (``embeds``, ``embeds_missing``).
"""

from __future__ import annotations

import bisect
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from peewee import fn
from recrawl.core.store.models import DB, FetchEvent, Page, PageKind, PageStatus
from recrawl.core.store.pages import NewPage, insert_pages
from recrawl.core.store.sql import _converter, chunks, executemany

#: Missing embeds of one capture kept with their reasons (all of them are counted): a
#: page of 100,000 images past the per-page limit keeps a readable list, not 99,000 rows.
MISSING_KEPT = 100


#: How imports and guesses are told apart in the kept list (no URL starts with either).
_IMPORT, _GUESS = "@", "?"


class Refs(NamedTuple):
    """What one capture embeds, in document order."""

    urls: tuple[str, ...] = ()
    #: Those a stylesheet ``@import``s: part of it, fetched at its hop.
    imports: frozenset[str] = frozenset()
    #: Those only guessed from a script's text: fetched, never missing.
    guesses: frozenset[str] = frozenset()


def pack_refs(refs: Refs) -> bytes | None:
    """A capture's embeds as the store keeps them; None for none."""
    if not refs.urls:
        return None
    lines = [
        _IMPORT + url if url in refs.imports else _GUESS + url if url in refs.guesses else url
        for url in refs.urls
    ]
    return zlib.compress("\n".join(lines).encode("utf-8"), 6)


def read_refs(blob: bytes | None) -> Refs:
    """The embeds :func:`pack_refs` kept; none for none or an unreadable value."""
    if not blob:
        return Refs()
    try:
        lines = zlib.decompress(bytes(blob)).decode("utf-8").split("\n")
    except (zlib.error, UnicodeDecodeError):
        return Refs()  # a damaged value costs that capture's embeds, not the crawl
    urls = tuple(line[1:] if line[:1] in (_IMPORT, _GUESS) else line for line in lines)
    imports = frozenset(line[1:] for line in lines if line.startswith(_IMPORT))
    guesses = frozenset(line[1:] for line in lines if line.startswith(_GUESS))
    return Refs(urls, imports, guesses)


@dataclass(frozen=True, slots=True)
class EmbedState:
    """What the store knows of a URL a capture embeds, as a round decides on it."""

    id: int
    url: str
    host: str
    kind: str
    status: str
    next_fetch: datetime
    #: It has an archived payload (a 2xx response, or a revisit of one).
    archived: bool
    #: What its latest capture embeds in turn (a stylesheet's fonts, a redirect's target).
    refs: Refs


_STATE_COLUMNS = (
    Page.id, Page.url, Page.host, Page.kind, Page.status, Page.next_fetch,
    Page.payload_record_id, Page.embed_refs,
)  # fmt: skip


def embed_states(urls: Iterable[str]) -> dict[str, EmbedState]:
    """The states of those of ``urls`` the store knows (pages or embeds)."""
    found: dict[str, EmbedState] = {}
    for chunk in chunks(list(urls)):
        query = Page.select(*_STATE_COLUMNS).where(Page.url.in_(list(chunk)))
        for row in query.tuples().iterator():
            page_id, url, host, kind, status, next_fetch, record_id, blob = row
            found[url] = EmbedState(
                page_id, url, host, kind, status, next_fetch, record_id is not None,
                read_refs(blob),
            )  # fmt: skip
    return found


def add_embeds(embeds: Sequence[NewPage], now: datetime) -> dict[str, EmbedState]:
    """Insert the embeds not yet known (``kind`` embed, first seen ``now``) and return the
    state of every one of them, known before or not."""
    with DB.atomic():
        insert_pages(embeds, now)
    return embed_states(embed.url for embed in embeds)


def last_failures(ids: Sequence[int]) -> dict[int, tuple[int | None, str | None]]:
    """Each page's latest fetch event's HTTP status and error, for saying why an embed
    not fetched this round is missing."""
    found: dict[int, tuple[int | None, str | None]] = {}
    for chunk in chunks(list(ids)):
        query = (
            FetchEvent.select(FetchEvent.page, FetchEvent.http_status, FetchEvent.error)
            .where(FetchEvent.page.in_(list(chunk)))
            .order_by(FetchEvent.page, FetchEvent.fetched_at)
        )
        for page_id, status, error in query.tuples().iterator():
            found[page_id] = (status, error)  # the latest comes last
    return found


@dataclass(frozen=True, slots=True)
class Completeness:
    """What one page capture found of its embeds, written onto its fetch event."""

    page_id: int
    fetched_at: datetime
    archived: int
    #: (url, reason) of the first :data:`MISSING_KEPT` missing ones.
    missing: tuple[tuple[str, str], ...]
    missing_count: int


def record_completeness(done: Sequence[Completeness]) -> None:
    """Write each capture's completeness onto its fetch event (inside the caller's
    transaction: a batch's)."""
    if not done:
        return
    first = done[0]

    def kept(c: Completeness) -> list[list[str]]:
        return [list(item) for item in c.missing[:MISSING_KEPT]]

    query = FetchEvent.update(
        embeds=first.archived, embeds_missing=kept(first), embeds_missing_count=first.missing_count
    ).where((FetchEvent.page == first.page_id) & (FetchEvent.fetched_at == first.fetched_at))
    convert = _converter()
    missing, when = FetchEvent.embeds_missing, FetchEvent.fetched_at
    rows: list[list[Any]] = [
        [
            c.archived,
            missing.db_value(kept(c)),
            c.missing_count,
            c.page_id,
            convert(when, c.fetched_at),
        ]
        for c in done
    ]
    executemany(query, rows)


def unfinished_captures_due(segments: Sequence[str], now: datetime) -> int:
    """Pages whose latest capture lies in one of ``segments`` (a killed crawl's) and never
    got what it embeds (its completeness was still to commit): due now, so the next round
    fetches them with their embeds (unchanged, the page's new capture is a revisit).
    Their number."""
    due = 0
    for chunk in chunks(list(segments)):
        unfinished = FetchEvent.select(FetchEvent.id).where(
            (FetchEvent.page == Page.id)
            & (FetchEvent.fetched_at == Page.last_fetched)
            & FetchEvent.http_status.is_null(False)
            & FetchEvent.embeds.is_null()
        )
        due += (
            Page.update(next_fetch=now)
            .where(
                Page.segment.in_(list(chunk))
                & (Page.kind == PageKind.PAGE)
                & Page.embed_refs.is_null(False)  # embeds to fetch: not none, not unknown
                & (fn.LENGTH(Page.embed_refs) > 0)
                & (Page.next_fetch > now)
                & (Page.status != PageStatus.FILTERED)
                & fn.EXISTS(unfinished)
            )
            .execute()
        )
    return due


def promote_linked(ids: Sequence[int], now: datetime) -> int:
    """Embeds a page links to (and the chain accepts) become pages, due by ``now`` (an
    embed's fetch followed none of its links); how many did."""
    promoted = 0
    for chunk in chunks(list(ids)):
        embeds = Page.id.in_(list(chunk)) & (Page.kind == PageKind.EMBED)
        Page.update(next_fetch=now).where(embeds & (Page.next_fetch > now)).execute()
        promoted += Page.update(kind=PageKind.PAGE).where(embeds).execute()
    return promoted


def promoted_due(ids: Iterable[int], now: datetime) -> int:
    """Of the embeds fetched as embeds (``ids``), those a link, a seed or a sitemap made
    pages meanwhile (a commit before this fetch's): due by ``now``, as :func:`promote_linked`
    left them before the fetch's update pushed their next fetch on (none of their links
    were followed). How many."""
    due = 0
    for chunk in chunks(list(ids)):
        due += (
            Page.update(next_fetch=now)
            .where(
                Page.id.in_(list(chunk)) & (Page.kind == PageKind.PAGE) & (Page.next_fetch > now)
            )
            .execute()
        )
    return due


def embeds_among(urls: Iterable[str]) -> set[str]:
    """Those of ``urls`` that are embeds (not pages)."""
    found: set[str] = set()
    for chunk in chunks(list(dict.fromkeys(urls))):
        query = Page.select(Page.url).where(
            Page.url.in_(list(chunk)) & (Page.kind == PageKind.EMBED)
        )
        found.update(url for (url,) in query.tuples().iterator())
    return found


class _History:
    """URLs' embeds as they changed: each one's (fetched_at, refs), oldest first, from
    the fetch events that kept them, with the row's (the latest) as the last word."""

    def __init__(self) -> None:
        self._times: dict[str, list[datetime]] = {}
        self._refs: dict[str, list[Refs]] = {}
        self._now: dict[str, Refs] = {}

    def read(self, urls: Iterable[str]) -> None:
        todo = [url for url in dict.fromkeys(urls) if url not in self._now]
        for chunk in chunks(todo):
            rows = Page.select(Page.id, Page.url, Page.embed_refs).where(Page.url.in_(list(chunk)))
            ids: dict[int, str] = {}
            for page_id, url, blob in rows.tuples().iterator():
                ids[page_id] = url
                self._now[url] = read_refs(blob)
            events = (
                FetchEvent.select(FetchEvent.page, FetchEvent.fetched_at, FetchEvent.embed_refs)
                .where(FetchEvent.page.in_(list(ids)) & FetchEvent.embed_refs.is_null(False))
                .order_by(FetchEvent.page, FetchEvent.fetched_at, FetchEvent.id)
            )
            for page_id, at, blob in events.tuples().iterator():
                url = ids[page_id]
                # to the second, as a capture's stamp (and the index) has it
                self._times.setdefault(url, []).append(at.replace(microsecond=0))
                self._refs.setdefault(url, []).append(read_refs(blob))
        for url in todo:
            self._now.setdefault(url, Refs())

    def at(self, url: str, when: datetime | None) -> Refs:
        """``url``'s embeds at ``when`` (None: now). A capture older than the first list
        kept (one from before Recrawl kept them) gets the first one: its best guess."""
        times = self._times.get(url)
        if when is None or not times:
            return self._now.get(url, Refs())
        index = bisect.bisect_right(times, when) - 1
        return self._refs[url][max(index, 0)]


def embed_trees(
    captures: Iterable[tuple[str, datetime | None]], hops: int
) -> dict[tuple[str, datetime | None], list[str]]:
    """What each capture (url, when; None: its latest) embeds, and what that embeds in
    turn at the same time, ``hops`` deep (a stylesheet's imports at its own hop, as a
    crawl fetches them): each one's embeds in the order met, itself not among them."""
    roots = list(dict.fromkeys(captures))
    history = _History()
    history.read(url for url, _ in roots)
    trees: dict[tuple[str, datetime | None], list[str]] = {}
    for root, when in roots:
        seen = {root}
        tree: list[str] = []
        wave = [(ref, 1) for ref in history.at(root, when).urls]
        while wave:
            history.read(url for url, _ in wave)
            after: list[tuple[str, int]] = []
            for url, hop in wave:
                if url in seen or hop > hops:
                    continue
                seen.add(url)
                tree.append(url)
                found = history.at(url, when)
                after.extend((ref, hop if ref in found.imports else hop + 1) for ref in found.urls)
            wave = after
        trees[root, when] = tree
    return trees
