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

from dataclasses import dataclass, field, replace
from datetime import datetime

from recrawl.core.content.search_text import Query, Snippet, parse_query, version_snippet
from recrawl.core.store.captures import CaptureRow, captures_by_url
from recrawl.core.store.search import (
    Version,
    matching_versions,
    ranked_generations,
    search_state,
)

#: Generations read from the index per page asked for (some have no matching version).
_OVERFETCH = 2
#: At most this many generations are ranked for one query's pages.
_MOST_DOCS = 20_000
#: ... and of those holding an excluded word somewhere (each is read version by version).
_MOST_EXCLUDING = 2_000


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
    #: The latest matching version (its snippet's).
    latest: Version | None = field(default=None, repr=False, compare=False)


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
    hits: list[SearchHit] = []
    done: set[str] = set()
    # with exclusions, the generations without them first: every version there lacks
    # them; then the others, whose versions are read one by one, a few thousand at most
    passes = (
        [(True, _MOST_DOCS), (False, _MOST_EXCLUDING)] if query.excluded else [(False, _MOST_DOCS)]
    )
    for whole, most in passes:
        fetch = max(limit, 1) * _OVERFETCH
        while len(hits) < limit:
            ranked = ranked_generations(query, site, fetch, whole=whole)
            order: dict[str, float] = {}
            for url, score in ranked:
                if url not in done and url not in order:
                    order[url] = score
            hits += _hits(query, order, since, until)
            done.update(order)
            if len(ranked) < fetch:
                break
            if fetch >= most:
                if len(hits) < limit:
                    notes.append(
                        f"only the best {most:,} page histories with these words were read"
                        + ("" if whole else ", an excluded one among them")
                    )
                break
            fetch = min(fetch * 4, most)  # pages dropped (no capture in range): read on
    hits.sort(key=lambda hit: -hit.rank)
    kept = tuple(_with_snippet(hit, query) for hit in hits[:limit])
    return SearchResults(query, kept, tuple(notes))


def _with_snippet(hit: SearchHit, query: Query) -> SearchHit:
    if hit.latest is None:
        return hit
    passage: Snippet = version_snippet(hit.latest.paragraphs, hit.latest.words, query)
    return replace(hit, snippet=passage.text, marks=passage.marks)


def _hits(
    query: Query,
    order: dict[str, float],
    since: datetime | None,
    until: datetime | None,
) -> list[SearchHit]:
    if not order:
        return []
    versions = matching_versions(query, order)
    by_url: dict[str, list[CaptureRow]] = {}
    for row in captures_by_url([url for url in order if url in versions]):
        by_url.setdefault(row.url, []).append(row)
    low = _stamp(since) if since is not None else ""
    high = _stamp(until) if until is not None else "99999999999999"
    hits: list[SearchHit] = []
    for url, score in order.items():
        matching = versions.get(url)
        if not matching:
            continue
        rows = sorted(
            (row for row in by_url.get(url, ()) if low <= row.stamp <= high),
            key=lambda row: (row.stamp, row.offset),
        )
        periods, count, latest = _periods(rows, matching)
        if not periods or latest is None:
            continue
        hits.append(
            SearchHit(
                url=url,
                title=latest.title,
                snippet="",  # made for the hits kept (search's end): a cost per hit
                marks=(),
                latest=latest,
                first_seen=periods[0].start,
                last_seen=periods[-1].end,
                gone_at=periods[-1].gone,
                captures=count,
                periods=tuple(periods),
                rank=score,
            )
        )
    return hits


def _periods(
    rows: list[CaptureRow], matching: dict[str, Version]
) -> tuple[list[Period], int, Version | None]:
    """The runs of matching captures, how many match, and the latest matching version."""
    periods: list[Period] = []
    start = end = None
    count = 0
    latest = None
    for row in rows:
        version = matching.get(row.digest)
        if version is not None:
            when = _time(row.stamp)
            if start is None:
                start = when
            end = when
            count += 1
            latest = version
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
