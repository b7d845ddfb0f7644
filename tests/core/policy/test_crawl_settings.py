"""A project keeps its crawl settings; a crawl starts from them (flags override)."""

from __future__ import annotations

import pytest
from recrawl.core.config import CrawlSettings, with_overrides
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import crawl_settings
from recrawl.core.project import Project


def test_kept_settings_apply_to_the_defaults_and_survive_reopening(project):
    assert crawl_settings.project_crawl_settings() == CrawlSettings()
    crawl_settings.save({"politeness.delay": 0.05, "politeness.per_host": 2})
    path = project.path
    project.close()
    again = Project.open(path)
    try:
        settings = crawl_settings.project_crawl_settings()
        assert settings.politeness.delay == 0.05 and settings.politeness.per_host == 2
        assert settings.fetch == CrawlSettings().fetch  # what is not kept stays default
        crawl_settings.save({"politeness.delay": None})  # forget: the default again
        assert crawl_settings.stored() == {"politeness.per_host": 2}
    finally:
        again.close()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"politeness.speed": 1.0}, "no crawl setting 'politeness.speed'"),
        ({"politeness.per_host": "two"}, "politeness.per_host: takes a whole number"),
        ({"politeness.per_host": True}, "politeness.per_host: takes a whole number"),
        ({"politeness.obey_robots": 1}, "politeness.obey_robots: takes true or false"),
    ],
)
def test_a_wrong_setting_is_refused_and_nothing_is_saved(project, changes, message):
    crawl_settings.save({"politeness.delay": 2.0})
    with pytest.raises(InvalidArgument, match=message):
        crawl_settings.save(changes)
    assert crawl_settings.stored() == {"politeness.delay": 2.0}


def test_whole_numbers_are_taken_for_seconds():
    settings = with_overrides(CrawlSettings(), {"fetch.read_timeout": 5})
    assert settings.fetch.read_timeout == 5.0 and isinstance(settings.fetch.read_timeout, float)


def test_a_kept_value_this_version_refuses_says_how_to_forget_it(project):
    # an agent with a space at its end, kept by a Recrawl that took it (every fetch failed)
    from recrawl.core import store

    store.set_setting(crawl_settings.SETTING_KEY, {"fetch.user_agent": "Archivist/1.0 "})
    with pytest.raises(InvalidArgument) as refused:
        crawl_settings.project_crawl_settings()
    assert "fetch.user_agent: must be printable ASCII" in str(refused.value)
    assert "`recrawl settings DIR --unset fetch.user_agent`" in str(refused.value)
    crawl_settings.save({"fetch.user_agent": None})  # forgetting it needs no valid rest
    assert crawl_settings.project_crawl_settings() == CrawlSettings()
