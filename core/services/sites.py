"""Hosts taken out of the crawl, and how each is captured (the app's Sites panel; making
one due again is the schedule's :meth:`~recrawl.core.services.schedule.ScheduleService.refetch`)."""

from __future__ import annotations

from dataclasses import dataclass

from recrawl.core.browser.chromium import find_chromium
from recrawl.core.config import CAPTURE_MODE
from recrawl.core.errors import BrowserMissing
from recrawl.core.policy import capture_modes, sites
from recrawl.core.policy.capture_modes import ModeSwitch
from recrawl.core.policy.sites import Removal
from recrawl.core.services.service import Service
from recrawl.core.services.settings import SettingsService


@dataclass(frozen=True)
class SiteCapture:
    """A site's capture mode, chosen (the Sites panel's "Capture with a browser")."""

    host: str
    mode: str
    switch: ModeSwitch
    #: Browser mode with no Chromium to run: the one line saying so (the mode is kept:
    #: the site is not fetched until there is one).
    missing: str | None = None


class SitesService(Service):
    def remove(self, host: str) -> Removal:
        """Take ``host`` out of the scope: its pages are filtered (kept, never fetched)."""
        with self.project.active():
            done = sites.remove_site(host)
        self.changed()  # the chain changed
        return done

    def set_capture_mode(self, host: str | None, mode: str | None) -> ModeSwitch:
        """Capture the pages of ``host`` and of the hosts under it (None: of every host
        without a mode of its own) in ``mode``, ``http`` or ``browser`` (None: the
        project-wide mode again; for the project, its default). The pages whose mode
        changed lose their signatures in the same transaction: their next fetch is
        ``unknown``, not a change (:mod:`recrawl.core.policy.capture_modes`)."""
        name = CAPTURE_MODE if host is None else capture_modes.PREFIX + host
        # one operation, whichever front end: `recrawl settings --set capture.mode@HOST=…`
        return SettingsService(self.project).update({name: mode}).switch

    def capture_site(self, host: str, mode: str) -> SiteCapture:
        """Capture ``host``'s pages in ``mode`` with the fewest entries: its own
        ``capture.mode@HOST`` only where the project-wide mode (or a domain's above it)
        is not that already, forgotten where it would say the same."""
        host = capture_modes.host_entry(host)
        with self.project.active():
            kept = sites.capture_settings()
            without = capture_modes.with_host_modes(
                kept, {h: m for h, m in kept.host_modes if h != host}
            )
        own = None if without.mode_for(host) == mode else mode
        switch = self.set_capture_mode(host, own) if own or host in dict(kept.host_modes) else None
        missing = None
        if mode == "browser":
            try:
                find_chromium(kept.chromium)
            except BrowserMissing as exc:
                missing = str(exc)
        return SiteCapture(host, mode, switch or ModeSwitch(), missing)
