"""What a schedule that wraps another (``score-tiers``, ``discovery``) takes from it as is."""

from __future__ import annotations

from collections.abc import Mapping

from recrawl.core.policy.schedule import Decision, FetchSchedule, ScheduleInput


class FromBase:
    """Retries, host bounds, first intervals and gone pages: the wrapped ``base``'s.

    A mixin for a dataclass with a ``base`` field; the wrapper decides the rest.
    """

    base: FetchSchedule

    @property
    def retry_interval(self) -> float:
        return self.base.retry_interval

    @property
    def hosts(self) -> Mapping[str, Mapping[str, float]]:
        return self.base.hosts

    def bounds(self, host: str) -> tuple[float, float | None]:
        return self.base.bounds(host)

    def interval_range(self, host: str) -> tuple[float, float]:
        return self.base.interval_range(host)

    def initial_interval(self) -> float:
        return self.base.initial_interval()

    def after_gone(self, page: ScheduleInput) -> Decision:
        return self.base.after_gone(page)

    def after_retry(self, page: ScheduleInput) -> Decision:
        return self.base.after_retry(page)
