"""The project's choices: schedule, signature, scoring and URL filter chain.

They live in the store's settings, so the CLI, the GUI and a crawl see the same ones.
A new project starts with the defaults of DESIGN.md §4–§5.
"""

from __future__ import annotations

from typing import Any

from recrawl.core import store
from recrawl.core.clock import parse_duration
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import Chain, parse_chain
from recrawl.core.filters.scope import DEFAULT_CHAIN_FILE, widen_scope
from recrawl.core.policy.schedule import FetchSchedule
from recrawl.core.policy.schedules import DEFAULT_SCHEDULE, SCHEDULES, ScoreTiers, make_schedule
from recrawl.core.policy.schedules.registry import TIER_PARAMETERS, TIERS, parameter_fields
from recrawl.core.policy.scoring import Scoring, make_scoring
from recrawl.core.policy.signature import Signature, make_signature
from recrawl.core.resources import resource_text

#: The issue 13 default (DESIGN.md §4/§5 said text-profile, which misses one added
#: sentence); projects made before keep the signature stored in their settings.
DEFAULT_SIGNATURE = "main-text"
DEFAULT_SCORING = "inlinks"


def ensure_defaults() -> None:
    """Write the defaults into a store that has no choices yet (a new project)."""
    with store.transaction():
        if store.get_setting("schedule") is None:
            store.set_setting("schedule", {"name": DEFAULT_SCHEDULE, "params": {}})
        if store.get_setting("signature") is None:
            store.set_setting("signature", DEFAULT_SIGNATURE)
        if store.get_setting("scoring") is None:
            store.set_setting("scoring", DEFAULT_SCORING)


def schedule_spec() -> tuple[str, dict[str, Any]]:
    spec = store.get_setting("schedule") or {"name": DEFAULT_SCHEDULE, "params": {}}
    return spec["name"], dict(spec.get("params", {}))


def project_schedule() -> FetchSchedule:
    name, params = schedule_spec()
    return make_schedule(name, **params)


def set_schedule(name: str | None, assignments: list[str]) -> FetchSchedule:
    """Choose a schedule (``name``) and/or change its parameters (``K=V``, ``min@host=V``)."""
    current, params = schedule_spec()
    if name is not None and name != current:
        params = {}
    name = name or current
    base = _base_of(assignments, params.get("base"))
    new = parse_params(name, base, assignments)
    for host, bounds in new.pop("hosts", {}).items():  # merge: other hosts' bounds stay
        params.setdefault("hosts", {}).setdefault(host, {}).update(bounds)
    params.update(new)
    schedule = make_schedule(name, **params)  # validates before anything is saved
    store.set_setting("schedule", {"name": name, "params": params})
    return schedule


def check_schedule(name: str, assignments: list[str]) -> FetchSchedule:
    """Build the schedule ``assignments`` describe, saving nothing; InvalidArgument if wrong.

    Besides what the schedule itself checks, every lower bound must not exceed its upper
    bound (the clamp would silently let ``min`` win).
    """
    base = _base_of(assignments, None)
    params = parse_params(name, base, assignments)
    schedule = make_schedule(name, **params)
    for host in ["", *schedule.hosts]:
        low, high = schedule.bounds(host)
        if high is not None and low > high:
            where = f" for {host}" if host else ""
            raise InvalidArgument(f"min is longer than max{where}")
    return schedule


def replace_schedule(name: str, assignments: list[str]) -> FetchSchedule:
    """Set the schedule to exactly ``assignments`` (defaults for the rest).

    Unlike :func:`set_schedule`, nothing of the stored parameters is kept: a form that
    shows the whole parameter set saves it whole, so a host bound removed there is gone.
    """
    schedule = check_schedule(name, assignments)
    params = parse_params(name, _base_of(assignments, None), assignments)
    store.set_setting("schedule", {"name": name, "params": params})
    return schedule


def parse_params(name: str, base: str | None, assignments: list[str]) -> dict[str, Any]:
    """``K=V`` and ``min@HOST=V`` assignments as schedule ``name``'s typed parameters.

    ``base`` is score-tiers' base schedule, whose parameters the other keys are.
    """
    out: dict[str, Any] = {}
    for item in assignments:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise InvalidArgument(f"a parameter is KEY=VALUE, not {item!r}")
        if "@" in key:  # per-host bound: min@example.com=1h
            bound, _, host = key.partition("@")
            if bound not in ("min", "max") or not host:
                raise InvalidArgument(f"per-host parameters are min@HOST or max@HOST: {key!r}")
            hosts = out.setdefault("hosts", {})
            hosts.setdefault(host.lower(), {})[bound] = parse_duration(value)
            continue
        if name == TIERS and key in TIER_PARAMETERS:
            out[key] = parse_duration(value)
            continue
        if name == TIERS and key == "base":
            out[key] = value
            continue
        target = (base or DEFAULT_SCHEDULE) if name == TIERS else name
        out[key] = _typed(target, key, value)
    return out


def _typed(schedule: str, key: str, value: str) -> bool | int | float | str | None:
    cls = SCHEDULES.get(schedule)
    if cls is None:
        raise InvalidArgument(f"unknown schedule {schedule!r}")
    kinds = {f.name: str(f.type) for f in parameter_fields(cls)}
    kind = kinds.get(key)
    if kind is None or key == "hosts":  # per-host bounds are min@HOST=, max@HOST=
        raise InvalidArgument(
            f"schedule {schedule!r} has no parameter {key!r} "
            f"(it has: {', '.join(sorted(set(kinds) - {'hosts'}))})"
        )
    if kind.startswith("bool"):
        if value.lower() in ("true", "yes", "1", "on"):
            return True
        if value.lower() in ("false", "no", "0", "off"):
            return False
        raise InvalidArgument(f"{key} is true or false, not {value!r}")
    if kind.startswith("str"):
        return value
    if kind.startswith("int"):
        try:
            return int(value)
        except ValueError:
            raise InvalidArgument(f"{key} is a whole number, not {value!r}") from None
    if value.lower() in ("none", "null", "") and "None" in kind:
        return None
    try:
        return float(value)
    except ValueError:
        return parse_duration(value)


def _base_of(assignments: list[str], default: str | None) -> str | None:
    return next(
        (a.partition("=")[2].strip() for a in assignments if a.partition("=")[0].strip() == "base"),
        default,
    )


def describe_schedule(schedule: FetchSchedule) -> dict[str, Any]:
    """Name and every parameter (defaults included), JSON-ready."""
    if isinstance(schedule, ScoreTiers):
        return {
            "name": TIERS,
            "top1": schedule.top1,
            "top10": schedule.top10,
            "base": describe_schedule(schedule.base),
        }
    values = {f.name: getattr(schedule, f.name) for f in parameter_fields(type(schedule))}
    return {"name": schedule.name, **values}


def project_signature() -> Signature:
    return make_signature(store.get_setting("signature") or DEFAULT_SIGNATURE)


def set_signature(kind: str) -> Signature:
    signature = make_signature(kind)
    store.set_setting("signature", kind)
    return signature


def project_scoring() -> Scoring:
    return make_scoring(store.get_setting("scoring") or DEFAULT_SCORING)


def set_scoring(kind: str) -> Scoring:
    """Choose the scoring; stored scores change as pages are refetched."""
    scoring = make_scoring(kind)
    with store.transaction():
        if kind == "opic" and store.get_setting("scoring") != "opic":
            store.give_cash(1.0)  # every page starts with what an injected one has
        store.set_setting("scoring", kind)
    return scoring


def chain_text() -> str:
    """The project's chain as TOML (the bundled default until the user sets one)."""
    return store.get_setting("filter_chain") or resource_text(DEFAULT_CHAIN_FILE)


def project_chain() -> Chain:
    return parse_chain(chain_text())


def set_chain(text: str) -> Chain:
    """Replace the chain; nothing is saved unless the whole chain loads."""
    chain = parse_chain(text)
    store.set_setting("filter_chain", text)
    return chain


def add_scope_hosts(hosts: list[str]) -> None:
    """Widen the chain's "scope" domain filter to these hosts (what ``inject`` does)."""
    chain = project_chain()
    if widen_scope(chain, hosts):
        store.set_setting("filter_chain", chain.to_toml())
