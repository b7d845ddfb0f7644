"""Hosts taken out of the crawl, and how each is captured (the app's Sites panel; making
one due again is the schedule's :meth:`~recrawl.core.services.schedule.ScheduleService.refetch`)."""

from __future__ import annotations

from recrawl.core.config import CAPTURE_MODE
from recrawl.core.policy import capture_modes, sites
from recrawl.core.policy.capture_modes import ModeSwitch
from recrawl.core.policy.sites import Removal
from recrawl.core.services.service import Service
from recrawl.core.services.settings import SettingsService


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
