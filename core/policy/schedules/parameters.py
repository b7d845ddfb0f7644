"""What each schedule is tuned by, as a form shows it (the GUI builds its form from this).

The parameters are the schedules' dataclass fields; this adds what a form needs beyond
their types: which are durations, which are rarely tuned, a line of help each.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.schedules.registry import (
    DEFAULT_SCHEDULE,
    SCHEDULES,
    WRAPPERS,
    own_parameters,
    parameter_fields,
)

#: Parameters that are lengths of time (seconds; typed as ``30d``, ``12h``, ``1800s``).
DURATION_PARAMETERS = frozenset(
    {
        "initial", "min", "max", "constant", "retry_interval", "gone_max", "top1", "top10",
        "hub_min", "hub_max", "probe",
    }
)  # fmt: skip
#: Rarely tuned: how failures and gone pages are handled, the estimator's memory.
ADVANCED_PARAMETERS = frozenset(
    {"retry_interval", "gone_factor", "gone_max", "min_visits", "memory", "probe"}
)
PARAMETER_HELP = {
    "initial": "interval of a page when it is first found",
    "min": "no interval shorter than this (empty: no lower bound)",
    "max": "no interval longer than this (empty: no upper bound)",
    "increase": "unchanged: interval × (1 + increase)",
    "decrease": "changed: interval × (1 − decrease)",
    "constant": "added after every fetch; a page that always changes settles at twice this",
    "inc_rate": "unchanged: interval × (1 + inc_rate)",
    "dec_rate": "changed: interval × (1 − dec_rate)",
    "sync_delta": "never wait less than the time since the last seen change",
    "sync_delta_rate": "count the next fetch from that far back (share of the time since change)",
    "target": "freshness to reach: the share of time the stored copy equals the page",
    "policy": "optimal: spend fetches where they buy most freshness; uniform: same for all",
    "min_visits": "visits with a known outcome before the change rate is trusted",
    "memory": "visits after which old observations fade",
    "retry_interval": "wait before trying a failed fetch again",
    "gone_factor": "a gone page's interval grows by this factor at each 404/410",
    "gone_max": "...up to this",
    "top1": "the best-scored 1 % of pages wait at most this",
    "top10": "the best-scored 10 % of pages wait at most this",
    "base": "the schedule that decides every other page",
    "budget": "fetches a day per hub, on average: hubs gaining links faster get more",
    "hub_rate": "new links a day that make a page a hub (fewer: the base schedule)",
    "hub_min": "no hub is fetched more often than this",
    "hub_max": "no hub waits longer than this",
    "probe": "a page not yet observed is fetched again after this, to see if it is a hub",
}
_CHOICES = {"policy": ("optimal", "uniform"), "base": tuple(SCHEDULES)}


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One tunable parameter of a schedule, as a form shows it."""

    key: str
    #: "duration" (seconds), "number", "integer", "bool" or "choice".
    kind: str
    default: Any
    #: Whether it may be left empty (None: no bound).
    optional: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""
    advanced: bool = False


def schedule_parameters(name: str, base: str | None = None) -> list[Parameter]:
    """The parameters schedule ``name`` takes, with their defaults (``base``: the base of
    score-tiers or discovery, whose parameters follow theirs)."""
    if name in WRAPPERS:
        fields = {f.name: f for f in dataclasses.fields(WRAPPERS[name])}
        head = [
            _parameter(key, str(fields[key].type), fields[key].default)
            for key in own_parameters(name)
        ]
        head.append(_parameter("base", "str", DEFAULT_SCHEDULE))
        return head + schedule_parameters(base or DEFAULT_SCHEDULE)
    cls = SCHEDULES.get(name)
    if cls is None:
        raise InvalidArgument(f"unknown schedule {name!r}")
    # per-host bounds are a list of their own in a form, not one field
    return [
        _parameter(f.name, str(f.type), f.default)
        for f in parameter_fields(cls)
        if f.name != "hosts"
    ]


def _parameter(key: str, type_name: str, default: Any) -> Parameter:
    if key in _CHOICES:
        kind = "choice"
    elif key in DURATION_PARAMETERS:
        kind = "duration"
    elif type_name.startswith("bool"):
        kind = "bool"
    elif type_name.startswith("int"):
        kind = "integer"
    else:
        kind = "number"
    return Parameter(
        key,
        kind,
        default,
        optional="None" in type_name,
        choices=_CHOICES.get(key, ()),
        help=PARAMETER_HELP.get(key, ""),
        advanced=key in ADVANCED_PARAMETERS,
    )
