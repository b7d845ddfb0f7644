"""Search through time (docs/design.md §19): which pages say it, and from when to when.

The index finds the texts that match; the capture table says which captures carry each
text (by URL and payload digest; a revisit carries the digest of the payload it repeats,
so it matches as that payload does). A page's captures in time order then give the runs
in which the query matched: its first match, its last, and the first capture after that
which no longer matches (``gone_at``). A server error (5xx) says nothing about the text
and is passed over; any other capture that does not match (another text, a redirect, a
404) ends a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from recrawl.core.content.search_text import Query, Snippet, parse_query, snippet
from recrawl.core.store.captures import CaptureRow, captures_by_url
from recrawl.core.store.search import (
    RANKED_AT_MOST,
    doc_texts,
    matching_docs,
    ranked_docs,
    search_state,
    versions_of,
)

#: Documents read from the index per page asked for (a page has several versions).
_OVERFETCH = 8
#: At most this many documents are ranked for one query's pages.
_MOST_DOCS = 20_000


@dataclass(frozen=True)
class Period:
    """A run of captures that match: from ``start`` to ``end`` (its first and last
    matching capture), ``gone`` the first capture after it that does not (None: none yet)."""

    start: datetime
    end: datetime
    gone: datetime | None


@dataclass(frozen=True)
class SearchHit:
    url: str
    title: str | None
    #: A passage of the latest matching text, around the first match.
    snippet: str
    #: Where the matches are in ``snippet``: (start, end) character spans.
    marks: tuple[tuple[int, int], ...]
    first_seen: datetime
    last_seen: datetime
    gone_at: datetime | None
    #: How many captures match.
    captures: int
    periods: tuple[Period, ...]
    #: The index's score (higher is better): results are in its order.
    rank: float


@dataclass(frozen=True)
class SearchResults:
    query: Query
    hits: tuple[SearchHit, ...]
    #: Said beside the results: how the query was read, an index still being built.
    notes: tuple[str, ...]


def search(
    text: str,
    *,
    site: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 50,
) -> SearchResults:
    """The pages whose captures match ``text`` (:func:`parse_query`'s language), best
    first, at most ``limit``; only captures from ``since`` to ``until`` (naive UTC,
    inclusive) count. Raises :class:`~recrawl.core.errors.QueryError` for a query with
    nothing to search for."""
    query = parse_query(text)
    notes = list(query.notes)
    if not search_state().complete:
        notes.append("the search index is not complete yet: older captures may be missing")
    found: list[_Found] = []
    fetch = max(limit, 1) * _OVERFETCH
    done: set[str] = set()
    while True:
        # a time range may want older texts than the newest matches: all are ranked then
        newest = RANKED_AT_MOST if since is None and until is None else None
        ranked = ranked_docs(query, site, fetch, newest=newest)
        order: dict[str, float] = {}
        for _, url, score in ranked:
            if url not in done and url not in order:
                order[url] = score
        # the best pages first, as many as still wanted: the pages ranked below them
        # (their captures, all their versions) are read only when some are dropped
        pending = list(order)
        while pending and len(found) < limit:
            take, pending = (
                pending[: max(limit - len(found), 10)],
                pending[max(limit - len(found), 10) :],
            )
            found += _found(query, {url: order[url] for url in take}, since, until)
            done.update(take)
        if len(found) >= limit or len(ranked) < fetch or fetch >= _MOST_DOCS:
            break
        fetch = min(fetch * 4, _MOST_DOCS)  # pages dropped (no capture in range): read on
    found.sort(key=lambda one: -one.rank)
    return SearchResults(query, tuple(_hits(query, found[:limit])), tuple(notes))


@dataclass(frozen=True)
class _Found:
    """A page that matches, before its snippet is made (only the hits kept get one: a
    snippet tokenizes its whole text)."""

    url: str
    periods: list[Period]
    captures: int
    latest: int
    rank: float


def _found(
    query: Query,
    order: dict[str, float],
    since: datetime | None,
    until: datetime | None,
) -> list[_Found]:
    if not order:
        return []
    versions = versions_of(order)
    matching = matching_docs(query, (doc for docs in versions.values() for doc in docs.values()))
    by_url: dict[str, list[CaptureRow]] = {}
    for row in captures_by_url(list(order)):
        by_url.setdefault(row.url, []).append(row)
    low = _stamp(since) if since is not None else ""
    high = _stamp(until) if until is not None else "99999999999999"
    found: list[_Found] = []
    for url in order:
        digests = versions.get(url, {})
        rows = sorted(
            (row for row in by_url.get(url, ()) if low <= row.stamp <= high),
            key=lambda row: (row.stamp, row.offset),
        )
        periods, count, latest = _periods(rows, digests, matching)
        if periods and latest is not None:
            found.append(_Found(url, periods, count, latest, order[url]))
    return found


def _hits(query: Query, found: list[_Found]) -> list[SearchHit]:
    texts = doc_texts(one.latest for one in found)
    hits: list[SearchHit] = []
    for one in found:
        title, body = texts.get(one.latest, (None, ""))
        passage: Snippet = snippet(body, query)
        hits.append(
            SearchHit(
                url=one.url,
                title=title,
                snippet=passage.text,
                marks=passage.marks,
                first_seen=one.periods[0].start,
                last_seen=one.periods[-1].end,
                gone_at=one.periods[-1].gone,
                captures=one.captures,
                periods=tuple(one.periods),
                rank=one.rank,
            )
        )
    return hits


def _periods(
    rows: list[CaptureRow], digests: dict[str, int], matching: set[int]
) -> tuple[list[Period], int, int | None]:
    """The runs of matching captures, how many match, and the latest matching document."""
    periods: list[Period] = []
    start = end = None
    count = 0
    latest = None
    for row in rows:
        doc = digests.get(row.digest)
        if doc is not None and doc in matching:
            when = _time(row.stamp)
            if start is None:
                start = when
            end = when
            count += 1
            latest = doc
        elif row.status.startswith("5"):
            continue  # a server error: the text may be there still
        elif start is not None and end is not None:
            periods.append(Period(start, end, _time(row.stamp)))
            start = end = None
    if start is not None and end is not None:
        periods.append(Period(start, end, None))
    return periods, count, latest


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m%d%H%M%S")


def _time(stamp: str) -> datetime:
    return datetime(
        int(stamp[0:4]),
        int(stamp[4:6]),
        int(stamp[6:8]),
        int(stamp[8:10]),
        int(stamp[10:12]),
        int(stamp[12:14]),
    )
