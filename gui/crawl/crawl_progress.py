"""What the Crawl panel shows of a running crawl, kept apart from its widgets (no Qt).

The engine's snapshots carry totals since the crawl started; the panel wants what is
happening now. :class:`CrawlProgress` keeps the totals, this round's pages done, and a
current rate: pages fetched over the last :data:`RATE_WINDOW_S` seconds, from the
snapshots' counts (an average since the start would draw a pause as a slow slope).
What pages embed (docs/design.md §14) is counted apart, as the engine counts it: the rate,
the round's pages done and the errors are the pages' alone.
:class:`Downsampled` keeps that rate for the whole crawl in a bounded number of points:
when it fills up, neighbouring points are merged, so an eight-hour crawl still draws
from its first minute.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Iterable
from dataclasses import dataclass

from recrawl.core.engine import (
    Compacted,
    CrawlSummary,
    Event,
    LinkRejected,
    LogMessage,
    PageFetched,
    RoundFinished,
    RoundStarted,
    StatsSnapshot,
)
from recrawl.core.store import embed_rule_name
from recrawl.core.store.models import NewsKind, PageKind, PageStatus
from recrawl.core.words import plural
from recrawl.gui.common.formatting import baseline_done_text, embeds_done, news_done

#: The current rate is the pages fetched over this many seconds.
RATE_WINDOW_S = 5.0
#: The plot keeps at most this many points (and at least half as many, once full).
MAX_POINTS = 1000


class Downsampled:
    """(t, y) points in time order, at most ``limit``; pairs merge (mean) when full."""

    def __init__(self, limit: int = MAX_POINTS) -> None:
        if limit < 2:
            raise ValueError("keep at least two points")
        self.limit = limit
        #: Points merged into each kept point: doubles each time the series fills.
        self.span = 1
        self._points: list[tuple[float, float]] = []
        self._pending: list[tuple[float, float]] = []  # the next point, not yet whole

    def add(self, t: float, y: float) -> None:
        self._pending.append((t, y))
        if len(self._pending) < self.span:
            return
        self._points.append(_mean(self._pending))
        self._pending = []
        if len(self._points) > self.limit:
            self._points = [_mean(self._points[i : i + 2]) for i in range(0, len(self._points), 2)]
            self.span *= 2

    def points(self) -> list[tuple[float, float]]:
        """The kept points, then the newest ones not yet merged into one."""
        return self._points + ([_mean(self._pending)] if self._pending else [])

    def clear(self) -> None:
        self.span = 1
        self._points, self._pending = [], []


def _mean(points: list[tuple[float, float]]) -> tuple[float, float]:
    count = len(points)
    return (sum(t for t, _ in points) / count, sum(y for _, y in points) / count)


@dataclass
class RoundProgress:
    number: int = 0
    #: Pages queued for the round, and how many are done (fetched, failed, denied).
    queued: int = 0
    done: int = 0


class CrawlProgress:
    """A crawl's progress as the panel shows it; fed events with their arrival times."""

    def __init__(self, window_s: float = RATE_WINDOW_S, max_points: int = MAX_POINTS) -> None:
        self.window_s = window_s
        self.rates = Downsampled(max_points)
        self._counts: deque[tuple[float, int]] = deque()  # (t, fetched) in the window
        self.start(0.0)

    def start(self, t: float) -> None:
        """Forget the last crawl: a new one starts at ``t``."""
        self.rates.clear()
        self.round = RoundProgress()
        self.fetched = self.errors = self.new_urls = 0
        #: What pages embed, fetched and failed (not among the pages' counts).
        self.embeds_fetched = self.embed_errors = 0
        #: A watch runs one crawl after another, whose snapshots each count from zero:
        #: the totals of the crawls that ended, added to each snapshot's.
        self._before = (0, 0, 0, 0, 0)
        self.paused = False
        self.started = t
        #: The crawl's length once it has ended (None while it runs).
        self.ended_after: float | None = None
        self._counts.clear()
        self._counts.append((t, 0))

    def elapsed(self, t: float) -> float:
        if self.ended_after is not None:
            return self.ended_after
        return max(0.0, t - self.started)

    def rate(self) -> float:
        """Pages fetched per second over the last ``window_s`` (or since the start)."""
        if len(self._counts) < 2:
            return 0.0
        (t0, n0), (t1, n1) = self._counts[0], self._counts[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else 0.0

    def snapshot(self, t: float, snap: StatsSnapshot) -> None:
        fetched, errors, new_urls, embeds, embed_errors = self._before
        self.fetched, self.errors = fetched + snap.fetched, errors + snap.errors
        self.new_urls = new_urls + snap.new_urls
        self.embeds_fetched = embeds + snap.embeds_fetched
        self.embed_errors = embed_errors + snap.embed_errors
        self.paused = snap.paused
        self.round = RoundProgress(snap.round, max(snap.queued, 1), snap.round_done)
        self._counts.append((t, self.fetched))
        # keep one count at or before the window's start, so the rate spans the window
        while len(self._counts) > 2 and self._counts[1][0] <= t - self.window_s:
            self._counts.popleft()
        self.rates.add(self.elapsed(t), self.rate())

    def round_started(self, event: RoundStarted) -> None:
        self.round = RoundProgress(event.round, max(event.queued, 1), 0)

    def round_finished(self, event: RoundFinished) -> None:
        # What the round really did: a stopped round leaves pages undone, so the bar
        # never jumps to full. The last snapshot may be up to one tick old.
        done = max(self.round.done, event.fetched + event.errors)
        self.round = RoundProgress(event.round, self.round.queued, min(done, self.round.queued))

    def crawl_finished(self, summary: CrawlSummary) -> None:
        """One crawl of a watch ended (its CrawlFinished): the next counts from zero."""
        fetched, errors, new_urls, embeds, embed_errors = self._before
        self._before = (
            fetched + summary.fetched,
            errors + summary.errors,
            new_urls + summary.new_urls,
            embeds + summary.embeds_fetched,
            embed_errors + summary.embed_errors,
        )
        self._set_totals(*self._before)

    def _set_totals(
        self, fetched: int, errors: int, new_urls: int, embeds: int, embed_errors: int
    ) -> None:
        self.fetched, self.errors, self.new_urls = fetched, errors, new_urls
        self.embeds_fetched, self.embed_errors = embeds, embed_errors

    def idle(self, t: float) -> None:
        """Nothing is fetched from ``t`` on (a watch sleeps): the rate drops to zero."""
        self._counts.clear()
        self._counts.append((t, self.fetched))
        self.rates.add(self.elapsed(t), 0.0)

    def finished(self, summary: CrawlSummary) -> None:
        """The crawl ended: its own totals replace the last snapshot's (a tick old)."""
        self._set_totals(
            summary.fetched,
            summary.errors,
            summary.new_urls,
            summary.embeds_fetched,
            summary.embed_errors,
        )
        self.ended(summary.elapsed_s)

    def ended(self, elapsed_s: float) -> None:
        """The crawl (or watch) ended after ``elapsed_s``; the totals stay as they are."""
        self.paused = False
        self.ended_after = elapsed_s


class LogTail:
    """The log's lines to come, as the events that make them: only the last ``limit``
    are kept, and they become text when taken. A batch of 100,000 rejected links (one
    page's) then costs the window a few appends each, not 100,000 sentences it would
    trim away (the log keeps ``limit`` lines)."""

    def __init__(self, limit: int) -> None:
        self._items: deque[Event | str] = deque(maxlen=limit)

    def add(self, line: str) -> None:
        self._items.append(line)

    def extend(self, events: Iterable[Event]) -> None:
        """The events of a batch that make lines (the rest would push them out)."""
        self._items.extend(
            event
            for event in events
            if isinstance(event, _LINE_EVENTS)
            or (isinstance(event, PageFetched) and (event.error or event.news == NewsKind.GONE))
        )

    def take(self) -> list[str]:
        """The lines since the last take, oldest first."""
        items, self._items = self._items, deque(maxlen=self._items.maxlen)
        # a round's line is followed by those of the first crawls it completed
        return [
            line for item in items if (text := log_line(item)) is not None
            for line in text.split("\n")
        ]  # fmt: skip

    def clear(self) -> None:
        self._items.clear()


_LINE_EVENTS = (LinkRejected, LogMessage, RoundFinished, Compacted)

#: What the log's lines are, by the words a line starts with before two spaces (as
#: :func:`log_line` writes them): the log can show some kinds only. A line without such
#: a start (a round's counts, a crawl's summary) is progress.
LOG_KINDS = {
    "error": "errors",
    "embed error": "errors",
    "warning": "warnings",
    "rejected": "rejected",
    "embed rejected": "rejected",
    "denied": "denied",
    "embed denied": "denied",
    "info": "progress",
}
#: The kinds as the log's filter offers them, in its order.
LOG_KIND_TITLES = {
    "errors": "Errors",
    "warnings": "Warnings",
    "rejected": "Rejected",
    "denied": "Robots.txt",
    "progress": "Rounds",
}


LOG_KIND_TIPS = {
    "errors": "fetches that failed",
    "warnings": "what the crawl warns of (a trap, a long Retry-After, a source cut)",
    "rejected": "links the filter chain turned away",
    "denied": "pages and embeds robots.txt does not allow",
    "progress": "rounds' counts, crawls' summaries, messages",
}


def log_kind(line: str) -> str:
    """The kind of a log line (:data:`LOG_KINDS`)."""
    start, sep, _ = line.partition("  ")
    return LOG_KINDS.get(start, "progress") if sep else "progress"


class LogLines:
    """The log's last lines with their kinds, to show all or some kinds of them."""

    def __init__(self, limit: int) -> None:
        self._lines: deque[tuple[str, str]] = deque(maxlen=limit)
        #: Lines of each kind since the log was last cleared (not only those kept).
        self.counts: dict[str, int] = dict.fromkeys(LOG_KIND_TITLES, 0)

    def extend(self, lines: Iterable[str]) -> list[tuple[str, str]]:
        """Keep ``lines``; returns them with their kinds."""
        added = [(log_kind(line), line) for line in lines]
        self._lines.extend(added)
        for kind, _ in added:
            self.counts[kind] += 1
        return added

    def shown(self, kinds: Container[str]) -> list[str]:
        """The lines kept of the ``kinds``, oldest first."""
        return [line for kind, line in self._lines if kind in kinds]


def log_line(item: Event | str) -> str | None:
    """The log's line for an event (None if it makes none), or the text itself."""
    if isinstance(item, str):
        return item
    if isinstance(item, PageFetched):
        if item.news == NewsKind.GONE:  # the page went: with the answer that says so
            return f"gone  {item.url}: {_gone_reason(item)}"
        if not item.error:
            return None
        # robots.txt's answer is not a failure (the crawl counts no error)
        kind = "denied" if item.status == PageStatus.ROBOTS_DENIED else "error"
        if item.kind == PageKind.EMBED:  # counted apart from the pages' errors
            kind = f"embed {kind}"
        return f"{kind}  {item.url}: {item.error}"
    if isinstance(item, LinkRejected):
        rule = f"line {item.line}" if item.line is not None else "no rule matched"
        embed_rule = embed_rule_name(item.filter_name or "")
        if embed_rule is not None:
            return (
                f"embed rejected  {item.url} (embed rule {embed_rule}, {rule}; "
                f"embedded by {item.source})"
            )
        where = item.filter_name or item.filter
        return f"rejected  {item.url} (filter {where}, {rule}; linked from {item.source})"
    if isinstance(item, LogMessage):
        return f"{item.level}  {item.text}"
    if isinstance(item, Compacted):  # compaction by policy (docs/design.md §18): progress
        return f"{'warning' if item.failed else 'info'}  {item.text}"
    if isinstance(item, RoundFinished):
        news = news_done(  # what the What's new panel lists
            item.new_pages, item.changed_pages, item.gone_pages, item.back_pages,
            item.baseline_pages,
        )  # fmt: skip
        embeds = embeds_done(item.embeds_fetched, item.embed_errors)
        line = (
            f"round {item.round} done: {plural(item.fetched, 'page')} fetched, "
            f"{plural(item.errors, 'error')}, {f'{embeds}, ' if embeds else ''}"
            f"{plural(item.new_urls, 'new URL')}{f', {news}' if news else ''} "
            f"(segment {item.segment})"
        )
        done = [baseline_done_text(d.host, d.pages) for d in item.baselines_done]
        return "\n".join([line, *done])
    return None


def _gone_reason(item: PageFetched) -> str:
    """``HTTP 404``, or why the last attempt failed (failures past the retries)."""
    if item.http_status is not None and 400 <= item.http_status < 500:
        return f"HTTP {item.http_status}"
    return item.error or (f"HTTP {item.http_status}" if item.http_status else "no answer")
