"""Seed URLs and sources added to a project (docs/design.md §11)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from recrawl.core.engine.seeds import InjectResult, inject, inject_sources
from recrawl.core.services.service import Service


class SeedsService(Service):
    def add(self, urls: Sequence[str], now: datetime) -> InjectResult:
        """Add seed URLs (their hosts join the scope); the new ones are due now."""
        with self.project.active():
            result = inject(urls, now)
        if result.added:
            self.changed()
        return result

    def add_sources(self, urls: Sequence[str], kind: str, now: datetime) -> InjectResult:
        """Add sitemaps or feeds (``kind``) to read; the new ones are due now."""
        with self.project.active():
            result = inject_sources(urls, kind, now)
        if result.added:
            self.changed()
        return result
