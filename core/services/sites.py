"""Hosts taken out of the crawl (the app's Sites panel; making one due again is the
schedule's :meth:`~recrawl.core.services.schedule.ScheduleService.refetch`)."""

from __future__ import annotations

from recrawl.core.policy import sites
from recrawl.core.policy.sites import Removal
from recrawl.core.services.service import Service


class SitesService(Service):
    def remove(self, host: str) -> Removal:
        """Take ``host`` out of the scope: its pages are filtered (kept, never fetched)."""
        with self.project.active():
            done = sites.remove_site(host)
        self.changed()  # the chain changed
        return done
