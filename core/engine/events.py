"""Progress events: plain frozen values handed to an observer in batches.

The engine calls ``observer(events)`` from its own thread; the GUI relays the batch as a
Qt signal, the CLI prints or ignores it. Nothing here knows Qt.

Counts (:class:`RoundFinished`, :class:`StatsSnapshot`, :class:`CrawlSummary`, and the
JSON of ``recrawl crawl --json``, docs/design.md §8). Every fetch attempt that is recorded
counts once, as either

- **fetched**: the server answered and the answer became the page's state: a page (2xx),
  not modified (304), a redirect, or gone (other 4xx). ``pages_per_s`` is these per
  second of the crawl's wall-clock time;
- **errors**: the attempt failed and the page will be tried again (or given up on): no
  HTTP response (network error, timeout), a 5xx, a 429/503 not retried within the
  round, or a response the engine could not process.

Pages robots.txt denies are never requested and not counted; a 429/503 retried within
the round counts once, by its last attempt. ``fetched + errors`` are the attempts
``CrawlSettings.max_pages`` bounds. **new_urls**: pages the store added (discovered links
that passed the filter chain and were not yet known). **new_pages** and
**changed_pages**, **gone_pages**, **back_pages**: the news items ``new``, ``changed``,
``gone`` and ``back`` the crawl recorded (docs/design.md §10; ``crawl --json`` has them
beside §8's keys). **baseline_pages**: pages archived by their host's first crawl, which
are no ``new`` items but their host's one ``baseline`` (§15); **baselines_done**: the
baselines a round completed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from recrawl.core.clock import to_iso


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round: int
    segment: str
    queued: int
    at: datetime


@dataclass(frozen=True, slots=True)
class PageFetched:
    url: str
    status: str
    http_status: int | None
    change: str
    bytes: int
    elapsed_ms: float
    error: str | None = None
    #: ``page``, or ``embed``: something a page needs to be seen (docs/design.md §14).
    kind: str = "page"
    #: The news the fetch made (docs/design.md §10, §15): ``new``, ``changed``, ``gone``,
    #: ``back``, ``baseline`` (archived by its host's first crawl); None: none.
    news: str | None = None


@dataclass(frozen=True, slots=True)
class LinkRejected:
    url: str
    source: str
    filter: int | None
    filter_name: str | None
    line: int | None


@dataclass(frozen=True, slots=True)
class LogMessage:
    level: str  # "info", "warning", "error"
    text: str


@dataclass(frozen=True, slots=True)
class BaselineDone:
    """A host's first crawl is done (docs/design.md §15): its seed and the pages it archived."""

    host: str
    url: str | None
    pages: int


@dataclass(frozen=True, slots=True)
class RoundFinished:
    """A round's counts (module docstring, "Counts")."""

    round: int
    segment: str
    fetched: int
    errors: int
    new_urls: int
    #: News of the round (docs/design.md §10): pages fetched successfully for the first time,
    #: and fetches whose change was ``changed``.
    new_pages: int = 0
    changed_pages: int = 0
    #: What pages embed, counted apart from the pages (docs/design.md §14).
    embeds_fetched: int = 0
    embed_errors: int = 0
    #: Pages that went (a 4xx, or failures past the retries) and came back (§10).
    gone_pages: int = 0
    back_pages: int = 0
    #: Pages archived by their host's first crawl (§15), and the baselines the round's
    #: end completed (the host had nothing left unfetched).
    baseline_pages: int = 0
    baselines_done: tuple[BaselineDone, ...] = ()


@dataclass(frozen=True, slots=True)
class StatsSnapshot:
    """Progress every ``CrawlSettings.event_interval``: the crawl's totals so far (module
    docstring, "Counts"); ``queued`` and ``round_done`` are the current round's: its
    pages, and how many of them are done (fetched, failed or denied by robots.txt)."""

    round: int
    queued: int
    round_done: int
    fetched: int
    errors: int
    new_urls: int
    pages_per_s: float
    paused: bool
    #: What pages embed, counted apart from the pages (docs/design.md §14).
    embeds_fetched: int = 0
    embed_errors: int = 0


@dataclass(frozen=True, slots=True)
class PossibleTrap:
    """A pattern a crawl held back as a possible trap (``crawl --json``'s
    ``possible_traps``): ``kind`` is the limit, ``sequence`` or ``lattice``;
    ``held``, how many links of it were held back."""

    pattern: str
    kind: str
    held: int


@dataclass(frozen=True, slots=True)
class CrawlSummary:
    """A crawl's totals (module docstring, "Counts"); :meth:`to_json` is docs/design.md §8's."""

    rounds: int
    fetched: int
    new_urls: int
    errors: int
    elapsed_s: float
    pages_per_s: float
    segments: list[str] = field(default_factory=list)
    stopped: bool = False
    #: News of the crawl (docs/design.md §10), as in :class:`RoundFinished`.
    new_pages: int = 0
    changed_pages: int = 0
    #: What pages embed, counted apart (docs/design.md §14), as in :class:`RoundFinished`.
    embeds_fetched: int = 0
    embed_errors: int = 0
    #: Patterns held back as possible traps (to follow one: ``traps.allowed_patterns``).
    possible_traps: list[PossibleTrap] = field(default_factory=list)
    #: As in :class:`RoundFinished` (docs/design.md §10, §15).
    gone_pages: int = 0
    back_pages: int = 0
    baseline_pages: int = 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("stopped")
        data["elapsed_s"] = round(self.elapsed_s, 3)
        data["pages_per_s"] = round(self.pages_per_s, 2)
        return data


@dataclass(frozen=True, slots=True)
class CrawlFinished:
    summary: CrawlSummary


@dataclass(frozen=True, slots=True)
class WatchSleeping:
    """A watcher (``recrawl watch``, the app's Watch) goes to sleep until ``until``, the
    next page's due time or an offline back-off (None: no page will ever be due); woken
    earlier by a change of seeds, chain, schedule or settings."""

    until: datetime | None


@dataclass(frozen=True, slots=True)
class WatchRound:
    """A watcher's round, after its RoundFinished: ``recrawl watch --json``'s line
    (docs/design.md §10). ``next_due_at``: the earliest next fetch of any page after the
    round (now or earlier when pages are still due; None: none ever)."""

    started_at: datetime
    fetched: int
    new_pages: int
    changed_pages: int
    errors: int
    next_due_at: datetime | None
    #: What pages embed, fetched in the round (docs/design.md §14).
    embeds_fetched: int = 0
    #: As in :class:`RoundFinished` (docs/design.md §10, §15).
    gone_pages: int = 0
    back_pages: int = 0
    baseline_pages: int = 0
    baselines_done: tuple[BaselineDone, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "started_at": to_iso(self.started_at),
            "fetched": self.fetched,
            "new_pages": self.new_pages,
            "changed_pages": self.changed_pages,
            "gone_pages": self.gone_pages,
            "back_pages": self.back_pages,
            "baseline_pages": self.baseline_pages,
            "errors": self.errors,
            "next_due_at": to_iso(self.next_due_at),
            "embeds_fetched": self.embeds_fetched,
        }


@dataclass(frozen=True, slots=True)
class Compacted:
    """Compaction by policy folded a finished period's segments (docs/design.md §18), after
    a crawl or between a watcher's rounds, or ``failed`` to (a warning; nothing changed);
    ``text`` is the log's line for it."""

    segments: tuple[str, ...]
    new_segment: str | None
    text: str
    failed: bool = False

    @property
    def line(self) -> str:
        """The line for a terminal: a failure is a warning."""
        return f"warning: {self.text}" if self.failed else self.text


Event = (
    RoundStarted
    | PageFetched
    | LinkRejected
    | LogMessage
    | RoundFinished
    | StatsSnapshot
    | CrawlFinished
    | WatchSleeping
    | WatchRound
    | Compacted
)
Observer = Callable[[Sequence[Event]], None]


class EventQueue:
    """Events gathered as they happen, handed to the observer in batches by :meth:`flush`."""

    def __init__(self, observer: Observer | None) -> None:
        self.observer = observer
        self._pending: list[Event] = []
        self._lock = threading.Lock()

    def emit(self, event: Event) -> None:
        if self.observer is not None:
            with self._lock:
                self._pending.append(event)

    def flush(self) -> None:
        if self.observer is None:
            return
        with self._lock:
            batch, self._pending = self._pending, []
        if batch:
            self.observer(batch)
