"""Change rules (docs/design.md §17): set, unset, previewed on the pages' history; the
pages under a changed rule re-signed so their next fetch compares like with like.

Interface only (step 17 is being built).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from recrawl.core.engine.change_preview import Preview, PreviewProgress
from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, project_rules
from recrawl.core.services.service import Service


class ChangesService(Service):
    def rules(self) -> ChangeRules:
        with self.project.active():
            return project_rules()

    def set(
        self,
        rule: ChangeRule,
        *,
        progress: Callable[[ReSigningProgress], None] | None = None,
        stop: threading.Event | None = None,
    ) -> ReSigningProgress:
        """Keep ``rule`` (checked first: a bad one saves nothing), then re-sign the pages
        it now applies to (a stop ends it after the batch in hand; setting it again resumes)."""
        raise NotImplementedError

    def unset(
        self,
        prefix: str,
        *,
        progress: Callable[[ReSigningProgress], None] | None = None,
        stop: threading.Event | None = None,
    ) -> ReSigningProgress:
        """Drop the rule on ``prefix``; its pages re-signed under what applies now."""
        raise NotImplementedError

    def preview(
        self,
        rule: ChangeRule,
        *,
        progress: Callable[[PreviewProgress], None] | None = None,
        stop: threading.Event | None = None,
    ) -> Preview:
        """What ``rule`` would have judged otherwise in the matching pages' history
        (nothing saved)."""
        raise NotImplementedError
