"""The operations on a project: each runs on its project's store, from any thread, and
each that changes what is due tells the project's watcher itself."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.policy import choices
from recrawl.core.project import Project
from recrawl.core.services import Services


def _seeded(project: Project) -> Services:
    services = Services(project)
    services.seeds.add(["http://a.example/", "http://b.example/"], utcnow())
    return services


CHANGES: dict[str, Callable[[Services], object]] = {
    "seeds": lambda s: s.seeds.add(["http://c.example/"], utcnow()),
    "sources": lambda s: s.seeds.add_sources(["http://a.example/feed"], "feed", utcnow()),
    "schedule": lambda s: s.schedule.set(None, ["initial=2h"]),
    "chain": lambda s: s.chain.apply(choices.chain_text()),
    "settings": lambda s: s.settings.save({"politeness.delay": 0.5}),
    "remove site": lambda s: s.sites.remove("b.example"),
    "capture mode": lambda s: s.sites.set_capture_mode("a.example", "browser"),
    "re-signing": lambda s: s.re_signing.switch("md5"),
    "fix an interval": lambda s: s.schedule.fix_interval("http://a.example/", 3600.0, utcnow()),
}


@pytest.mark.parametrize("change", list(CHANGES), ids=list(CHANGES))
def test_each_change_of_what_is_due_wakes_the_watcher(project, woken, change):
    services = _seeded(project)
    before = woken.count
    CHANGES[change](services)
    assert woken.wait_for(before + 1), f"{change} did not wake the watcher"


def test_a_refetch_that_moves_nothing_wakes_no_one(project, woken):
    services = _seeded(project)  # the seeds are due now already
    before = woken.count
    assert services.schedule.refetch(utcnow(), everything=True).made_due == 0
    assert woken.count == before


def test_setting_the_scoring_moves_no_due_time_and_wakes_no_one(project, woken):
    services = _seeded(project)
    before = woken.count
    assert services.schedule.set_scoring("opic").kind == "opic"
    assert woken.count == before


def test_operations_run_on_their_own_project_from_any_thread(tmp_path):
    a = Project.init(tmp_path / "a")
    b = Project.init(tmp_path / "b")  # active here now; a's operations still go to a
    try:
        errors: list[BaseException] = []

        def add() -> None:  # a new thread: no project active in it
            try:
                Services(a).seeds.add(["http://a.example/"], utcnow())
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=add)
        thread.start()
        thread.join(60)
        assert not errors
        Services(a).seeds.add(["http://a2.example/"], utcnow())
        assert store.page_count() == 0  # b's store, untouched
        with a.active():
            assert sorted(p["url"] for p in store.list_pages()) == [
                "http://a.example/",
                "http://a2.example/",
            ]
    finally:
        b.close()
        a.close()
