"""What the front ends do to a project: its operations, on its own store (Anki's
``Collection`` and its managers).

    services = Services(project)
    services.seeds.add(urls, now)           # new seeds: due now
    services.schedule.set("adaptive", [...])  # the known pages re-planned
    services.chain.apply(text)              # the chain applied to the known pages
    services.sites.remove(host)             # a host taken out of the crawl
    services.settings.save({...})           # kept settings: the next round's
    services.re_signing.switch("md5")       # the pages' signatures recomputed
    services.changes.set(rule)              # a change rule kept, its pages re-signed
    services.notify.send_test(url)          # a notification service tried

Each operation runs on its project's store, whichever thread calls it (it enters the
project: :meth:`recrawl.core.project.Project.active`), and each that changes what is
due, or how it is crawled, tells the project's watcher (ours or another process's,
:func:`recrawl.core.watch.wake.wake_watcher`) itself: the command line and the app call
the operation and nothing after it. Reading (listings, counts) stays in
:mod:`recrawl.core.store` and :mod:`recrawl.core.policy`, under the project active.

    chain        the filter chain: applied to the known pages (reach), checked first
    schedule     the fetch schedule, the scoring, pages made due again (refetch)
    seeds        seed URLs and sources (sitemaps, feeds) added
    settings     the project's kept crawl settings
    sites        hosts taken out of the crawl
    re_signing   the signature switched, the pages' signatures recomputed
    changes      change rules set, unset and previewed
    notify       notification services tried
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from recrawl.core.project import Project

if TYPE_CHECKING:
    from recrawl.core.services.chain import ChainService
    from recrawl.core.services.changes import ChangesService
    from recrawl.core.services.notify import NotifyService
    from recrawl.core.services.re_signing import ReSigningService
    from recrawl.core.services.schedule import ScheduleService
    from recrawl.core.services.seeds import SeedsService
    from recrawl.core.services.settings import SettingsService
    from recrawl.core.services.sites import SitesService


class Services:
    """The operations on ``project``; cheap to make (a front end may make one per call).

    Each service is imported when first used: a quick command that only sets the
    scoring does not load the crawl engine (seeds and re-signing need it).
    """

    def __init__(self, project: Project) -> None:
        self.project = project

    @cached_property
    def chain(self) -> ChainService:
        from recrawl.core.services.chain import ChainService

        return ChainService(self.project)

    @cached_property
    def schedule(self) -> ScheduleService:
        from recrawl.core.services.schedule import ScheduleService

        return ScheduleService(self.project)

    @cached_property
    def seeds(self) -> SeedsService:
        from recrawl.core.services.seeds import SeedsService

        return SeedsService(self.project)

    @cached_property
    def settings(self) -> SettingsService:
        from recrawl.core.services.settings import SettingsService

        return SettingsService(self.project)

    @cached_property
    def sites(self) -> SitesService:
        from recrawl.core.services.sites import SitesService

        return SitesService(self.project)

    @cached_property
    def re_signing(self) -> ReSigningService:
        from recrawl.core.services.re_signing import ReSigningService

        return ReSigningService(self.project)

    @cached_property
    def changes(self) -> ChangesService:
        from recrawl.core.services.changes import ChangesService

        return ChangesService(self.project)

    @cached_property
    def notify(self) -> NotifyService:
        from recrawl.core.services.notify import NotifyService

        return NotifyService(self.project)
