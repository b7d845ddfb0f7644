"""The built-in fetch schedules (docs/design.md §4), registered by name.

    base          BaseSchedule: bounds, per-host overrides, gone/retry rules they share
    adaptive      fixed, aronsson, nutch-adaptive: a formula on the last interval
    estimators    change rates and the freshness they buy (Cho & Garcia-Molina)
    change_rate   change-rate: estimates each page's rate, picks the interval
    score_tiers   score-tiers: wraps another schedule, caps the best-scored pages
    discovery     discovery: hubs visited by their rate of new links, others by a base
    registry      SCHEDULES, make_schedule: a schedule from its name and parameters
    parameters    what each schedule is tuned by, for forms

What a schedule is (the plug-in Protocol and its values) is
:mod:`recrawl.core.policy.schedule`.
"""

from recrawl.core.policy.schedules.adaptive import (
    AronssonSchedule,
    FixedSchedule,
    NutchAdaptiveSchedule,
)
from recrawl.core.policy.schedules.base import BaseSchedule
from recrawl.core.policy.schedules.change_rate import ChangeRateSchedule
from recrawl.core.policy.schedules.discovery import DiscoverySchedule
from recrawl.core.policy.schedules.registry import (
    DEFAULT_SCHEDULE,
    SCHEDULES,
    make_schedule,
    schedule_names,
)
from recrawl.core.policy.schedules.score_tiers import ScoreTiers

__all__ = [
    "DEFAULT_SCHEDULE",
    "SCHEDULES",
    "AronssonSchedule",
    "BaseSchedule",
    "ChangeRateSchedule",
    "DiscoverySchedule",
    "FixedSchedule",
    "NutchAdaptiveSchedule",
    "ScoreTiers",
    "make_schedule",
    "schedule_names",
]
