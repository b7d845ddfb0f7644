"""crawl's flags are made from the settings schema: its help, its checks, its fields."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest
from recrawl.core.cli import setting_flags
from recrawl.core.cli.setting_flags import FLAGS, add_setting_flags, flag_overrides
from recrawl.core.config import SETTINGS
from recrawl.core.setting_schema import setting, specs

from recrawl.main import main


def test_every_setting_with_a_flag_is_an_option_with_its_help(capsys):
    with pytest.raises(SystemExit):
        main(["crawl", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    flagged = [spec for spec in SETTINGS.values() if spec.flag]
    assert {spec.flag for spec in flagged} == {
        "--delay",
        "--per-host",
        "--concurrency",
        "--ignore-robots",
        "--timeout",
        "--rounds",
        "--max-pages",
    }
    for spec in flagged:
        assert spec.flag in text
        assert " ".join((spec.meta.flag_help or spec.help).split()) in text, spec.name
    assert [spec.name for spec in FLAGS["--timeout"]] == [
        "fetch.read_timeout",
        "fetch.connect_timeout",
    ]


@dataclass(frozen=True, kw_only=True)
class Sample:
    wait: float = setting(2.0, help="How long to wait.", unit="s", min=1, flag="--wait")
    quiet: bool = setting(False, help="Say nothing.", flag="--quiet")


def test_a_field_that_names_a_flag_becomes_an_option(monkeypatch, capsys):
    made = list(specs(Sample, "x."))
    monkeypatch.setattr(setting_flags, "FLAGS", {spec.flag: (spec,) for spec in made})
    parser = argparse.ArgumentParser(prog="p")
    add_setting_flags(parser)
    args = parser.parse_args(["--wait", "1m", "--quiet"])
    assert flag_overrides(args) == {"x.wait": 60.0, "x.quiet": True}
    assert flag_overrides(parser.parse_args([])) == {}
    assert "How long to wait. Sets x.wait for this crawl." in " ".join(parser.format_help().split())
    with pytest.raises(SystemExit):
        parser.parse_args(["--wait", "0.5"])  # the setting's own bound
    assert "argument --wait: must be at least 1: '0.5'" in capsys.readouterr().err


def test_a_flag_and_settings_set_refuse_a_bad_value_alike(tmp_path, capsys):
    d = tmp_path / "p"
    main(["init", str(d)])
    capsys.readouterr()
    assert main(["settings", str(d), "--set", "politeness.delay=-1"]) == 1
    by_set = capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["crawl", str(d), "--delay", "-1"])
    by_flag = capsys.readouterr().err
    assert by_set.count("\n") == by_flag.count("\n") == 1
    assert "politeness.delay: must not be negative: '-1'" in by_set
    assert "argument --delay: must not be negative: '-1'" in by_flag
