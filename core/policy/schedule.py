"""The fetch-schedule plug-in point (docs/design.md §4): what a schedule is and what it sees.

A schedule is anything with the :class:`FetchSchedule` surface; the built-in ones live in
:mod:`recrawl.core.policy.schedules`, registered by name. The engine hands a schedule a
:class:`ScheduleInput` snapshot of the page at each fetch and stores the :class:`Decision`
it returns. All intervals are float seconds; a decision never puts the next fetch in the
past (NUTCH-1564).

Schedules whose decisions depend on the whole project (``change-rate``'s budget split,
``score-tiers``' percentiles, ``discovery``'s hub intervals) say so with ``needs_corpus`` and get corpus figures through
``prepare(corpus)`` before a round; the simulator calls the same method.

This module imports no numpy at run time: the signature and store layers use
:class:`Change` without paying for the schedules' arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np


class Change(StrEnum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    UNKNOWN = "unknown"


#: The codes the array rules (:meth:`BaseSchedule.step`) take a change as.
CHANGE_CODES = {Change.CHANGED: 1, Change.UNCHANGED: 0, Change.UNKNOWN: -1}


@dataclass(frozen=True, kw_only=True)
class ScheduleInput:
    """What a schedule may know about one page at one fetch (times naive UTC)."""

    url: str = ""
    host: str = ""
    interval: float
    fetched_at: datetime
    last_fetched: datetime | None = None
    #: When the crawler last saw the content change, *before* this fetch.
    content_changed_at: datetime | None = None
    prev_content_changed_at: datetime | None = None
    score: float = 1.0
    #: The page's ``metadata`` column: ``fixed_interval`` and the schedule's own state.
    metadata: dict[str, Any] = field(default_factory=dict)
    #: Outlinks of this fetch that were not among the page's outlinks at its previous
    #: fetch (a 304: 0); None when there is nothing to compare with (a first fetch, a
    #: page that is not HTML) or the schedule does not count them (``counts_new_links``).
    new_links: int | None = None


@dataclass(frozen=True)
class Decision:
    interval: float
    next_fetch: datetime
    #: Per-page schedule state to keep in ``metadata`` (e.g. change-rate statistics).
    metadata: dict[str, Any] | None = None
    #: The page's estimated change rate (changes per second), when the schedule has one.
    change_rate: float | None = None
    #: The page's estimated rate of new outlinks (per second), when the schedule has one.
    link_rate: float | None = None


def _empty() -> np.ndarray:
    import numpy as np  # here: this module must not import numpy when it is imported

    return np.empty(0)


@dataclass(frozen=True)
class Corpus:
    """Project-wide figures some schedules need: estimated change rates, scores and
    new-link rates (per second; pages without an estimate are left out)."""

    rates: np.ndarray
    scores: np.ndarray
    link_rates: np.ndarray = field(default_factory=_empty)


class FetchSchedule(Protocol):
    """What the engine, the simulator, the CLI and the GUI use of a schedule.

    Attributes are read-only properties here so that dataclass fields, class attributes
    and properties all satisfy them.
    """

    @property
    def name(self) -> str:
        """The name it is registered by (``recrawl schedule``, simulation labels)."""
        ...

    @property
    def needs_corpus(self) -> bool:
        """Whether :meth:`prepare` needs the project's figures before each round."""
        ...

    @property
    def counts_new_links(self) -> bool:
        """Whether fetches should say how many of the page's outlinks are new
        (``ScheduleInput.new_links``; it costs hashing each page's links)."""
        ...

    @property
    def retry_interval(self) -> float:
        """Seconds before a failed fetch (or one robots.txt refused) is tried again."""
        ...

    @property
    def hosts(self) -> Mapping[str, Mapping[str, float]]:
        """Per-host or per-domain ``{"min": s, "max": s}`` overrides of the bounds."""
        ...

    def initial_interval(self) -> float:
        """Interval of a page when it is first discovered."""
        ...

    def after_fetch(self, page: ScheduleInput, change: Change) -> Decision:
        """After a successful fetch whose content change was ``change``."""
        ...

    def after_gone(self, page: ScheduleInput) -> Decision:
        """After a 404/410 (or too many failures)."""
        ...

    def after_retry(self, page: ScheduleInput) -> Decision:
        """After a failed fetch that will be tried again."""
        ...

    def bounds(self, host: str) -> tuple[float, float | None]:
        """The interval bounds that apply to ``host`` (for plots and checks)."""
        ...

    def interval_range(self, host: str) -> tuple[float, float]:
        """The intervals a page of ``host`` can have (``max`` infinite when unbounded): its
        bounds, or one value for a schedule that ignores the last interval (``fixed``).
        A changed schedule re-plans the pages whose interval lies outside
        (:mod:`recrawl.core.policy.replan`)."""
        ...

    def prepare(self, corpus: Corpus) -> None:
        """Learn project-wide figures before a round (no-op for most schedules)."""
        ...
