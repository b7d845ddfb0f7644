"""Nutch filter files ⇄ chains, and chain lint (DESIGN.md §6)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import ChainError, parse_chain
from recrawl.core.filters.chain import build_filter
from recrawl.core.filters.lint import lint
from recrawl.core.filters.nutch import DEFAULT_ORDER, export_nutch, import_nutch, parse_order

CONF = Path(__file__).resolve().parents[2] / "data" / "nutch-conf"

# (file in tests/data/nutch-conf, kind) for every shipped Nutch file kept there
SHIPPED = [
    ("regex-urlfilter.txt.template", "regex"),
    ("automaton-urlfilter.txt.template", "automaton"),
    ("suffix-urlfilter.txt", "suffix"),
    ("prefix-urlfilter.txt", "prefix"),
    ("domain-urlfilter.txt", "domain"),
    ("domaindenylist-urlfilter.txt.template", "domain-deny"),
]


def _one(tmp_path: Path, file: str) -> Path:
    folder = tmp_path / "conf"
    folder.mkdir()
    shutil.copy(CONF / file, folder / file)
    return folder


@pytest.mark.parametrize(("file", "kind"), SHIPPED)
def test_each_shipped_file_imports_alone(tmp_path, file, kind):
    chain = parse_chain(import_nutch(_one(tmp_path, file), None))
    (flt,) = chain.filters
    assert flt.kind == kind
    assert flt.name == file.removesuffix(".template").removesuffix(".txt")
    assert flt.rules_text == (CONF / file).read_text(encoding="utf-8")  # lines match the file


def test_suffix_template_with_two_mode_lines_imports():
    # Nutch's template sets "+I" on line 4 and "+P" on line 7: the flags combine
    text = (CONF / "suffix-urlfilter.txt.template").read_text(encoding="utf-8")
    flt = build_filter(0, {"kind": "suffix", "name": "suffix-urlfilter", "rules": text})
    assert flt.impl.ignore_case and flt.impl.path_only and not flt.impl.listed_accept


def test_whole_conf_folder_imports_in_default_order():
    chain = parse_chain(import_nutch(CONF, None))
    assert [f.kind for f in chain.filters] == list(DEFAULT_ORDER)
    regex = next(f for f in chain.filters if f.kind == "regex")
    # the loop-breaking backreference rule loads, on the backtracking engine
    slow = [r for r in regex.rules if r.pattern.slow]
    assert [r.line for r in slow] == [35]
    assert regex.decide("http://example.com/a/b/a/c/a/d/").outcome == "reject"
    assert chain.filters[0].decide("http://example.com/photo.GIF").outcome == "reject"


def test_newer_regex_template_loop_rule_is_accepted(tmp_path):
    # newer Nutch templates spell the loop rule with [^/]+ (RE2 cannot run it either)
    rules = "# skip loops\n-.*(/[^/]+)/[^/]+\\1/[^/]+\\1/\n+.\n"
    (tmp_path / "regex-urlfilter.txt").write_text(rules)
    (flt,) = parse_chain(import_nutch(tmp_path, None)).filters
    assert flt.rules[0].line == 2 and flt.rules[0].pattern.slow
    assert flt.decide("http://h/x/y/x/z/x/q").outcome == "reject"
    assert flt.decide("http://h/x/y/").outcome == "accept"


def test_order_puts_listed_kinds_first_and_keeps_the_rest():
    chain = parse_chain(import_nutch(CONF, parse_order("suffix,regex,prefix,automaton")))
    assert [f.kind for f in chain.filters] == [
        "suffix",
        "regex",
        "prefix",
        "automaton",
        "domain-deny",
        "domain",
    ]
    with pytest.raises(InvalidArgument, match="unknown filter kind 'regexp'"):
        parse_order("suffix,regexp")


def test_missing_or_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(InvalidArgument, match="no Nutch conf folder"):
        import_nutch(tmp_path / "nope", None)
    with pytest.raises(InvalidArgument, match="no Nutch URL filter file"):
        import_nutch(tmp_path, None)


def test_bad_file_names_filter_and_line(tmp_path):
    (tmp_path / "regex-urlfilter.txt").write_text("# c\n+ok\n-(unclosed\n")
    with pytest.raises(ChainError, match=r"filter 0 \(regex-urlfilter\), line 3"):
        import_nutch(tmp_path, None)


def test_export_then_import_round_trip(tmp_path):
    text = import_nutch(CONF, None)
    written = export_nutch(parse_chain(text), tmp_path / "out")
    assert sorted(p.path.name for p in written) == [
        "automaton-urlfilter.txt",
        "domain-urlfilter.txt",
        "domaindenylist-urlfilter.txt",
        "prefix-urlfilter.txt",
        "regex-urlfilter.txt",
        "suffix-urlfilter.txt",
    ]
    assert import_nutch(tmp_path / "out", None) == text


def test_export_numbers_a_second_filter_of_a_kind_and_skips_disabled(tmp_path):
    chain = parse_chain(
        "[[filter]]\nkind='regex'\nname='regex-urlfilter'\nrules='''\n+a\n'''\n"
        "[[filter]]\nkind='regex'\nname='regex-urlfilter-2'\nrules='''\n-b\n+.\n'''\n"
        "[[filter]]\nkind='domain'\nenabled=false\nrules='''\nexample.com\n'''\n"
    )
    out = export_nutch(chain, tmp_path)
    assert [(e.index, e.path.name if e.path else None) for e in out] == [
        (0, "regex-urlfilter.txt"),
        (1, "regex-urlfilter-2.txt"),
        (2, None),
    ]
    assert (tmp_path / "regex-urlfilter-2.txt").read_text() == "-b\n+.\n"
    back = parse_chain(import_nutch(tmp_path, None))
    assert [(f.name, f.rules_text) for f in back.filters] == [
        ("regex-urlfilter", "+a\n"),
        ("regex-urlfilter-2", "-b\n+.\n"),
    ]


# -- lint --------------------------------------------------------------------------------

LINTED = """
[[filter]]
kind = "prefix"
name = "seeds"
rules = '''
SHORTCIRCUIT:https://example.com/keep/
https://example.com/
example.org/
https://example.com/
'''

[[filter]]
kind = "regex"
name = "clean"
rules = '''
-\\?sid=
+.
-private
-(a)\\1
'''

[[filter]]
kind = "domain-deny"
name = "deny"
rules = '''
bad.example.com
bad.example.com
'''

[[filter]]
kind = "suffix"
name = "binaries"
enabled = false
rules = '''
+
.jpg
'''
"""


def test_lint_warnings():
    got: dict[tuple[int, int | None], str] = {}
    for w in lint(parse_chain(LINTED)):
        got[(w.filter, w.line)] = got.get((w.filter, w.line), "") + w.message + "\n"
    assert "no http:// or https:// scheme" in got[(0, 3)]
    assert "duplicate prefix (line 2" in got[(0, 4)]
    assert "URLs that short-circuit at filter 0 (seeds) never reach this rule" in got[(1, 1)]
    assert "never decides: the rule on line 2 matches every URL" in got[(1, 3)]
    assert "short-circuit" in got[(2, 1)]
    assert "duplicate entry (line 1" in got[(2, 2)]
    # the disabled suffix filter never runs: no short-circuit warning for it
    assert not any(k[0] == 3 for k in got)
    slow = [w for w in lint(parse_chain(LINTED)) if "slow and unsafe" in w.message]
    assert [(w.filter, w.line) for w in slow] == [(1, 4)]
    assert "RE2 cannot run it" in slow[0].message
    assert str(slow[0]).startswith("filter 1 (clean), line 4: ")


def test_lint_quiet_on_a_clean_chain():
    chain = parse_chain(
        "[[filter]]\nkind='regex'\nrules='''\n-\\.jpg$\n+^https://\n'''\n"
        "[[filter]]\nkind='prefix'\nrules='''\nhttps://example.com/\n'''\n"
    )
    assert lint(chain) == []
