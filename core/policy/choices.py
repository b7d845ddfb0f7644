"""The project's choices: schedule, signature, scoring and URL filter chain.

They live in the store's settings, so the CLI, the GUI and a crawl see the same ones.
A new project starts with the defaults of docs/design.md §4–§5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from recrawl.core import store
from recrawl.core.clock import human_duration, parse_duration, utcnow
from recrawl.core.config import PROJECT_DEFAULTS
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import Chain, parse_chain
from recrawl.core.filters.scope import DEFAULT_CHAIN_FILE, widen_scope
from recrawl.core.policy.change_rules import RuledSignatures, project_rules
from recrawl.core.policy.filter_reach import PENDING, THROUGH, Progress, Reach, plan_reach
from recrawl.core.policy.replan import Replanned, replan
from recrawl.core.policy.schedule import FetchSchedule
from recrawl.core.policy.schedules import DEFAULT_SCHEDULE, SCHEDULES, make_schedule
from recrawl.core.policy.schedules.discovery import DiscoverySchedule
from recrawl.core.policy.schedules.registry import WRAPPERS, own_parameters, parameter_fields
from recrawl.core.policy.schedules.score_tiers import ScoreTiers
from recrawl.core.policy.scoring import Scoring, make_scoring
from recrawl.core.policy.signature import Signature, make_signature
from recrawl.core.resources import resource_text

#: A new project's signature and scoring (their settings: ``project.signature``,
#: ``project.scoring``); projects made before keep the ones stored in their settings.
DEFAULT_SIGNATURE = PROJECT_DEFAULTS.signature
DEFAULT_SCORING = PROJECT_DEFAULTS.scoring


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


@dataclass(frozen=True)
class SavedSchedule:
    """A schedule chosen or tuned, and how the known pages were re-planned for it."""

    schedule: FetchSchedule
    replanned: Replanned


def set_schedule(
    name: str | None, assignments: list[str], now: datetime | None = None
) -> SavedSchedule:
    """Choose a schedule (``name``) and/or change its parameters (``K=V``, ``min@host=V``);
    the known pages are re-planned within its bounds in the same transaction."""
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
    _check_bounds(schedule)  # the merged bounds: a new min against the stored max
    return _save_schedule(name, params, schedule, now)


def _save_schedule(
    name: str, params: dict[str, Any], schedule: FetchSchedule, now: datetime | None
) -> SavedSchedule:
    with store.transaction():
        store.set_setting("schedule", {"name": name, "params": params})  # the write lock first
        replanned = replan(schedule, now or utcnow())
    return SavedSchedule(schedule, replanned)


def check_schedule(name: str, assignments: list[str]) -> FetchSchedule:
    """Build the schedule ``assignments`` describe, saving nothing; InvalidArgument if wrong.

    Besides what the schedule itself checks, every lower bound must not exceed its upper
    bound (the clamp would silently let ``min`` win).
    """
    base = _base_of(assignments, None)
    params = parse_params(name, base, assignments)
    schedule = make_schedule(name, **params)
    _check_bounds(schedule)
    return schedule


def _check_bounds(schedule: FetchSchedule) -> None:
    for host in ["", *schedule.hosts]:
        low, high = schedule.bounds(host)
        if high is not None and low > high:
            where = f" for {host}" if host else ""
            raise InvalidArgument(
                f"min is longer than max{where} ({human_duration(low)} > {human_duration(high)})"
            )


def replace_schedule(
    name: str, assignments: list[str], now: datetime | None = None
) -> SavedSchedule:
    """Set the schedule to exactly ``assignments`` (defaults for the rest).

    Unlike :func:`set_schedule`, nothing of the stored parameters is kept: a form that
    shows the whole parameter set saves it whole, so a host bound removed there is gone.
    The known pages are re-planned as :func:`set_schedule` does.
    """
    schedule = check_schedule(name, assignments)
    params = parse_params(name, _base_of(assignments, None), assignments)
    return _save_schedule(name, params, schedule, now)


def parse_params(name: str, base: str | None, assignments: list[str]) -> dict[str, Any]:
    """``K=V`` and ``min@HOST=V`` assignments as schedule ``name``'s typed parameters.

    ``base`` is the base schedule of score-tiers or discovery, whose parameters the
    keys that are not theirs are.
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
        if name in WRAPPERS and key in own_parameters(name):
            out[key] = _typed(WRAPPERS[name], key, value)
            continue
        if name in WRAPPERS and key == "base":
            out[key] = value
            continue
        target = (base or DEFAULT_SCHEDULE) if name in WRAPPERS else name
        cls = SCHEDULES.get(target)
        if cls is None:
            raise InvalidArgument(f"unknown schedule {target!r}")
        out[key] = _typed(cls, key, value)
    return out


def _typed(cls: type[Any], key: str, value: str) -> bool | int | float | str | None:
    schedule = getattr(cls, "name", cls.__name__)
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
    if isinstance(schedule, ScoreTiers | DiscoverySchedule):
        own = {key: getattr(schedule, key) for key in own_parameters(schedule.name)}
        return {"name": schedule.name, **own, "base": describe_schedule(schedule.base)}
    values = {f.name: getattr(schedule, f.name) for f in parameter_fields(type(schedule))}
    return {"name": schedule.name, **values}


def signature_kind() -> str:
    """The project's signature kind, without making one (main-text loads its extractor)."""
    kind: str = store.get_setting("signature") or DEFAULT_SIGNATURE
    return kind


def project_signature() -> Signature:
    """The project's signature, with its change rules when it has any (docs/design.md §17)."""
    base = make_signature(signature_kind())
    rules = project_rules()
    return RuledSignatures(base, rules) if rules.rules else base


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


@dataclass(frozen=True)
class AppliedChain:
    """A chain made the project's, and what it did to the known pages."""

    chain: Chain
    reach: Reach


def apply_chain(
    text: str,
    now: datetime | None = None,
    *,
    hosts: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> AppliedChain:
    """Make ``text`` the project's chain and apply it to the known pages (docs/design.md §10):
    those it rejects are filtered, filtered ones it accepts come back (due ``now``).

    Nothing is saved unless the whole chain loads; the pages change in short
    transactions after it (:mod:`.filter_reach`), or in the caller's transaction if it
    runs one. ``hosts``: the edit changed only what the chain says of these hosts' URLs
    (a scope entry), so only their pages are judged.
    ``progress(done, total)`` follows the pages judged.
    """
    chain = parse_chain(text)
    plan = plan_reach(chain, hosts=hosts, progress=progress)
    reach = plan.commit(lambda: store.set_setting("filter_chain", text), now or utcnow())
    return AppliedChain(chain, reach)


def catch_up(now: datetime | None = None) -> Reach:
    """Apply the project's chain to the pages added since it was applied (a crawl that
    judged links by the chain before added them); a crawl calls it when it finds the
    chain changed."""
    through = store.get_setting(THROUGH) or 0
    plan = plan_reach(project_chain(), after=through)
    return plan.commit(None, now or utcnow())


def finish_apply(now: datetime | None = None) -> Reach | None:
    """Finish an apply that saved its chain but died before the pages all changed (None:
    there is none); a crawl calls it before it chooses pages."""
    if not store.get_setting(PENDING):
        return None
    return apply_chain(chain_text(), now).reach


def set_chain(text: str) -> Chain:
    """Replace the chain, applied to the known pages (:func:`apply_chain`)."""
    return apply_chain(text).chain


def add_scope_hosts(hosts: list[str], now: datetime | None = None) -> Reach:
    """Widen the chain's "scope" domain filter to these hosts (what ``inject`` does); their
    filtered pages that the chain now accepts come back."""
    chain = project_chain()
    if not widen_scope(chain, hosts):
        return Reach()
    # a new entry decides only for the URLs of the hosts it covers
    under = sorted({h for host in hosts for h in [host.lower(), *store.hosts_under(host.lower())]})
    return apply_chain(chain.to_toml(), now, hosts=under).reach
