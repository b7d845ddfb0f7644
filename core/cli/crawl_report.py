"""What ``recrawl crawl`` tells people: each round as it ends, then the summary.

The summary names the fetches that failed and why (the first few, then how many more),
from the crawl's own events: a count of errors alone sends the user to the store to
find out which page failed.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from recrawl.core import store
from recrawl.core.clock import human_duration
from recrawl.core.engine import CrawlSummary, Event, LogMessage, PageFetched, RoundFinished
from recrawl.core.engine.events import BaselineDone, Compacted
from recrawl.core.store.models import NewsKind, PageStatus
from recrawl.core.words import plural

#: Failed fetches the summary names; the rest are counted.
NAMED_FAILURES = 5


def failed(event: PageFetched) -> bool:
    """Whether the fetch counts among the crawl's errors (:mod:`recrawl.core.engine.events`).

    Only a failure leaves a page to retry; a failure past the retries leaves it gone,
    as a 404 does, so a gone page failed unless the server answered 4xx (429 is a
    failure: too many requests).
    """
    if event.status == PageStatus.RETRY:
        return True
    if event.status != PageStatus.GONE:
        return False
    status = event.http_status
    return status is None or status == 429 or not 400 <= status < 500


def gone_reason(event: PageFetched) -> str:
    """``HTTP 404``, or why the last attempt failed (failures past the retries)."""
    if event.http_status is not None and 400 <= event.http_status < 500:
        return f"HTTP {event.http_status}"
    if event.error:
        return event.error
    return f"HTTP {event.http_status}" if event.http_status is not None else "no answer"


class NewsCounts(Protocol):
    """What a round, a watch round and a crawl count of the news (docs/design.md §10, §15)."""

    @property
    def new_pages(self) -> int: ...
    @property
    def changed_pages(self) -> int: ...
    @property
    def gone_pages(self) -> int: ...
    @property
    def back_pages(self) -> int: ...
    @property
    def baseline_pages(self) -> int: ...


def round_news(event: NewsCounts) -> str:
    """``news: 2 new pages, 1 changed, 1 gone, 1 back; first crawl: 40 pages archived``
    (what is there of it; empty for none)."""
    counts = [
        (event.new_pages, plural(event.new_pages, "new page")),
        (event.changed_pages, f"{event.changed_pages} changed"),
        (event.gone_pages, f"{event.gone_pages} gone"),
        (event.back_pages, f"{event.back_pages} back"),
    ]
    parts = []
    shown = [text for count, text in counts if count]
    if shown:
        parts.append("news: " + ", ".join(shown))
    if event.baseline_pages:
        parts.append(f"first crawl: {plural(event.baseline_pages, 'page')} archived")
    return "; ".join(parts)


def baseline_done_line(done: BaselineDone) -> str:
    """The line saying a host's first crawl is done (its one item in `recrawl news`)."""
    return (
        f"first crawl of {done.host} done: {plural(done.pages, 'page')} archived "
        "(one baseline item in `recrawl news`; pages found from now on are new)"
    )


def compaction_lines(events: Sequence[Event]) -> None:
    """What compaction by policy did (docs/design.md §18), a line each on stderr: the
    observer of ``crawl --json``, whose stdout is the summary alone."""
    for event in events:
        if isinstance(event, Compacted):
            print(event.line, file=sys.stderr)


class CrawlReport:
    """The observer of a crawl run for people: prints rounds, remembers failures."""

    def __init__(self, named: int = NAMED_FAILURES) -> None:
        self.named = named
        #: The first ``named`` failed fetches: (url, reason).
        self.failures: list[tuple[str, str]] = []
        self.failure_count = 0
        self._lock = threading.Lock()  # called on the crawl's thread, read on the main one

    def __call__(self, events: Sequence[Event]) -> None:
        for event in events:
            if isinstance(event, PageFetched) and event.kind == "page" and failed(event):
                self._failed(event)
            if isinstance(event, PageFetched) and event.news == NewsKind.GONE:
                print(f"gone: {event.url} ({gone_reason(event)})", file=sys.stderr)
            elif isinstance(event, RoundFinished):
                news = round_news(event)  # `recrawl news` lists them
                embeds = ""
                if event.embeds_fetched or event.embed_errors:
                    embeds = f", {plural(event.embeds_fetched, 'embed')} fetched"
                    if event.embed_errors:
                        embeds += f" ({plural(event.embed_errors, 'error')})"
                print(
                    f"round {event.round} ({event.segment}): {event.fetched} fetched, "
                    f"{plural(event.errors, 'error')}, {plural(event.new_urls, 'new URL')}"
                    f"{embeds}{f'; {news}' if news else ''}",
                    file=sys.stderr,
                )
                for done in event.baselines_done:
                    print(baseline_done_line(done), file=sys.stderr)
            elif isinstance(event, LogMessage) and event.level != "info":
                print(f"{event.level}: {event.text}", file=sys.stderr)
            elif isinstance(event, Compacted):  # compaction by policy (§18)
                print(event.line, file=sys.stderr)

    def _failed(self, event: PageFetched) -> None:
        if event.error:
            reason = event.error
        elif event.http_status is not None:
            reason = f"HTTP {event.http_status}"
        else:
            reason = "no answer"
        with self._lock:
            self.failure_count += 1
            if len(self.failures) < self.named:
                self.failures.append((event.url, reason))

    def summary_lines(self, summary: CrawlSummary) -> list[str]:
        """The summary, then the failed fetches by URL with their reasons."""
        line = (
            f"{plural(summary.rounds, 'round')}, {summary.fetched} fetched, "
            f"{plural(summary.new_urls, 'new URL')}, {plural(summary.errors, 'error')} "
            f"in {human_duration(summary.elapsed_s)} ({summary.pages_per_s:.1f} pages/s)"
        )
        if summary.embeds_fetched or summary.embed_errors:
            line += f"; {plural(summary.embeds_fetched, 'embed')} fetched"
            if summary.embed_errors:
                line += f" ({plural(summary.embed_errors, 'error')})"
        if news := round_news(summary):
            line += f"; {news}"
        if summary.segments:
            line += f"; {'segment' if len(summary.segments) == 1 else 'segments'} "
            line += ", ".join(summary.segments)
        lines = [line]
        with self._lock:
            failures, count = list(self.failures), max(self.failure_count, summary.errors)
        if failures:
            lines.append("failed:")
            lines += [f"  {url}: {reason}" for url, reason in failures]
            if count > len(failures):
                lines.append(f"  and {count - len(failures)} more")
        return lines


@dataclass(frozen=True)
class DueOutlook:
    """What is due after a crawl: how many pages now, and the earliest next fetch."""

    due: int
    #: The earliest next fetch of a page still crawled (past when some are due; None:
    #: no page will ever be due).
    next_due_at: datetime | None


def due_outlook(now: datetime) -> DueOutlook:
    return DueOutlook(store.count_due(now), store.earliest_next_fetch())


def outlook_line(outlook: DueOutlook, now: datetime, fetched: int, folder: str) -> str:
    """``nothing is due; the next page is due in 6.0 d; `recrawl refetch DIR --all`
    fetches now``: after a crawl, what crawling again would do."""
    if outlook.due:  # a limit, or Ctrl-C, ended the crawl
        return f"{plural(outlook.due, 'page')} still due: `recrawl crawl` again goes on"
    if outlook.next_due_at is None:
        return "nothing is due, and no page will be: `recrawl inject` adds seeds"
    wait = f"the next page is due in {human_duration((outlook.next_due_at - now).total_seconds())}"
    if fetched:
        return f"nothing more is due; {wait}"
    return f"nothing is due; {wait}; `recrawl refetch {folder} --all` fetches now"
