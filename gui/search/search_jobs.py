"""What the Search panel asks of the store thread: plain functions returning plain values.

Each runs inside ``context.jobs.submit`` (never on the GUI thread). A query the user is
still typing may be overtaken by the next one before its turn comes: it is then not run
at all (:func:`search_for` asks ``wanted`` first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

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


def build_index(
    folder: Path, progress: Callable[[int, int], None], should_stop: Callable[[], bool]
) -> int:
    """STAND-IN until the pipeline's build lands: every page's response captures indexed."""
    from recrawl.core.archive.captures import capture_payload, find_captures
    from recrawl.core.content.search_text import document_of, indexed_text
    from recrawl.core.store.models import Page
    from recrawl.core.store.search import COMPLETE, add_texts, set_search_state

    urls = [url for (url,) in Page.select(Page.url).where(Page.kind == "page").tuples().iterator()]
    total = len(urls)
    done = 0
    progress(0, total)
    for url in urls:
        if should_stop():
            return done
        rows = []
        for capture in find_captures(folder, url):
            if capture.record_type != "response":
                continue
            record = capture_payload(folder, capture)
            headers = {k.lower(): v for k, v in record.http_headers}
            document = document_of(record.body, headers.get("content-type"), url)
            if document is not None:
                rows.append(indexed_text(url, capture.digest, document))
        with store.transaction():
            add_texts(rows)
        done += 1
        progress(done, total)
    set_search_state(COMPLETE)
    return done
