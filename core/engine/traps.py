"""Crawler traps: sites that make up pages without end (issue 12's calendar, whose every
day links the next).

Two limits hold a link back (:class:`~recrawl.core.config.TrapSettings`): its depth
(links followed from a seed) and its place in a *sequence*, a chain of pages whose URLs
differ only by a growing number or date, each linking the next. A URL's *pattern* is the
URL with every number of its path and query written ``{n}``
(``http://example.org/cal/2027-01-05`` → ``http://example.org/cal/{n}-{n}-{n}``); a link
to a URL of the linking page's pattern, with larger numbers, is the next step of the
linking page's sequence. A page's place in its sequence is kept in its metadata
(``sequence``), so a chain is followed across rounds and crawls.

A sequence is reported in the crawl's log as a possible trap, with its pattern, when it
is halfway to the limit (once a crawl; a site's pages of a list in a row are no alarm),
and again when it reaches the limit and its
next link is held back; the crawl ends with a line per pattern held back. A held-back link
is a rejected link whose filter names the trap, so "why was this not crawled?" answers. A
pattern the user allows (``traps.allowed_patterns``, as reported) is followed to the end
(its depth still counts).

A calendar whose every day links the next and previous day, month and year makes no
such chain: its pages are reached by every mix of steps. Its URLs make a *lattice*
(:mod:`.lattices`): past ``traps.max_lattice`` links of its pattern it is reported as a
possible trap, its dates named (``http://example.org/cal/{year}/{month}/{day}``), and
every further link of the pattern is held back, this crawl and the next ones (the
held-back links, kept as rejected links, name it), unless the user allows it (as
reported, or with ``{n}`` for each number).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from recrawl.core.config import TrapSettings
from recrawl.core.engine.events import EventQueue, LogMessage, PossibleTrap
from recrawl.core.engine.lattices import LatticeFinder, numbered
from recrawl.core.store.models import Page

#: A sequence this long, at least, and halfway to ``traps.max_sequence``, is reported as
#: a possible trap (once a crawl), followed or not.
NOTICE_AT = 3
#: The metadata key of a page's place in its sequence (absent: 0, not in one).
SEQUENCE_KEY = "sequence"

_NUMBER = re.compile(r"\d+")
#: What every trap's held-back links are named, first (their rejected links' filter).
REASON_PREFIX = "possible trap "
_LATTICE_REASON = re.compile(r"possible trap (\S+) \(traps\.max_lattice [\d,]+\)")


@dataclass(frozen=True)
class Pattern:
    """A URL with its numbers taken out: ``text`` (numbers as ``{n}``) and the numbers."""

    text: str
    numbers: tuple[str, ...]

    def grows_from(self, other: Pattern) -> bool:
        """Same pattern, and the numbers larger (the first one that differs decides)."""
        if self.text != other.text or not self.numbers:
            return False
        for mine, theirs in zip(self.numbers, other.numbers, strict=True):
            if mine != theirs:
                return _magnitude(mine) > _magnitude(theirs)
        return False


def _magnitude(digits: str) -> tuple[int, str]:
    # compared as numbers without int(): a URL may carry thousands of digits
    significant = digits.lstrip("0")
    return len(significant), significant


def pattern_of(url: str) -> Pattern:
    """The URL's pattern: numbers of its path and query as ``{n}`` (its host's kept)."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    rest = url[len(origin) :] if url.startswith(origin) else url
    return Pattern(origin + _NUMBER.sub("{n}", rest), tuple(_NUMBER.findall(rest)))


@dataclass(frozen=True)
class Admitted:
    """A link the limits let through: its depth and place in a sequence."""

    depth: int
    sequence: int


class TrapGuard:
    """One crawl's trap limits; says what it held back in the crawl's log."""

    def __init__(self, settings: TrapSettings, events: EventQueue) -> None:
        self.settings = settings
        self.events = events
        self._allowed = frozenset(numbered(pattern) for pattern in settings.allowed_patterns)
        self._noticed: set[str] = set()
        #: Links held back by a pattern (sequences, lattices) or by depth, this crawl:
        #: by the pattern as reported, with the limit that held them.
        self.held: dict[str, int] = {}
        self._held_by: dict[str, str] = {}
        self.held_too_deep = 0
        self._source: tuple[str, Pattern] | None = None
        self._lattices = LatticeFinder(settings)
        #: The lattices held back, as reported, by pattern (numbers as ``{n}``).
        self._lattice_of: dict[str, str] = {}
        #: Of them, the ones an earlier crawl found (said when first met this crawl).
        self._found_before: set[str] = set()

    def held_before(self, reasons: Iterable[str]) -> None:
        """The reasons earlier crawls held links back for (rejected links' filters): the
        lattices among them stay held back unless now allowed."""
        for reason in reasons:
            match = _LATTICE_REASON.fullmatch(reason)
            if match is None:
                continue
            pattern = match.group(1)
            key = numbered(pattern)
            if key not in self._allowed:
                self._lattice_of[key] = pattern
                self._found_before.add(key)

    def _pattern_of_source(self, url: str) -> Pattern:
        """The linking page's pattern, made once for all its links."""
        if self._source is None or self._source[0] != url:
            self._source = (url, pattern_of(url))
        return self._source[1]

    def depth_reason(self) -> str:
        return f"deeper than traps.max_depth ({self.settings.max_depth:,} links from a seed)"

    @staticmethod
    def sequence_reason(pattern: str, limit: int) -> str:
        return f"{REASON_PREFIX}{pattern} (traps.max_sequence {limit:,})"

    @staticmethod
    def lattice_reason(pattern: str, limit: int) -> str:
        return f"{REASON_PREFIX}{pattern} (traps.max_lattice {limit:,})"

    def admit(self, page: Page, url: str) -> Admitted | str:
        """The link from ``page`` to ``url`` within the limits, or the reason it is held
        back (the rejected link's filter name)."""
        settings = self.settings
        depth = page.depth + 1
        if depth > settings.max_depth:
            if not self.held_too_deep:
                self.events.emit(
                    LogMessage(
                        "warning",
                        f"{url} (linked from {page.url}) is {self.depth_reason()}: held "
                        "back, as are the other links past that depth this crawl",
                    )
                )
            self.held_too_deep += 1
            return self.depth_reason()
        target = pattern_of(url)
        allowed = target.text in self._allowed
        if not allowed and target.text in self._lattice_of:
            pattern = self._lattice_of[target.text]
            if target.text in self._found_before:
                self._found_before.discard(target.text)
                self.events.emit(
                    LogMessage(
                        "warning",
                        f"possible trap: {pattern}: a grid of links, as a calendar makes, "
                        f"found by an earlier crawl; {url} and further links of the pattern "
                        "held back (traps.max_lattice; to follow them, add the pattern to "
                        "traps.allowed_patterns)",
                    )
                )
            return self._hold_lattice(pattern)
        source = self._pattern_of_source(page.url)
        place = 0
        if target.grows_from(source):
            place = int((page.metadata or {}).get(SEQUENCE_KEY, 0)) + 1
            if not allowed:
                held = self._sequence_step(target, url, place)
                if held is not None:
                    return held
        if not allowed:
            linked_from = source.numbers if source.text == target.text else None
            lattice = self._lattices.add(target.text, target.numbers, linked_from)
            if lattice is not None:
                self._lattice_of[target.text] = lattice.pattern
                self.events.emit(
                    LogMessage(
                        "warning",
                        f"possible trap: {lattice.pattern}: {lattice.urls:,} links of one "
                        f"pattern that differ only in their numbers ({lattice.fields.describe()}"
                        "), a grid of them as a calendar makes; "
                        f"{url} and further links of the pattern held back "
                        "(traps.max_lattice; to follow them, add the pattern to "
                        "traps.allowed_patterns)",
                    )
                )
                return self._hold_lattice(lattice.pattern)
        return Admitted(depth, place)

    def _sequence_step(self, target: Pattern, url: str, place: int) -> str | None:
        """The next step of a sequence at ``place``: the reason it is held back, if it is."""
        limit = self.settings.max_sequence
        if place > limit:
            if target.text not in self.held:
                self.events.emit(
                    LogMessage(
                        "warning",
                        f"possible trap: {target.text}: {limit:,} pages in a row, each "
                        f"linking the next; {url} and further links of the pattern held "
                        "back (traps.max_sequence; to follow them, add the pattern to "
                        "traps.allowed_patterns)",
                    )
                )
            self._count_held(target.text, "traps.max_sequence")
            return self.sequence_reason(target.text, limit)
        if place >= max(NOTICE_AT, limit // 2) and target.text not in self._noticed:
            self._noticed.add(target.text)
            self.events.emit(
                LogMessage(
                    "warning",
                    f"possible trap: {target.text}: {place:,} pages in a row, each linking "
                    f"the next with a growing number; followed up to {limit:,} "
                    "(traps.max_sequence) unless the pattern is in traps.allowed_patterns",
                )
            )
        return None

    def _hold_lattice(self, pattern: str) -> str:
        self._count_held(pattern, "traps.max_lattice")
        return self.lattice_reason(pattern, self.settings.max_lattice)

    def _count_held(self, pattern: str, limit: str) -> None:
        self.held[pattern] = self.held.get(pattern, 0) + 1
        self._held_by[pattern] = limit

    def possible_traps(self) -> list[PossibleTrap]:
        """The patterns held back this crawl, for its summary."""
        return [
            PossibleTrap(pattern, self._held_by[pattern].removeprefix("traps.max_"), count)
            for pattern, count in self.held.items()
        ]

    def summary(self) -> list[LogMessage]:
        """The crawl's closing lines: each pattern held back, and the links too deep."""
        lines = [
            LogMessage(
                "warning",
                f"possible trap {pattern}: {count:,} link{'s' * (count != 1)} held back "
                f"this crawl ({self._held_by[pattern]})",
            )
            for pattern, count in self.held.items()
        ]
        if self.held_too_deep:
            lines.append(
                LogMessage(
                    "warning",
                    f"{self.held_too_deep:,} links held back this crawl: {self.depth_reason()}",
                )
            )
        return lines
