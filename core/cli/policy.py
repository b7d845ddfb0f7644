"""``recrawl schedule``, ``signature``, ``scoring`` and ``simulate``: the revisit policy."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from recrawl.core.cli.arguments import duration, positive_int
from recrawl.core.cli.output import DIR_HELP, print_rows
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import duration_text, human_duration
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import choices
from recrawl.core.policy.replan import Replanned
from recrawl.core.policy.schedules import make_schedule, schedule_names
from recrawl.core.policy.schedules.parameters import DURATION_PARAMETERS
from recrawl.core.policy.scoring import SCORINGS
from recrawl.core.policy.signature import SIGNATURES
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.core.words import plural


def _schedule_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Show the project's fetch schedule with every parameter, or choose one and tune it. "
        "--param alone changes the current schedule's parameters."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--set", metavar="NAME", help="use this schedule: " + ", ".join(schedule_names())
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="K=V",
        help="a parameter (durations like 30d, 12h, 1800s); min@HOST=V per host",
    )
    p.add_argument(
        "--json", action="store_true", help="print the schedule as JSON (durations in seconds)"
    )


@project_command
def run_schedule(project: Project, args: argparse.Namespace) -> int:
    replanned = None
    if args.set or args.param:
        saved = Services(project).schedule.set(args.set, args.param)
        schedule, replanned = saved.schedule, saved.replanned
    else:
        schedule = choices.project_schedule()
    description = choices.describe_schedule(schedule)
    if args.json:
        print(json.dumps(description))
    else:
        print(_describe_line(description))
    if replanned is not None:  # beside the JSON, not in it: stdout stays the schedule
        print(replanned_line(replanned), file=sys.stderr if args.json else sys.stdout)
    return 0


def replanned_line(replanned: Replanned) -> str:
    """``re-planned 527 pages (next fetch moved within the new bounds)``."""
    if not replanned.moved and not replanned.intervals:
        return "no page to re-plan: every known page's interval is within the bounds"
    line = f"re-planned {plural(replanned.moved, 'page')} (next fetch moved within the new bounds)"
    if replanned.intervals:
        one = replanned.intervals == 1
        line += (
            f"; {plural(replanned.intervals, 'more page')} got an interval within them and "
            f"kept {'its' if one else 'their'} turn (due now, never fetched, or retrying)"
        )
    return line


def _describe_line(description: dict[str, Any]) -> str:
    """``nutch-adaptive: initial=30d, max@example.com=7d, sync_delta=true, ...``: the
    parameters as ``--param`` takes them (score-tiers' base's among its own)."""
    return f"{description['name']}: {', '.join(_typed_params(description))}"


def _typed_params(description: dict[str, Any]) -> list[str]:
    parts = []
    for key, value in description.items():
        if key == "name":
            continue
        if key == "base":
            parts.append(f"base={value['name']}")
            parts += _typed_params(value)
        elif key == "hosts":
            for host, bounds in value.items():
                parts += [f"{bound}@{host}={duration_text(v)}" for bound, v in bounds.items()]
        else:
            parts.append(f"{key}={_typed(key, value)}")
    return parts


def _typed(key: str, value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if key in DURATION_PARAMETERS:
        return duration_text(float(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _signature_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Show how the project decides that a page changed, or choose another way. "
        f"Choosing one (the default for new projects is {choices.DEFAULT_SIGNATURE}) "
        "recomputes every page's stored signature from its archived payload, so the next "
        "fetch compares like with like; Ctrl-C stops it between batches, and choosing the "
        "same again resumes."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("--set", metavar="KIND", help="decide changes by this: " + ", ".join(SIGNATURES))
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"signature": KIND}; with --set also "recompute": {"pages", "recomputed", '
        '"unreadable", "skipped", "stopped"}',
    )


@project_command
def run_signature(project: Project, args: argparse.Namespace) -> int:
    if not args.set:
        kind = choices.signature_kind()
        print(json.dumps({"signature": kind}) if args.json else kind)
        return 0
    from recrawl.core.cli.re_signing import switch_signature_command  # the engine: late

    return switch_signature_command(project, args.set, args.json)


def _scoring_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("--set", metavar="KIND", help="score pages by this: " + ", ".join(SCORINGS))
    p.add_argument("--json", action="store_true", help='print {"scoring": KIND}')


@project_command
def run_scoring(project: Project, args: argparse.Namespace) -> int:
    scoring = (
        Services(project).schedule.set_scoring(args.set) if args.set else choices.project_scoring()
    )
    print(json.dumps({"scoring": scoring.kind}) if args.json else scoring.kind)
    return 0


def _simulate_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "One page: --schedule NAME with --change-every DUR or --change-at "
        "D1,D2,... (days). A corpus: --corpus N --days D --schedules A,B,... "
        "Hubs gaining new links: --discovery N --days D --schedules A,B,..."
    )
    page = p.add_argument_group("one page")
    page.add_argument(
        "--schedule",
        choices=schedule_names(),
        metavar="NAME",
        help="the schedule to simulate: " + ", ".join(schedule_names()),
    )
    page.add_argument(
        "--change-every", type=duration, metavar="DUR", help="the page changes this often"
    )
    page.add_argument("--change-at", metavar="D1,D2,...", help="days on which the page changes")
    page.add_argument(
        "--initial-interval",
        type=duration,
        metavar="DUR",
        help="the interval the page starts with (default: the schedule's initial)",
    )
    page.add_argument(
        "--first-fetch",
        type=duration,
        default=0.0,
        metavar="DUR",
        help="when the first fetch happens (default: day 0)",
    )
    page.add_argument(
        "--until",
        type=duration,
        default=365 * 86400.0,
        metavar="DUR",
        help="simulate this long (default: 365d)",
    )
    corpus = p.add_argument_group("a corpus")
    corpus.add_argument(
        "--corpus", type=positive_int, metavar="N", help="simulate N pages of varied change rates"
    )
    corpus.add_argument(
        "--discovery",
        type=positive_int,
        metavar="N",
        help="simulate N hubs gaining new links at varied rates; prints each schedule's "
        "mean discovery delay and the least one at its budget",
    )
    corpus.add_argument(
        "--days", type=positive_int, default=365, metavar="D", help="for D days (default: 365)"
    )
    corpus.add_argument(
        "--schedules", metavar="A,B,...", help="compare these schedules (names, by commas)"
    )
    corpus.add_argument(
        "--seed", type=int, default=0, metavar="S", help="the random seed (default: 0)"
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="K=V",
        help="a schedule parameter (durations like 30d, 12h); for a corpus, given to every "
        "compared schedule that takes it",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON rows (one page: day, changed, since_change_days, "
        "interval_before_days, interval_after_days)",
    )


def run_simulate(args: argparse.Namespace) -> int:
    """No project: a simulated page, or a corpus of them (docs/design.md §8, §11)."""
    if args.corpus and args.discovery:
        raise InvalidArgument("give --corpus N or --discovery N, not both")
    if args.corpus:
        return _simulate_corpus(args)
    if args.discovery:
        return _simulate_discovery(args)
    from recrawl.core.policy.simulate import simulate_page  # only simulate runs simulations

    if not args.schedule:
        raise InvalidArgument("simulate needs --schedule NAME (or --corpus N)")
    if (args.change_every is None) == (args.change_at is None):
        raise InvalidArgument("give exactly one of --change-every DUR or --change-at D1,D2,...")
    base = next((a.split("=", 1)[1].strip() for a in args.param if a.startswith("base=")), None)
    params = choices.parse_params(args.schedule, base, args.param)
    schedule = make_schedule(args.schedule, **params)
    change_at = None
    if args.change_at is not None:
        try:
            change_at = [float(d) * 86400 for d in args.change_at.split(",") if d.strip()]
        except ValueError:
            raise InvalidArgument(
                f"--change-at takes days like 0,3.5,10: {args.change_at!r}"
            ) from None
    if args.change_every is not None and args.change_every <= 0:
        raise InvalidArgument("--change-every must be longer than zero")
    rows = simulate_page(
        schedule,
        change_every=args.change_every,
        change_at=change_at,
        initial_interval=args.initial_interval,
        first_fetch=args.first_fetch,
        until=args.until,
    )
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(
            f"{'day':>9} {'changed':>8} {'since change':>13} {'interval before':>16} {'after':>10}"
        )
        for r in rows:
            since = (
                "none yet" if r["since_change_days"] is None else f"{r['since_change_days']:.2f} d"
            )
            print(
                f"{r['day']:>9.2f} {'yes' if r['changed'] else 'no':>8} {since:>13} "
                f"{r['interval_before_days']:>14.3f} d {r['interval_after_days']:>8.3f} d"
            )
    return 0


def _simulate_corpus(args: argparse.Namespace) -> int:
    from recrawl.core.policy.simulate import corpus_rates, optimum, simulate_corpus

    names = [n.strip() for n in (args.schedules or "").split(",") if n.strip()]
    if not names:
        raise InvalidArgument("--corpus needs --schedules A,B,...")
    rates = corpus_rates(args.corpus, args.seed)
    per_schedule = _corpus_params(names, args.param)
    rows = []
    for name in names:
        schedule = make_schedule(name, **per_schedule[name])
        result = simulate_corpus(schedule, rates, args.days, seed=args.seed)
        best = optimum(rates, result.fetches_per_page_per_day, args.days)
        row = result.to_json()
        row["optimum"] = {
            "freshness": round(best.freshness, 4),
            "mean_staleness_hours": round(best.mean_staleness_hours, 2),
        }
        rows.append(row)
    print_rows(
        rows,
        args.json,
        lambda row: (
            f"{row['schedule']:<16} {row['fetches_per_page_per_day']:8.3f} fetches/page/day"
            f"  freshness {row['freshness']:.3f} (optimum {row['optimum']['freshness']:.3f})"
            f"  staleness {human_duration(row['mean_staleness_hours'] * 3600)}"
        ),
    )
    return 0


def _simulate_discovery(args: argparse.Namespace) -> int:
    from recrawl.core.policy.simulate import corpus_rates
    from recrawl.core.policy.simulate_discovery import simulate_discovery

    names = [n.strip() for n in (args.schedules or "").split(",") if n.strip()]
    if not names:
        raise InvalidArgument("--discovery needs --schedules A,B,...")
    rates = corpus_rates(args.discovery, args.seed)
    per_schedule = _corpus_params(names, args.param)
    rows = [
        simulate_discovery(
            make_schedule(name, **per_schedule[name]), rates, args.days, seed=args.seed
        ).to_json()
        for name in names
    ]
    print_rows(
        rows,
        args.json,
        lambda row: (
            f"{row['schedule']:<16} {row['fetches_per_page_per_day']:8.3f} fetches/page/day"
            f"  discovery delay {_hours(row['mean_discovery_delay_hours'])}"
            f" (optimum {_hours(row['optimal_delay_hours'])})"
        ),
    )
    return 0


def _hours(hours: float) -> str:
    return human_duration(hours * 3600) if math.isfinite(hours) else "never"


def _corpus_params(names: list[str], assignments: list[str]) -> dict[str, dict[str, Any]]:
    """Each ``--param`` goes to every compared schedule that takes it; one none takes fails."""
    out: dict[str, dict[str, Any]] = {name: {} for name in names}
    for item in assignments:
        taken = False
        for name in names:
            try:
                out[name].update(choices.parse_params(name, None, [item]))
                taken = True
            except InvalidArgument:
                continue
        if not taken:
            raise InvalidArgument(f"none of {', '.join(names)} takes --param {item!r}")
    return out


COMMANDS = {
    "schedule": Command(_schedule_arguments, run_schedule),
    "signature": Command(_signature_arguments, run_signature),
    "scoring": Command(_scoring_arguments, run_scoring),
    "simulate": Command(_simulate_arguments, run_simulate),
}
