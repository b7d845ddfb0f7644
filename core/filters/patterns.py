"""User patterns: RE2 (linear time) first; a backtracking engine with a time limit only
for what RE2 cannot express (backreferences, lookaround), as docs/design.md §6 allows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import re2
import regex

#: Per-match time limit for patterns RE2 cannot run (seconds); a timeout is a miss.
BACKTRACK_TIMEOUT = 0.05

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # the error is reported to the user, not to stderr


class CompiledPattern(Protocol):
    """What a compiled ``re2`` and a compiled ``regex`` pattern share (both untyped).

    ``options``: the backtracking engine's ``timeout``; RE2 needs none.
    """

    def search(self, text: str, **options: float) -> object | None: ...

    def fullmatch(self, text: str, **options: float) -> object | None: ...


@dataclass(frozen=True)
class Pattern:
    source: str
    full_match: bool
    engine: str  # "re2" or "backtracking"
    compiled: CompiledPattern

    @property
    def slow(self) -> bool:
        return self.engine != "re2"

    def matches(self, text: str) -> bool:
        if self.engine == "re2":
            method = self.compiled.fullmatch if self.full_match else self.compiled.search
            return method(text) is not None
        method = self.compiled.fullmatch if self.full_match else self.compiled.search
        try:
            return method(text, timeout=BACKTRACK_TIMEOUT) is not None
        except TimeoutError:
            return False


def compile_pattern(source: str, full_match: bool = False) -> Pattern:
    """Compile with RE2, else with the backtracking engine; ValueError if neither can."""
    try:
        return Pattern(source, full_match, "re2", re2.compile(source, _RE2_OPTIONS))
    except re2.error as re2_error:
        try:
            compiled = regex.compile(source)
        except regex.error as exc:
            raise ValueError(f"invalid pattern {source!r}: {exc}") from None
        del re2_error
        return Pattern(source, full_match, "backtracking", compiled)
