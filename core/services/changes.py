"""Change rules (docs/design.md §17): set, unset, previewed on the pages' history; the
pages under a changed rule re-signed so their next fetch compares like with like."""

from __future__ import annotations

import threading
from collections.abc import Callable

from recrawl.core.engine.change_preview import Preview, PreviewProgress, preview_rule
from recrawl.core.engine.re_signing import ReSigningProgress, recompute_signatures
from recrawl.core.policy import choices
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, project_rules, save_rules
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
        rule.check()
        with self.project.active():
            save_rules(project_rules().with_rule(rule))
            return self._re_sign(rule.prefix, progress, stop)

    def unset(
        self,
        prefix: str,
        *,
        progress: Callable[[ReSigningProgress], None] | None = None,
        stop: threading.Event | None = None,
    ) -> ReSigningProgress:
        """Drop the rule on ``prefix``; its pages re-signed under what applies now."""
        with self.project.active():
            save_rules(project_rules().without(prefix))
            return self._re_sign(prefix, progress, stop)

    def preview(
        self,
        rule: ChangeRule,
        *,
        progress: Callable[[PreviewProgress], None] | None = None,
        stop: threading.Event | None = None,
    ) -> Preview:
        """What ``rule`` would have judged otherwise in the matching pages' history
        (nothing saved)."""
        rule.check()
        with self.project.active():
            return preview_rule(self.project.path, rule, progress=progress, stop=stop)

    def _re_sign(
        self,
        prefix: str,
        progress: Callable[[ReSigningProgress], None] | None,
        stop: threading.Event | None,
    ) -> ReSigningProgress:
        # the rule is kept first: stopped before its pages are all re-signed, those left
        # say "unknown" once (never a change of rule taken for a change of content)
        try:
            return recompute_signatures(
                self.project.path,
                choices.project_signature(),
                under=prefix,
                progress=progress,
                stop=stop,
            )
        finally:
            self.changed()
