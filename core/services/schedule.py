"""The fetch schedule and the scoring (docs/design.md §4), and pages made due again."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from recrawl.core import store
from recrawl.core.policy import choices
from recrawl.core.policy import refetch as refetching
from recrawl.core.policy.choices import SavedSchedule
from recrawl.core.policy.refetch import Refetched
from recrawl.core.policy.scoring import Scoring
from recrawl.core.services.service import Service


class ScheduleService(Service):
    def set(self, name: str | None, assignments: list[str]) -> SavedSchedule:
        """Choose a schedule and/or change its parameters (``K=V``); the known pages are
        re-planned within its bounds, and the watcher is told (next fetches moved)."""
        with self.project.active():
            saved = choices.set_schedule(name, assignments)
        self.changed()
        return saved

    def replace(self, name: str, assignments: list[str]) -> SavedSchedule:
        """Set the schedule to exactly ``assignments`` (a form that shows them all)."""
        with self.project.active():
            saved = choices.replace_schedule(name, assignments)
        self.changed()
        return saved

    def set_scoring(self, kind: str) -> Scoring:
        """Score pages by ``kind`` from the next round (due times stay: no wake)."""
        with self.project.active():
            return choices.set_scoring(kind)

    def refetch(
        self,
        now: datetime,
        *,
        urls: Sequence[str] = (),
        hosts: Sequence[str] = (),
        everything: bool = False,
    ) -> Refetched:
        """Make ``urls``, the pages of ``hosts`` or ``everything`` due now; the watcher
        is told when any moved. ``recrawl refetch`` and the Sites panel's button both
        come here."""
        with self.project.active():
            done = refetching.refetch(now, urls=urls, hosts=hosts, everything=everything)
        if done.made_due:
            self.changed()
        return done

    def fix_interval(self, url: str, seconds: float | None, now: datetime) -> None:
        """Pin ``url``'s interval to ``seconds`` (None: the schedule decides it again);
        its next fetch moves at once, so the watcher is told."""
        with self.project.active():
            store.set_fixed_interval(url, seconds, now)
        self.changed()
