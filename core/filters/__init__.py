"""URL filter chains (docs/design.md §6): kinds, verdicts with provenance, chain files."""

from recrawl.core.filters.chain import (
    PLAIN_ACCEPT,
    Chain,
    ChainError,
    Filter,
    Step,
    Verdict,
    parse_chain,
)
from recrawl.core.filters.kinds import ACCEPT, KINDS, REJECT, SHORTCIRCUIT, FilterResult

__all__ = [
    "ACCEPT",
    "KINDS",
    "PLAIN_ACCEPT",
    "REJECT",
    "SHORTCIRCUIT",
    "Chain",
    "ChainError",
    "Filter",
    "FilterResult",
    "Step",
    "Verdict",
    "parse_chain",
]
