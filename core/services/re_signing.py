"""Re-signing: the project's signature switched, its pages' signatures recomputed
(docs/design.md §5, :mod:`recrawl.core.engine.re_signing`)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from recrawl.core.engine.re_signing import ReSigningProgress, switch_signature
from recrawl.core.services.service import Service


class ReSigningService(Service):
    def switch(
        self,
        kind: str,
        *,
        progress: Callable[[ReSigningProgress], None] | None = None,
        stop: threading.Event | None = None,
    ) -> ReSigningProgress:
        """Sign with ``kind`` from now on, each page's signature recomputed (a stop ends
        it after the batch in hand; switching again resumes). The watcher is told."""
        with self.project.active():
            try:
                return switch_signature(self.project.path, kind, progress=progress, stop=stop)
            finally:
                self.changed()
