"""The filter chain: made the project's and applied to the known pages (docs/design.md §6)."""

from __future__ import annotations

from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import choices
from recrawl.core.policy.choices import AppliedChain
from recrawl.core.policy.filter_reach import Progress
from recrawl.core.services.service import Service


class ChainService(Service):
    def apply(
        self, text: str, *, base: str | None = None, progress: Progress | None = None
    ) -> AppliedChain:
        """Make ``text`` the chain and apply it to the known pages (``progress(done,
        total)`` as they are judged); the watcher is told.

        ``base``: the chain the edit started from; refused when the stored one moved on
        since (new seeds added their hosts to the scope filter: writing the old draft
        back would silently take them out again).
        """
        with self.project.active():
            if base is not None and choices.chain_text() != base:
                raise InvalidArgument(
                    "the project's chain changed since it was loaded (adding seeds adds "
                    "their hosts to the scope filter); Revert to see it, then make your "
                    "edit again"
                )
            applied = choices.apply_chain(text, progress=progress)
        self.changed()
        return applied
