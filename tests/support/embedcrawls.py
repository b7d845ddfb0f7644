"""Helpers for tests of what pages embed: quick crawl settings, a page's first capture,
what it found missing."""

from __future__ import annotations

from dataclasses import replace

from recrawl.core.config import CrawlSettings
from recrawl.core.store.models import FetchEvent, Page

from tests.support.crawling import settings


def quick(**parse: object) -> CrawlSettings:
    """Short timeouts, no sitemaps or feeds, and these parse settings."""
    base = settings(read_timeout=1.0, total_timeout=3.0)
    base = replace(base, sources=replace(base.sources, enabled=False))
    return replace(base, parse=replace(base.parse, **parse))


def capture_of(url: str) -> FetchEvent:
    """The first fetch event of ``url``'s page."""
    page = Page.get(Page.url == url)
    return FetchEvent.select().where(FetchEvent.page == page).order_by(FetchEvent.id).first()


def missing(event: FetchEvent) -> dict[str, str]:
    """What a capture found missing of its embeds: URL → reason."""
    return dict(map(tuple, event.embeds_missing or []))
