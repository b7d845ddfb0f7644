"""What the Search panel asks of the store thread: plain functions returning plain values.

Each runs inside ``context.jobs.submit`` (never on the GUI thread). A query the user is
still typing may be overtaken by the next one before its turn comes: it is then not run
at all (:func:`search_for` asks ``wanted`` first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from recrawl.core import store
from recrawl.core.archive.search import SearchResults, search
from recrawl.core.errors import QueryError
from recrawl.core.store.search import search_state

#: Pages listed for one query at most.
LIMIT = 50


@dataclass(frozen=True)
class Asked:
    """One search as the panel asks it (times naive UTC)."""

    text: str
    site: str | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True)
class Answer:
    asked: Asked
    #: The results (None: the query had nothing to search for, or was overtaken).
    results: SearchResults | None
    #: Why there are none: the query's one-line error.
    error: str | None = None
    #: Overtaken by a newer query before it ran: nobody wants it.
    skipped: bool = False


def search_for(asked: Asked, wanted: Callable[[], bool]) -> Answer:
    """The results of ``asked``, or its :class:`~recrawl.core.errors.QueryError` as a line."""
    if not wanted():
        return Answer(asked, None, skipped=True)
    try:
        results = search(
            asked.text, site=asked.site, since=asked.since, until=asked.until, limit=LIMIT
        )
    except QueryError as exc:
        return Answer(asked, None, str(exc))
    return Answer(asked, results)


@dataclass(frozen=True)
class Start:
    """What the panel needs once: the sites to choose from, whether the index is whole."""

    hosts: tuple[str, ...]
    complete: bool
    #: The first and the latest capture of the project (None: no capture yet).
    span: tuple[datetime, datetime] | None


def start() -> Start:
    stamps = store.capture_span()
    span = None
    if stamps is not None:
        first, last = (datetime.strptime(stamp, "%Y%m%d%H%M%S") for stamp in stamps)
        span = (first, last)
    return Start(tuple(store.page_hosts()), search_state().complete, span)
