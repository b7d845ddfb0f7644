"""A change rule tried on the pages' own history before it is saved (docs/design.md §17).

Interface only (step 17 is being built): what a preview says.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class PreviewExample:
    """One past fetch the rule would have judged otherwise: open its two captures."""

    url: str
    #: The fetch's capture, and the one before it it was compared with (UTC).
    at: datetime
    before: datetime
    #: What the project's current rules said, and what the new rule says: "changed",
    #: "unchanged".
    was: str
    would_be: str


@dataclass(frozen=True)
class PreviewProgress:
    """How far a preview has come (the CLI's progress line, the editor's bar)."""

    pages: int
    captures: int
    done: int = 0


@dataclass(frozen=True)
class Preview:
    """What a rule would have done to the matching pages' past fetches."""

    prefix: str
    #: Pages under the prefix, and the pairs of consecutive captures judged.
    pages: int
    judged: int
    #: Past fetches that were changed and would have been unchanged, and the reverse.
    to_unchanged: int
    to_changed: int
    #: Some of each, newest first (a few per page at most).
    examples: tuple[PreviewExample, ...]
    #: Pairs that could not be judged (a capture unreadable, not text).
    unreadable: int = 0
    stopped: bool = False
