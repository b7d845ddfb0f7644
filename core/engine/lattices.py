"""Lattices: a host's URLs of one pattern whose numbers fill a grid, not a list.

A calendar whose every day links the next and previous day, month and year makes no
single growing sequence (:mod:`.traps`): its pages are reached by every mix of steps,
each at the least depth it can be, so only the depth limit bounds it (issue 25: 13,068
pages). What gives it away is the shape of its URLs and of its links. Of one pattern
(``/cal/{n}/{n}/{n}``) there are many URLs, yet no number of theirs takes many values
(31 days, 12 months, a few years); and its pages link each other by a step of one number
alone in more than one place (the next day, the next month, the next year).

A list of many things has neither. Articles (``/2027/01/05/4711.html``) have an
identifier, a number nearly as varied as the URLs are many. A thread's pages
(``/t/{n}/{n}``), an album's photos, an archive's days (``/2027/01/05/``, the next day
and the one before) are stepped through by one number only.

So a pattern of two numbers or more is a *lattice* once it has ``traps.max_lattice``
URLs, at least ``traps.lattice_grid`` times as many as its most varied number has values, and its
pages were seen to link each other by one-number steps in two places or more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recrawl.core.config import TrapSettings

#: A pattern checked at ``n`` URLs is checked again at ``n`` times this.
_CHECK_GROWTH = 1.1
_FORGET_BELOW = 3
_DATE_FIELD = re.compile(r"\{(?:year|month|day)\}")


def numbered(pattern: str) -> str:
    """A pattern as reported (``/cal/{year}/{month}/{day}``) with its numbers as ``{n}``,
    as :func:`~recrawl.core.engine.traps.pattern_of` writes them."""
    return _DATE_FIELD.sub("{n}", pattern)


@dataclass(frozen=True)
class Fields:
    """What a lattice's numbers are: a name for each (``year``, ``month``, ``day``, or
    ``n``) and how many values each took."""

    names: tuple[str, ...]
    values: tuple[int, ...]

    def pattern(self, text: str) -> str:
        """The pattern's text (numbers as ``{n}``) with its dates' fields named."""
        parts = text.split("{n}")
        out = [parts[0]]
        for name, part in zip(self.names, parts[1:], strict=True):
            out.append(f"{{{name}}}{part}")
        return "".join(out)

    def describe(self) -> str:
        """``12 months, 31 days, 9 years``: what the fields took, as read."""
        words = {"year": "years", "month": "months", "day": "days"}
        return ", ".join(
            f"{count:,} {words.get(name, 'values')}"
            for name, count in zip(self.names, self.values, strict=True)
        )


@dataclass(frozen=True)
class Lattice:
    """A pattern found to be a lattice: its text as reported (dates named) and what its
    numbers took when it was found."""

    pattern: str
    urls: int
    fields: Fields


class _Tracked:
    __slots__ = ("axes", "count", "first", "next_check", "values")

    def __init__(self, numbers: tuple[str, ...]) -> None:
        self.count = 1
        self.first: tuple[str, ...] | None = numbers  # sets only from the second URL
        self.values: list[set[str]] = []
        #: The numbers (by place) one of the pattern's pages was seen to step alone to
        #: another of its pages: the lattice's axes.
        self.axes: set[int] = set()
        self.next_check = 0


class LatticeFinder:
    """One crawl's patterns of two numbers or more, counted until each is found to be a
    lattice (:meth:`add` says so once) or to be a list (then no longer counted)."""

    def __init__(self, settings: TrapSettings) -> None:
        self.at_least = max(settings.max_lattice, 2)
        self.grid = settings.lattice_grid
        self.patterns_kept = settings.patterns_kept
        self._tracked: dict[str, _Tracked] = {}
        self._lists: set[str] = set()  # patterns found to be lists: not counted again

    def add(
        self, text: str, numbers: tuple[str, ...], linked_from: tuple[str, ...] | None
    ) -> Lattice | None:
        """Count a new URL of pattern ``text`` with ``numbers``, linked from a page of the
        same pattern with the numbers ``linked_from`` (None: of another pattern); the
        lattice it makes, the first time it does."""
        if len(numbers) < 2 or text in self._lists:
            return None
        tracked = self._tracked.get(text)
        if tracked is None:
            if len(self._tracked) >= self.patterns_kept:
                self._forget()
            tracked = self._tracked[text] = _Tracked(numbers)
            self._step(tracked, numbers, linked_from)
            return None
        self._step(tracked, numbers, linked_from)
        if tracked.first is not None:
            tracked.values = [{value} for value in tracked.first]
            tracked.first = None
            tracked.next_check = self.at_least
        for seen, value in zip(tracked.values, numbers, strict=True):
            seen.add(value)
        tracked.count += 1
        if tracked.count < tracked.next_check:
            return None
        return self._check(text, tracked)

    @staticmethod
    def _step(
        tracked: _Tracked, numbers: tuple[str, ...], linked_from: tuple[str, ...] | None
    ) -> None:
        if linked_from is None or len(tracked.axes) >= 2:
            return
        differ = [i for i, (a, b) in enumerate(zip(numbers, linked_from, strict=True)) if a != b]
        if len(differ) == 1:
            tracked.axes.add(differ[0])

    def _check(self, text: str, tracked: _Tracked) -> Lattice | None:
        count = tracked.count
        widest = max(len(seen) for seen in tracked.values)
        if widest * 2 >= count:  # one number nearly as varied as the URLs: identifiers
            self._as_list(text)
            return None
        tracked.next_check = max(count + 1, int(count * _CHECK_GROWTH))
        if count < self.grid * widest or len(tracked.axes) < 2:
            return None
        fields = _fields(tracked.values)
        self._as_list(text)  # reported once; the caller holds the pattern back
        return Lattice(fields.pattern(text), count, fields)

    def _as_list(self, text: str) -> None:
        del self._tracked[text]
        self._lists.add(text)

    def _forget(self) -> None:
        kept = {t: v for t, v in self._tracked.items() if v.count >= _FORGET_BELOW}
        # a crawl of endless distinct patterns, none repeated: start over
        self._tracked = kept if len(kept) < self.patterns_kept // 2 else {}


def _fields(values: list[set[str]]) -> Fields:
    """Name the numbers that read as dates: a year (four digits), then a month, then
    perhaps a day; or a day and a month (either order) before a year."""
    kinds = [_kind(seen) for seen in values]
    names = ["n"] * len(values)
    i = 0
    while i < len(kinds):
        if "year" in kinds[i] and i + 1 < len(kinds) and "month" in kinds[i + 1]:
            names[i], names[i + 1] = "year", "month"
            if i + 2 < len(kinds) and "day" in kinds[i + 2]:
                names[i + 2] = "day"
                i += 1
            i += 2
            continue
        if i + 2 < len(kinds) and "year" in kinds[i + 2]:
            if "day" in kinds[i] and "month" in kinds[i + 1]:
                names[i : i + 3] = ["day", "month", "year"]
                i += 3
                continue
            if "month" in kinds[i] and "day" in kinds[i + 1]:
                names[i : i + 3] = ["month", "day", "year"]
                i += 3
                continue
        i += 1
    return Fields(tuple(names), tuple(len(seen) for seen in values))


def _kind(seen: set[str]) -> set[str]:
    """What every value of a number could be: ``year``, ``month``, ``day``."""
    if all(len(v) == 4 and "1000" <= v <= "2999" for v in seen):
        return {"year"}
    if not all(len(v) <= 2 for v in seen):
        return set()
    numbers = [int(v) for v in seen]
    if min(numbers) < 1:
        return set()
    if max(numbers) <= 12:
        return {"month", "day"}
    return {"day"} if max(numbers) <= 31 else set()
