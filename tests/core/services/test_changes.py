"""The changes service (docs/design.md §17): rules kept on the project's own store, from
any thread; a set or unset tells the watcher; a preview or a bad rule changes nothing."""

from __future__ import annotations

import threading

import pytest
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules
from recrawl.core.project import Project
from recrawl.core.services import Services

from tests.support.histories import archive_history

RULE = ChangeRule("news.example/", remove=(".ticker",))


def test_set_and_unset_keep_the_rules_and_wake_the_watcher(project, woken):
    changes = Services(project).changes
    before = woken.count
    changes.set(RULE)
    assert woken.wait_for(before + 1)
    assert changes.rules() == ChangeRules((RULE,))
    before = woken.count
    changes.unset(RULE.prefix)
    assert woken.wait_for(before + 1)
    assert changes.rules() == ChangeRules()


def test_a_bad_rule_or_a_preview_saves_nothing(project):
    changes = Services(project).changes
    changes.set(RULE)
    with pytest.raises(InvalidArgument, match="is not a CSS selector"):
        changes.set(ChangeRule("news.example/live/", remove=("div[[",)))
    with pytest.raises(InvalidArgument, match="is not a CSS selector"):
        changes.preview(ChangeRule("news.example/live/", only=("div[[",)))
    archive_history(project.path, "http://news.example/a", ["<p>one</p>", "<p>two</p>"])
    assert changes.preview(ChangeRule("news.example/", added_only=True)).judged == 1
    assert changes.rules() == ChangeRules((RULE,))


def test_it_runs_on_its_own_project_from_another_thread(tmp_path):
    a = Project.init(tmp_path / "a")
    b = Project.init(tmp_path / "b")  # active in this thread now
    try:
        errors: list[BaseException] = []

        def set_rule() -> None:
            try:
                Services(a).changes.set(RULE)
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=set_rule)
        thread.start()
        thread.join(60)
        assert not errors
        assert Services(a).changes.rules() == ChangeRules((RULE,))
        assert Services(b).changes.rules() == ChangeRules()
    finally:
        b.close()
        a.close()
