"""What a compaction reports while it runs (the Segments panel's progress bar)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CompactionProgress:
    phase: str  # "copy", "commit", "rename", "delete", "done"
    done: int  # bytes copied, or steps done
    total: int


Progress = Callable[[CompactionProgress], None]


def quiet(_: CompactionProgress) -> None:
    """The progress of a compaction nobody watches."""
