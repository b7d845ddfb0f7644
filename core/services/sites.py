"""Hosts taken out of the crawl, or made due again (the app's Sites panel)."""

from __future__ import annotations

from datetime import datetime

from recrawl.core.policy import sites
from recrawl.core.policy.refetch import Refetched, refetch
from recrawl.core.policy.sites import Removal
from recrawl.core.services.service import Service


class SitesService(Service):
    def remove(self, host: str) -> Removal:
        """Take ``host`` out of the scope: its pages are filtered (kept, never fetched)."""
        with self.project.active():
            done = sites.remove_site(host)
        self.changed()  # the chain changed
        return done

    def refetch(self, host: str, now: datetime) -> Refetched:
        """Make every page of ``host`` due now (as ``recrawl refetch --site``)."""
        with self.project.active():
            done = refetch(now, hosts=[host])
        self.changed()
        return done
