"""bench/change_bench.py's site-noise cases (issue 28), on a corpus small enough to be fast:
each case's pages carry its widget and move it on, its rule is one ``recrawl changes``
accepts, and the table says the rules meet their targets where the default does not."""

from __future__ import annotations

import pytest
from recrawl.core.policy.change_rules import ChangeRule

from bench.change_bench import (
    QUOTES,
    SITE_NOISES,
    TEAMS,
    TRENDING,
    SitePair,
    main,
    measure_site,
    site_corpus,
)


@pytest.fixture(scope="module")
def pairs() -> list[SitePair]:
    return site_corpus(3, 13)


def test_every_case_has_noise_and_edit_pairs_on_its_page_kinds(pairs: list[SitePair]) -> None:
    for case in SITE_NOISES:
        mine = [p for p in pairs if p.case == case]
        assert sum(p.label == "noise" for p in mine) == 12
        assert sum(p.label == "edit" for p in mine) == 12
        templates = {p.template for p in mine}
        assert templates == (
            {"listing"} if case == "expired ads" else {"article", "listing", "product", "forum"}
        )


def test_a_noise_pair_differs_only_by_the_sites_widget(pairs: list[SitePair]) -> None:
    # the widget's words are on the page and move on; the ordinary noise only in `noisy`
    words = {
        "ticker": TRENDING,
        "rotating quote": [q for q, _ in QUOTES],
        "live score": TEAMS,
        "expired ads": ["Price: €"],
    }
    for pair in pairs:
        assert pair.old != pair.new != pair.noisy
        assert any(w in pair.old for w in words[pair.case]), pair.case


def test_each_rule_is_one_recrawl_changes_accepts(pairs: list[SitePair]) -> None:
    kinds = {
        "ticker": lambda r: bool(r.remove) and not (r.only or r.ignore or r.added_only),
        "rotating quote": lambda r: bool(r.only) and not (r.ignore or r.added_only),
        "live score": lambda r: bool(r.ignore) and not (r.remove or r.only or r.added_only),
        "expired ads": lambda r: r.added_only and not (r.remove or r.only or r.ignore),
    }
    for pair in pairs:
        pair.rule.check()
        assert kinds[pair.case](pair.rule), pair.rule
        assert pair.rule.matches("https://news.example.org/story/1")
        assert isinstance(pair.rule, ChangeRule)


def test_the_table_shows_the_default_fooled_and_the_rules_on_target(
    pairs: list[SitePair], capsys: pytest.CaptureFixture[str]
) -> None:
    assert measure_site(pairs)
    lines = capsys.readouterr().out.splitlines()
    for case in SITE_NOISES:
        at = next(i for i, line in enumerate(lines) if line.startswith(case + " ("))
        default, ruled = lines[at].split()[-4:], lines[at + 1].split()[-4:]
        assert "main-text + rule" in lines[at + 1]
        assert float(default[0].rstrip("%")) > 0, lines[at]  # the default alone is fooled
        assert float(ruled[0].rstrip("%")) == 0, lines[at + 1]  # its rule is not
    assert lines[-1].startswith("main-text + rule: recall")
    assert lines[-1].endswith(": met")


def test_the_command_prints_both_tables_and_says_whether_the_rules_met_their_targets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--per", "1", "--site-per", "2", "--signatures", "main-text"]) == 0
    out = capsys.readouterr().out
    assert "noise kind (false alarm %)" in out  # the ordinary corpus's tables, as before
    assert "case (noise/edits)" in out
    assert "main-text + rule: recall" in out
