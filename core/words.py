"""Counts and shares as people read them, in the app and on the command line alike.

Machine output (``--json``, CSV) keeps the numbers; these are for sentences and tables.
"""

from __future__ import annotations

import math


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 host``, ``2 hosts``, ``1,204 pages``; ``words`` where adding an s is wrong
    (``plural(n, "entry", "entries")``)."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def percent(part: float, whole: float) -> str:
    """``part`` of ``whole`` as a whole percentage, rounded down: ``99 %`` for 459 of 461.

    Only all of it reads ``100 %`` and only none of it ``0 %``: a sliver either side
    reads ``<1 %`` or ``99 %``, so a share that is not complete never looks complete
    (and one that is not empty never looks empty). Nothing of nothing: ``0 %``.
    """
    if whole <= 0 or part <= 0:
        return "0 %"
    if part >= whole:
        return "100 %"
    share = math.floor(100 * part / whole)
    return "<1 %" if share == 0 else f"{share} %"


def bytes_text(count: int) -> str:
    """``10 MiB``, ``1.5 KiB``, ``300 bytes``: a size for people (JSON keeps bytes)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count:,} byte" + ("" if count == 1 else "s")
