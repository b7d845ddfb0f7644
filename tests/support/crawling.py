"""Helpers for crawl tests: fast settings, a clock at a fixed instant, running a crawl,
collecting its events, and reading pages and their fetch history from the store."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from recrawl.core.clock import Clock, parse_iso
from recrawl.core.config import (
    CompactionSettings,
    CrawlSettings,
    FetchSettings,
    PolitenessSettings,
)
from recrawl.core.engine import Crawler, Event, LogMessage, PageFetched
from recrawl.core.project import Project
from recrawl.core.store.models import FetchEvent, Page

T0 = parse_iso("2027-01-01T00:00:00Z")
DAY = timedelta(days=1)


def fast_settings(**overrides: object):
    """Crawl settings for loopback tests: no politeness delay, short timeouts, no
    compaction by policy."""
    politeness = replace(PolitenessSettings(), delay=0.0, per_host=4, concurrency=8)
    fetch = replace(FetchSettings(), read_timeout=2.0, connect_timeout=2.0, total_timeout=10.0)
    # each round's segment stays as written: tests read a round's records where it wrote
    # them; compaction by policy is tested on its own (tests/core/archive/compaction/)
    compaction = CompactionSettings(auto=False)
    settings = CrawlSettings(politeness=politeness, fetch=fetch, compaction=compaction)
    return replace(settings, **overrides)


def crawl(project: Project, settings=None, **kwargs):
    """Run a crawl to completion on the calling thread; returns its summary."""
    return Crawler(project, settings or fast_settings(), **kwargs).run()


def clock_at(offset: timedelta = timedelta(0)) -> Clock:
    """A clock running from T0 + offset (it still advances in real time)."""
    return Clock(T0 + offset)


def settings(
    *,
    read_timeout: float = 0.5,
    total_timeout: float | None = 2.0,
    max_body_bytes: int | None = None,
    politeness: dict | None = None,
    **overrides: object,
):
    """fast_settings with short timeouts; ``politeness`` overrides PolitenessSettings fields."""
    base = fast_settings()
    fetch = replace(
        base.fetch,
        read_timeout=read_timeout,
        connect_timeout=0.5,
        total_timeout=total_timeout,
    )
    if max_body_bytes is not None:
        fetch = replace(fetch, max_body_bytes=max_body_bytes)
    pol = base.politeness
    if politeness:
        pol = replace(pol, **politeness)
    return replace(base, fetch=fetch, politeness=pol, **overrides)


class Events(list):
    """An observer that keeps every event of every batch."""

    def __call__(self, batch) -> None:
        self.extend(batch)

    def of(self, kind: type) -> list[Event]:
        return [e for e in self if isinstance(e, kind)]

    def logs(self, level: str | None = None) -> list[LogMessage]:
        return [e for e in self.of(LogMessage) if level is None or e.level == level]

    def fetched(self, url: str) -> list[PageFetched]:
        return [e for e in self.of(PageFetched) if e.url == url]


def page(url: str) -> Page:
    found = Page.get_or_none(Page.url == url)
    assert found is not None, f"no page {url}"
    return found


def events_of(url: str) -> list[FetchEvent]:
    return list(
        FetchEvent.select()
        .join(Page)
        .where(Page.url == url)
        .order_by(FetchEvent.fetched_at, FetchEvent.id)
    )
