"""The ``score-tiers`` schedule: another schedule, with the best-scored pages capped."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from recrawl.core.clock import DAY
from recrawl.core.policy.schedule import Change, Corpus, Decision, FetchSchedule, ScheduleInput
from recrawl.core.policy.schedules.base import LEARNED, fixed_override, next_fetch_time
from recrawl.core.policy.schedules.wrapping import FromBase


@dataclass(kw_only=True)
class ScoreTiers(FromBase):
    """Wraps a schedule: the best-scored pages are never left alone for long.

    Pages in the top 1 % by score get at most ``top1`` (1 day), the top 10 % at most
    ``top10`` (7 days); everything else is the wrapped schedule's decision.
    """

    base: FetchSchedule
    top1: float = DAY
    top10: float = 7 * DAY
    #: The lowest scores in the top 1 % and 10 %, learned by :meth:`prepare`.
    cut1: float = field(default=math.inf, metadata=LEARNED)
    cut10: float = field(default=math.inf, metadata=LEARNED)
    name = "score-tiers"
    #: The percentiles come from the whole project's scores.
    needs_corpus = True

    # -- the base's, unchanged (and the rest of FromBase) -----------------------------------

    @property
    def counts_new_links(self) -> bool:
        return self.base.counts_new_links

    # -- the tiers -------------------------------------------------------------------------

    def prepare(self, corpus: Corpus) -> None:
        self.base.prepare(corpus)
        if corpus.scores.size:
            self.cut1 = _tier_cut(corpus.scores, 0.01)
            self.cut10 = _tier_cut(corpus.scores, 0.10)

    def after_fetch(self, page: ScheduleInput, change: Change) -> Decision:
        return self._cap(page, self.base.after_fetch(page, change))

    def _cap(self, page: ScheduleInput, decision: Decision) -> Decision:
        cap = (
            self.top1
            if page.score >= self.cut1
            else self.top10
            if page.score >= self.cut10
            else None
        )
        if cap is None or decision.interval <= cap or fixed_override(page) is not None:
            return decision
        return Decision(
            cap,
            min(decision.next_fetch, next_fetch_time(page.fetched_at, cap, page.fetched_at)),
            decision.metadata,
            decision.change_rate,
        )


def _tier_cut(scores: np.ndarray, share: float) -> float:
    """The lowest score inside the top ``share`` of pages, by rank.

    Ties at the boundary are left out when including them would overfill the tier (with
    in-link counts most pages tie), and a page scoring nothing is never in a tier.
    """
    ranked = np.sort(scores)[::-1]
    k = max(1, math.ceil(share * len(ranked)))
    cut = float(ranked[k - 1])
    if np.count_nonzero(ranked >= cut) > k:  # the tie spills over: only strictly above
        above = ranked[ranked > cut]
        cut = float(above[-1]) if above.size else math.inf
    return cut if cut > 0 else math.inf
