"""The crawl engine: rounds of generate → fetch → parse → filter → update → segment.

The public surface, named here; callers write ``from recrawl.core.engine import Crawler``:

    Crawler, CrawlSummary          run a crawl (the synchronous facade) and its result
    inject, InjectResult           add seed URLs to a project
    Event, Observer, RoundStarted, PageFetched, LinkRejected, LogMessage,
    RoundFinished, StatsSnapshot, CrawlFinished, WatchSleeping, WatchRound,
    Compacted
                                   progress events handed to an observer in batches

Names load on first use (PEP 562): importing the events alone, as quick commands do,
does not start up httpx, numpy and the parsers.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recrawl.core.engine.crawl import Crawler
    from recrawl.core.engine.events import (
        Compacted,
        CrawlFinished,
        CrawlSummary,
        Event,
        LinkRejected,
        LogMessage,
        Observer,
        PageFetched,
        RoundFinished,
        RoundStarted,
        StatsSnapshot,
        WatchRound,
        WatchSleeping,
    )
    from recrawl.core.engine.seeds import InjectResult, inject

_HOMES = {
    "Crawler": "crawl",
    "inject": "seeds",
    "InjectResult": "seeds",
    **dict.fromkeys(
        (
            "Compacted",
            "CrawlFinished",
            "CrawlSummary",
            "Event",
            "LinkRejected",
            "LogMessage",
            "Observer",
            "PageFetched",
            "RoundFinished",
            "RoundStarted",
            "StatsSnapshot",
            "WatchRound",
            "WatchSleeping",
        ),
        "events",
    ),
}

__all__ = [
    "Compacted",
    "CrawlFinished",
    "CrawlSummary",
    "Crawler",
    "Event",
    "InjectResult",
    "LinkRejected",
    "LogMessage",
    "Observer",
    "PageFetched",
    "RoundFinished",
    "RoundStarted",
    "StatsSnapshot",
    "WatchRound",
    "WatchSleeping",
    "inject",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # looked up once
    return value
