"""Page scores (docs/design.md §4, used by generate and score-tiers): pluggable by kind.

- ``inlinks`` (default): the number of known pages linking to the page.
- ``opic``: Abiteboul's On-line Page Importance Computation, as Nutch's OPIC filter
  does it: each page holds cash; fetching it hands its cash to its outlinks in equal
  parts, and a page's score is all the cash it ever received.

A scoring adds its changes to the commit batch; :func:`recrawl.core.store.commit_batch` applies
them in the same transaction as the links they come from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from recrawl.core.errors import InvalidArgument
from recrawl.core.store import CommitBatch
from recrawl.core.store.models import Page


class Scoring(Protocol):
    # A read-only property, so that frozen dataclasses satisfy the protocol.
    @property
    def kind(self) -> str: ...

    def seed_fields(self) -> dict[str, Any]:
        """Column values for an injected page."""
        ...

    def on_fetched(self, page: Page, outlinks: Sequence[str], batch: CommitBatch) -> dict[str, Any]:
        """Record the score effects of a fetch in ``batch``; returns column updates for
        the page itself."""
        ...


@dataclass(frozen=True)
class InlinkScoring:
    kind: str = "inlinks"

    def seed_fields(self) -> dict[str, Any]:
        return {"score": 0.0}

    def on_fetched(self, page: Page, outlinks: Sequence[str], batch: CommitBatch) -> dict[str, Any]:
        batch.rescore.update(outlinks)
        return {}


@dataclass(frozen=True)
class OpicScoring:
    kind: str = "opic"

    def seed_fields(self) -> dict[str, Any]:
        return {"score": 1.0, "cash": 1.0}

    def on_fetched(self, page: Page, outlinks: Sequence[str], batch: CommitBatch) -> dict[str, Any]:
        if not outlinks or page.cash <= 0:
            return {}
        share = page.cash / len(outlinks)
        batch.cash.extend((url, share) for url in outlinks)
        # Paid out relative to what the page held when the round began: cash it
        # received since (from earlier batches) stays for its next fetch.
        batch.payouts.append((page.url, page.cash))
        return {}


SCORINGS: dict[str, Callable[[], Scoring]] = {"inlinks": InlinkScoring, "opic": OpicScoring}


def make_scoring(kind: str = "inlinks") -> Scoring:
    try:
        return SCORINGS[kind]()
    except KeyError:
        raise InvalidArgument(
            f"unknown scoring {kind!r} (known: {', '.join(sorted(SCORINGS))})"
        ) from None
