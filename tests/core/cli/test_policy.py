"""The policy commands: schedule, signature and scoring persist; simulate's tables."""

from __future__ import annotations

import itertools
import json

import pytest
from recrawl.core.clock import DAY

from recrawl.main import main


def test_schedule_and_signature_commands_persist(tmp_path, capsys):
    d = str(tmp_path / "p")
    assert main(["init", d]) == 0
    assert main(["schedule", d, "--set", "nutch-adaptive", "--param", "inc_rate=0.3",
                 "--param", "max@example.com=2d", "--json"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["schedule", d, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["name"] == "nutch-adaptive" and shown["inc_rate"] == 0.3
    assert shown["hosts"] == {"example.com": {"max": 2 * DAY}}
    assert main(["signature", d, "--set", "simhash"]) == 0
    assert main(["signature", d, "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == {"signature": "simhash"}
    assert main(["schedule", d, "--param", "min@example.com=1h"]) == 0
    capsys.readouterr()
    assert main(["schedule", d, "--json"]) == 0
    hosts = json.loads(capsys.readouterr().out)["hosts"]
    assert hosts == {"example.com": {"max": 2 * DAY, "min": 3600.0}}  # merged, not replaced
    assert main(["scoring", d, "--set", "opic"]) == 0
    assert main(["scoring", d, "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == {"scoring": "opic"}
    assert main(["schedule", d, "--set", "change-rate", "--param", "target=2"]) == 1
    assert "target must be between 0 and 1" in capsys.readouterr().err


def test_a_minimum_above_the_stored_maximum_is_refused_and_nothing_saved(tmp_path, capsys):
    d = str(tmp_path / "p")
    assert main(["init", d]) == 0
    assert main(["schedule", d, "--param", "max=1d"]) == 0
    assert main(["schedule", d, "--param", "min=2d"]) == 1  # against the max kept before
    assert "min is longer than max (2.0 d > 1.0 d)" in capsys.readouterr().err
    assert main(["schedule", d, "--param", "max@example.com=1h"]) == 0
    assert main(["schedule", d, "--param", "min@example.com=2h"]) == 1
    assert "min is longer than max for example.com" in capsys.readouterr().err
    assert main(["schedule", d, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["min"], shown["max"]) == (None, DAY)
    assert shown["hosts"] == {"example.com": {"max": 3600.0}}


def test_simulate_one_page_prints_the_hand_drawn_table(capsys):
    assert main(["simulate", "--schedule", "aronsson", "--change-every", "1d",
                 "--until", "30d", "--json"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert set(rows[0]) == {"day", "changed", "since_change_days", "interval_before_days",
                            "interval_after_days"}  # fmt: skip
    # day 0: the page changed at day 0, since the last fetch 10 days before
    assert rows[0] == {"day": 0.0, "changed": True, "since_change_days": 0.0,
                       "interval_before_days": 10.0,
                       "interval_after_days": round((0.5 * 10 * DAY + 1800) / DAY, 4)}  # fmt: skip
    for before, after in itertools.pairwise(rows):
        assert after["day"] == pytest.approx(
            before["day"] + before["interval_after_days"], abs=1e-3
        )
        assert after["interval_before_days"] == before["interval_after_days"]
    assert rows[-1]["day"] <= 30


def test_simulate_score_tiers_takes_its_base_parameters(capsys):
    assert main(["simulate", "--schedule", "score-tiers", "--param", "base=nutch-adaptive",
                 "--param", "inc_rate=0.5", "--change-every", "3d", "--until", "20d",
                 "--json"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["interval_before_days"] == 30.0  # nutch-adaptive's initial interval


def test_simulate_change_at_and_no_changes(capsys):
    assert main(["simulate", "--schedule", "fixed", "--change-at", "3,40",
                 "--first-fetch", "1d", "--until", "95d", "--json"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert [r["day"] for r in rows] == [1.0, 31.0, 61.0, 91.0]
    assert [r["changed"] for r in rows] == [False, True, True, False]
    assert rows[0]["since_change_days"] is None
    assert rows[2]["since_change_days"] == 21.0


def test_simulate_corpus_reports_each_schedule_and_the_optimum(capsys):
    assert main(["simulate", "--corpus", "300", "--days", "60",
                 "--schedules", "aronsson,change-rate", "--json"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert [r["schedule"] for r in rows] == ["aronsson", "change-rate"]
    for row in rows:
        assert 0 < row["freshness"] <= row["optimum"]["freshness"] + 0.02
        assert row["fetches_per_page_per_day"] > 0


def test_simulate_corpus_takes_params_for_the_schedules_that_have_them(capsys):
    def run(*extra: str) -> dict[str, float]:
        code = main(["simulate", "--corpus", "200", "--days", "30",
                     "--schedules", "fixed,aronsson", "--json", *extra])  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, err
        return {r["schedule"]: r["fetches_per_page_per_day"] for r in json.loads(out)}

    plain = run()
    tuned = run("--param", "initial=1d")  # both take it: fixed's only interval
    assert tuned["fixed"] == pytest.approx(1.0, rel=0.05) != plain["fixed"]
    tuned = run("--param", "increase=2.0")  # only aronsson takes it
    assert tuned["fixed"] == plain["fixed"] and tuned["aronsson"] < plain["aronsson"]
    assert main(["simulate", "--corpus", "10", "--schedules", "fixed", "--param", "nope=1"]) == 1
    assert "none of fixed takes --param 'nope=1'" in capsys.readouterr().err


def test_simulate_discovery_reports_the_delay_and_its_optimum(capsys):
    assert main(["simulate", "--discovery", "300", "--days", "60",
                 "--schedules", "fixed,discovery", "--param", "initial=1d", "--json"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert [set(r) for r in rows] == [
        {"schedule", "fetches_per_page_per_day", "mean_discovery_delay_hours",
         "optimal_delay_hours"}
    ] * 2  # fmt: skip
    fixed, discovery = rows
    # a page visited every day: a new link waits half a day
    assert fixed["fetches_per_page_per_day"] == pytest.approx(1.0, rel=0.02)
    assert fixed["mean_discovery_delay_hours"] == pytest.approx(12, rel=0.1)
    for row in rows:
        assert row["mean_discovery_delay_hours"] >= row["optimal_delay_hours"] * 0.95
    assert discovery["mean_discovery_delay_hours"] < discovery["optimal_delay_hours"] * 1.25
    assert main(["simulate", "--discovery", "10", "--corpus", "10", "--schedules", "fixed"]) == 1
    assert "not both" in capsys.readouterr().err
    assert main(["simulate", "--discovery", "10"]) == 1
    assert "--discovery needs --schedules" in capsys.readouterr().err


def test_schedule_set_discovery_with_its_base_and_their_parameters(tmp_path, capsys):
    d = str(tmp_path / "p")
    assert main(["init", d]) == 0
    assert main(["schedule", d, "--set", "discovery", "--param", "budget=3",
                 "--param", "base=nutch-adaptive", "--param", "inc_rate=0.3",
                 "--param", "hub_max=2d", "--param", "probe=none"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["schedule", d, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["name"] == "discovery" and shown["budget"] == 3.0
    assert shown["hub_max"] == 2 * DAY and shown["probe"] is None
    assert shown["base"]["name"] == "nutch-adaptive" and shown["base"]["inc_rate"] == 0.3
    assert main(["schedule", d]) == 0
    line = capsys.readouterr().out
    assert "budget=3" in line and "hub_max=2d" in line and "base=nutch-adaptive" in line
    assert main(["schedule", d, "--param", "base=score-tiers"]) == 1
    assert "discovery's base is one of" in capsys.readouterr().err
    assert main(["schedule", d, "--param", "budget=0"]) == 1
    assert "budget must be more than 0" in capsys.readouterr().err
