"""The project's kept crawl settings: what the next round crawls with."""

from __future__ import annotations

from collections.abc import Mapping

from recrawl.core.policy import crawl_settings
from recrawl.core.services.service import Service


class SettingsService(Service):
    def save(self, changes: Mapping[str, object | None]) -> dict[str, object]:
        """Keep ``changes`` (None: the default again); returns all kept. A watcher crawls
        with them from its next round."""
        with self.project.active():
            kept = crawl_settings.save(changes)
        self.changed()
        return kept
