"""Progress events: plain frozen values handed to an observer in batches.

The engine calls ``observer(events)`` from its own thread; the GUI relays the batch as a
Qt signal, the CLI prints or ignores it. Nothing here knows Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime

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
class RoundFinished:
    round: int
    segment: str
    fetched: int
    errors: int
    new_urls: int


@dataclass(frozen=True, slots=True)
class StatsSnapshot:
    round: int
    queued: int
    fetched: int
    errors: int
    new_urls: int
    pages_per_s: float
    paused: bool


@dataclass(frozen=True, slots=True)
class CrawlSummary:
    rounds: int
    fetched: int
    new_urls: int
    errors: int
    elapsed_s: float
    pages_per_s: float
    segments: list[str] = field(default_factory=list)
    stopped: bool = False

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("stopped")
        data["elapsed_s"] = round(self.elapsed_s, 3)
        data["pages_per_s"] = round(self.pages_per_s, 2)
        return data


@dataclass(frozen=True, slots=True)
class CrawlFinished:
    summary: CrawlSummary


Event = (
    RoundStarted
    | PageFetched
    | LinkRejected
    | LogMessage
    | RoundFinished
    | StatsSnapshot
    | CrawlFinished
)
Observer = Callable[[Sequence[Event]], None]


def event_json(event: Event) -> dict:
    data = {"event": type(event).__name__}
    for key, value in asdict(event).items():
        data[key] = to_iso(value) if isinstance(value, datetime) else value
    return data
