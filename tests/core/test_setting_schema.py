"""A setting's facts live in its field (core/config.py); values are read and checked by it."""

from __future__ import annotations

from dataclasses import dataclass, fields

import pytest
from recrawl.core.config import (
    SETTINGS,
    STORABLE,
    CrawlSettings,
    PolitenessSettings,
    setting_value,
    with_overrides,
)
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import crawl_settings
from recrawl.core.setting_schema import SettingSpec, setting, specs


def test_every_field_of_the_settings_is_in_the_schema_with_help():
    names = {f.name for f in fields(PolitenessSettings)}
    assert {name.removeprefix("politeness.") for name in SETTINGS if "politeness." in name} == names
    for spec in SETTINGS.values():
        assert spec.help.endswith("."), spec.name
        if not spec.name.startswith(("project.", "view.")):
            assert spec.default == setting_value(CrawlSettings(), spec.name), spec.name
    assert SETTINGS["fetch.total_timeout"].optional
    assert SETTINGS["fetch.max_body_bytes"].kind == "size"
    assert SETTINGS["politeness.delay"].kind == "duration"
    assert [spec.name for spec in STORABLE.values()] == [
        s.name for s in SETTINGS.values() if s.stored
    ]


def test_a_field_without_its_facts_is_refused():
    @dataclass(frozen=True)
    class Bare:
        wait: float = 1.0

    (item,) = fields(Bare)
    with pytest.raises(TypeError, match="setting wait has no help"):
        SettingSpec.of("wait", item, float)


@dataclass(frozen=True, kw_only=True)
class Sample:
    wait: float = setting(2.0, help="A wait.", unit="s", min=0, above_min=True)
    tries: int = setting(3, help="Tries.", unit="tries", min=1, max=10)


def test_text_and_values_pass_the_same_check():
    wait, tries = specs(Sample)
    assert wait.parse("2m") == 120.0 and wait.check(5) == 5.0
    assert tries.parse("10") == 10 and tries.text(10) == "10"
    with pytest.raises(InvalidArgument) as caught:
        tries.parse("11")
    assert str(caught.value) == "tries: must be at most 10: '11'"
    with pytest.raises(InvalidArgument) as caught:
        tries.check(0)
    assert str(caught.value) == "tries: must be at least 1, not 0"
    with pytest.raises(InvalidArgument, match="wait: must be more than 0"):
        wait.check(0.0)
    assert wait.bounds_text() == "> 0s" and tries.bounds_text() == "1 to 10"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1.0, "politeness.delay: must not be negative, not -1.0"),
        (0, "politeness.per_host: must be at least 1, not 0"),
        ("fast", "politeness.concurrency: takes a whole number, not 'fast'"),
    ],
)
def test_a_bad_stored_value_is_refused_on_load_in_one_line(project, value, message):
    # written past the checks (an older version, a hand-edited store): reading refuses it
    from recrawl.core import store

    name = message.partition(":")[0]
    store.set_setting(crawl_settings.SETTING_KEY, {name: value})
    with pytest.raises(InvalidArgument) as caught:
        crawl_settings.project_crawl_settings()
    said = str(caught.value)
    assert said.startswith(message) and "\n" not in said
    assert said.endswith(f"(kept in the project: `recrawl settings DIR --unset {name}` forgets it)")


def test_flags_may_override_settings_a_project_does_not_keep():
    assert with_overrides(CrawlSettings(), {"rounds": 2}, kept=False).rounds == 2
    with pytest.raises(InvalidArgument, match="no crawl setting 'rounds'"):
        with_overrides(CrawlSettings(), {"rounds": 2})
    with pytest.raises(InvalidArgument, match="rounds: must be at least 1"):
        with_overrides(CrawlSettings(), {"rounds": 0}, kept=False)


def test_a_new_project_starts_with_the_defaults_of_the_schema(project):
    from recrawl.core import store
    from recrawl.core.config import PROJECT_DEFAULTS
    from recrawl.core.filters import parse_chain
    from recrawl.core.policy import choices
    from recrawl.core.policy.scoring import make_scoring
    from recrawl.core.policy.signature import make_signature
    from recrawl.core.resources import resource_text

    assert store.get_setting("schedule")["name"] == PROJECT_DEFAULTS.schedule
    assert store.get_setting("signature") == PROJECT_DEFAULTS.signature
    assert store.get_setting("scoring") == PROJECT_DEFAULTS.scoring
    assert choices.chain_text() == resource_text(PROJECT_DEFAULTS.chain_file)
    # each names what its registry knows
    make_scoring(PROJECT_DEFAULTS.scoring)
    make_signature(PROJECT_DEFAULTS.signature)
    parse_chain(resource_text(PROJECT_DEFAULTS.chain_file))
