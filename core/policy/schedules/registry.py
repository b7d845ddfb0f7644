"""The built-in schedules by name, and how one is made from stored parameters.

Typed with :class:`~recrawl.core.policy.schedule.FetchSchedule`: mypy checks every
registered class (and ``score-tiers``, built here) against the plug-in surface.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from recrawl.core.config import PROJECT_DEFAULTS
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.schedule import FetchSchedule
from recrawl.core.policy.schedules.adaptive import (
    AronssonSchedule,
    FixedSchedule,
    NutchAdaptiveSchedule,
)
from recrawl.core.policy.schedules.change_rate import ChangeRateSchedule
from recrawl.core.policy.schedules.discovery import DiscoverySchedule
from recrawl.core.policy.schedules.score_tiers import ScoreTiers

#: Schedules a page's interval comes from; ``score-tiers`` and ``discovery`` wrap one.
SCHEDULES: dict[str, type[FetchSchedule]] = {
    "fixed": FixedSchedule,
    "aronsson": AronssonSchedule,
    "nutch-adaptive": NutchAdaptiveSchedule,
    "change-rate": ChangeRateSchedule,
}
#: A new project's schedule (its setting: ``project.schedule``).
DEFAULT_SCHEDULE = PROJECT_DEFAULTS.schedule
TIERS = "score-tiers"
DISCOVERY = "discovery"
#: Schedules that wrap a ``base`` one (of :data:`SCHEDULES`, default aronsson): their
#: class. Their own parameters are their fields; the other keys go to the base.
WRAPPERS: dict[str, type[ScoreTiers] | type[DiscoverySchedule]] = {
    TIERS: ScoreTiers,
    DISCOVERY: DiscoverySchedule,
}
#: score-tiers' own parameters; the others go to its base schedule.
TIER_PARAMETERS = ("top1", "top10")


def schedule_names() -> list[str]:
    return [*SCHEDULES, *WRAPPERS]


def own_parameters(name: str) -> tuple[str, ...]:
    """A wrapping schedule's own parameters (not ``base``, nor what it learns)."""
    return tuple(f.name for f in parameter_fields(WRAPPERS[name]) if f.name != "base")


def parameter_fields(cls: type[FetchSchedule]) -> list[dataclasses.Field[Any]]:
    """The dataclass fields a schedule is tuned by (not what it learns as it runs)."""
    if not dataclasses.is_dataclass(cls):
        return []
    return [f for f in dataclasses.fields(cls) if not f.metadata.get("learned")]


def make_schedule(name: str = DEFAULT_SCHEDULE, **params: Any) -> FetchSchedule:
    """Build a schedule by name; ``score-tiers`` and ``discovery`` wrap ``base`` (default
    aronsson), which takes the parameters that are not theirs."""
    if name in WRAPPERS:
        own = own_parameters(name)
        mine = {k: v for k, v in params.items() if k in own}
        base_name = params.get("base", DEFAULT_SCHEDULE)
        if base_name not in SCHEDULES:
            raise InvalidArgument(
                f"{name}'s base is one of {', '.join(SCHEDULES)}, not {base_name!r}"
            )
        rest = {k: v for k, v in params.items() if k not in {*own, "base"}}
        if name == TIERS:
            tiers = {k: float(v) for k, v in mine.items()}
            return ScoreTiers(base=make_schedule(base_name, **rest), **tiers)
        return DiscoverySchedule(base=make_schedule(base_name, **rest), **mine)
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
