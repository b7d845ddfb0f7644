"""Notifications through Apprise (docs/design.md §17): the round's news sent to the
archivist's services; a test message from the Settings dialog.

Interface only (step 17 is being built).
"""

from __future__ import annotations

from recrawl.core.services.service import Service


class NotifyService(Service):
    def urls(self) -> list[str]:
        """The project's ``notify.urls``."""
        raise NotImplementedError

    def send_test(self, url: str) -> str | None:
        """Send a test message to ``url``: None when it went, else one line saying why not."""
        raise NotImplementedError
