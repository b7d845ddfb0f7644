"""The project's kept crawl settings: what the next round crawls with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from recrawl.core import store
from recrawl.core.policy import capture_modes, crawl_settings
from recrawl.core.policy.capture_modes import ModeSwitch
from recrawl.core.services.service import Service


@dataclass(frozen=True)
class Saved:
    #: Every setting kept, the hosts' capture modes as ``capture.mode@HOST``.
    kept: dict[str, object]
    #: The hosts whose capture mode changed, and their pages that lost their signatures.
    switch: ModeSwitch


class SettingsService(Service):
    def save(self, changes: Mapping[str, object | None]) -> dict[str, object]:
        """Keep ``changes`` (None: the default again); returns all kept. A watcher crawls
        with them from its next round."""
        return self.update(changes).kept

    def update(self, changes: Mapping[str, object | None]) -> Saved:
        """:meth:`save`, saying which hosts' capture mode changed (by ``capture.mode``, or
        a host's own ``capture.mode@HOST``): their pages' signatures are forgotten in the
        same transaction, so the next fetch of each is ``unknown``, not a false change."""
        with self.project.active(), store.transaction():
            before = capture_modes.kept_modes(crawl_settings.stored())
            kept = crawl_settings.save(changes)
            after = capture_modes.kept_modes(kept)
            switch = capture_modes.forget_switched(before, after)
        self.changed()
        return Saved(kept, switch)
