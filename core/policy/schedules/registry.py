"""The built-in schedules by name, and how one is made from stored parameters.

Typed with :class:`~recrawl.core.policy.schedule.FetchSchedule`: mypy checks every
registered class (and ``score-tiers``, built here) against the plug-in surface.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.schedule import FetchSchedule
from recrawl.core.policy.schedules.adaptive import (
    AronssonSchedule,
    FixedSchedule,
    NutchAdaptiveSchedule,
)
from recrawl.core.policy.schedules.change_rate import ChangeRateSchedule
from recrawl.core.policy.schedules.score_tiers import ScoreTiers

#: Schedules a page's interval comes from; ``score-tiers`` wraps one of them.
SCHEDULES: dict[str, type[FetchSchedule]] = {
    "fixed": FixedSchedule,
    "aronsson": AronssonSchedule,
    "nutch-adaptive": NutchAdaptiveSchedule,
    "change-rate": ChangeRateSchedule,
}
DEFAULT_SCHEDULE = "aronsson"
TIERS = "score-tiers"
#: score-tiers' own parameters; the others go to its base schedule.
TIER_PARAMETERS = ("top1", "top10")


def schedule_names() -> list[str]:
    return [*SCHEDULES, TIERS]


def parameter_fields(cls: type[FetchSchedule]) -> list[dataclasses.Field[Any]]:
    """The dataclass fields a schedule is tuned by (not what it learns as it runs)."""
    if not dataclasses.is_dataclass(cls):
        return []
    return [f for f in dataclasses.fields(cls) if not f.metadata.get("learned")]


def make_schedule(name: str = DEFAULT_SCHEDULE, **params: Any) -> FetchSchedule:
    """Build a schedule by name; ``score-tiers`` wraps ``base`` (default aronsson)."""
    if name == TIERS:
        tiers = {k: float(v) for k, v in params.items() if k in TIER_PARAMETERS}
        base_name = params.get("base", DEFAULT_SCHEDULE)
        rest = {k: v for k, v in params.items() if k not in {*TIER_PARAMETERS, "base"}}
        return ScoreTiers(base=make_schedule(base_name, **rest), **tiers)
    try:
        cls = SCHEDULES[name]
    except KeyError:
        raise InvalidArgument(
            f"unknown schedule {name!r} (known: {', '.join(schedule_names())})"
        ) from None
    known = {f.name for f in parameter_fields(cls)}
    unknown = set(params) - known
    if unknown:
        raise InvalidArgument(
            f"schedule {name!r} has no parameter {', '.join(sorted(unknown))} "
            f"(it has: {', '.join(sorted(known))})"
        )
    return cls(**params)
