"""Nutch filter files ⇄ chains, and chain lint (docs/design.md §6)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import ChainError, parse_chain
from recrawl.core.filters.chain import build_filter
from recrawl.core.filters.lint import lint
from recrawl.core.filters.nutch import (
    DEFAULT_ORDER,
    export_nutch,
    import_nutch,
    left_out,
    parse_order,
)

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


def test_order_imports_only_the_kinds_it_names_in_its_order(tmp_path):
    order = parse_order("suffix,regex,prefix,automaton")
    chain = parse_chain(import_nutch(CONF, order))
    assert [f.kind for f in chain.filters] == ["suffix", "regex", "prefix", "automaton"]
    assert [(kind, path.name) for kind, path in left_out(CONF, order)] == [
        ("domain-deny", "domaindenylist-urlfilter.txt.template"),
        ("domain", "domain-urlfilter.txt"),
    ]
    assert left_out(CONF, None) == []
    with pytest.raises(InvalidArgument, match="unknown filter kind 'regexp'"):
        parse_order("suffix,regexp")
    # an order naming only kinds the folder lacks imports nothing: the same clear error
    only_domain = _one(tmp_path, "domain-urlfilter.txt")
    with pytest.raises(InvalidArgument, match=r"no Nutch URL filter file .*\(looked for regex"):
        import_nutch(only_domain, parse_order("regex"))


def test_missing_or_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(InvalidArgument, match="no Nutch conf folder"):
        import_nutch(tmp_path / "nope", None)
    with pytest.raises(InvalidArgument, match="no Nutch URL filter file"):
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


# -- host blocks (NUTCH-1838) ------------------------------------------------------------

NUTCH_HOST_BLOCKS = """\
# skip file:, ftp: and mailto: urls
-^(file|ftp|mailto):

# rules for one site and its subdomains only
> example.org
-/private/
+^https?://(www\\.)?example\\.org/
<

> www.example.co.uk
-\\?
<

# accept anything else
+.
"""


@pytest.mark.parametrize("kind", ["regex", "automaton"])
def test_host_blocks_import_run_and_export_unchanged(tmp_path, kind):
    base = "regex-urlfilter" if kind == "regex" else "automaton-urlfilter"
    rules = NUTCH_HOST_BLOCKS if kind == "regex" else NUTCH_HOST_BLOCKS.replace("+.\n", "+.*\n")
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / f"{base}.txt").write_text(rules)
    text = import_nutch(conf, None)
    (flt,) = parse_chain(text).filters
    assert [(r.line, r.host) for r in flt.rules] == [
        (2, None), (6, "example.org"), (7, "example.org"), (11, "www.example.co.uk"), (15, None)
    ]  # fmt: skip
    if kind == "regex":
        assert flt.decide("https://a.example.org/private/x").line == 6  # domain example.org
        assert flt.decide("https://www.example.co.uk/?q").outcome == "reject"
        assert flt.decide("https://shop.example.co.uk/?q").outcome == "accept"  # not its host
        assert flt.decide("mailto:me@example.org").line == 2
    written = export_nutch(parse_chain(text), tmp_path / "out")
    assert written[0].path.read_text() == rules  # byte for byte, blocks and all
    assert import_nutch(tmp_path / "out", None) == text


@pytest.mark.parametrize(
    ("rules", "line", "quoted", "reason"),
    [
        ("# c\n+ok\n-(unclosed\n", 3, "-(unclosed", "invalid pattern '(unclosed'"),
        ("+ok\n> \n+x\n", 2, ">", "a host block starts with > and one host or domain name"),
        ("+ok\n> http://example.org/\n", 2, "> http://example.org/", "a host block starts"),
        ("\n\n*oops\n", 3, "*oops", "a rule starts with + or -"),
    ],
)
def test_import_errors_quote_file_line_and_text(tmp_path, rules, line, quoted, reason):
    path = tmp_path / "regex-urlfilter.txt"
    path.write_text(rules)
    with pytest.raises(ChainError) as error:
        import_nutch(tmp_path, None)
    assert str(error.value).startswith(f"{path}, line {line}: {quoted!r}: {reason}")


def test_lint_upper_case_host_text():
    chain = parse_chain(
        "[[filter]]\nkind='prefix'\nname='p'\nrules='''\n"
        "https://Example.com/\nhttps://example.com/Docs/\nhttps://User@Example.com/\n'''\n"
        "[[filter]]\nkind='regex'\nname='r'\nrules='''\n"
        "-^https?://www\\.Example\\.com/\n"  # 1: never matches
        "-(?i)^https?://www\\.Example\\.com/\n"  # 2: case-insensitive
        "-/Private/\n"  # 3: a path: case matters there
        "-^https?://Example\\.com/|x\n"  # 4: another branch may match
        "-^https?://Admin\n"  # 5: could be user info (Admin@host)
        "-https?://Example\\.com/\n"  # 6: unanchored: may be found in a query
        "> Example.org\n-a\n<\n"  # 8: a block for an upper-case host
        "+.\n'''\n"
        "[[filter]]\nkind='automaton'\nname='a'\nrules='''\n"
        "+(http|https)://Example\\.com/.*\n+http://example\\.com/.*\n'''\n"
    )
    upper = {(w.filter, w.line): w.message for w in lint(chain) if "lower case" in w.message}
    assert sorted(upper) == [(0, 1), (1, 1), (1, 8), (2, 1)]
    assert upper[(0, 1)].startswith("upper-case host text 'Example.com': hosts in canonical")
    assert upper[(1, 1)].endswith("so this pattern never matches")
    assert upper[(1, 8)] == "host block > Example.org: hosts are lower case, so its rules never run"


def test_lint_reads_host_blocks_as_scopes():
    chain = parse_chain(
        "[[filter]]\nkind='regex'\nname='r'\nrules='''\n"
        "> a.org\n-/private/\n+.\n<\n"  # lines 2, 3: a catch-all for a.org alone
        "> b.org\n-/private/\n-/tmp/\n<\n"  # line 6: not a duplicate of line 2
        "-/x/\n"  # 9: reached by other hosts
        "> a.org\n-/tmp/\n<\n"  # 11: never decides (line 3 catches a.org first)
        "-/x/\n"  # 13: a duplicate of line 9
        "> b.org\n-/x/\n"  # 15: shadowed by line 9, which runs for every URL
        "'''\n"
    )
    got = sorted((w.line, w.message.split(" (")[0].split(":")[0]) for w in lint(chain))
    assert got == [(11, "never decides"), (13, "duplicate pattern"), (15, "duplicate pattern")]


def test_an_import_keeps_the_projects_embed_rules(tmp_path):
    (tmp_path / "prefix-urlfilter.txt").write_text("http://a.org/\n")
    embeds = parse_chain(
        "[[embed]]\nkind = \"domain-deny\"\nname = \"no-ads\"\nrules = '''\nads.example\n'''\n"
    ).embed_rules.filters
    chain = parse_chain(import_nutch(tmp_path, embeds=embeds))
    assert [f.kind for f in chain.filters] == ["prefix"]
    assert [f.name for f in chain.embed_rules.filters] == ["no-ads"]


SCOPE_BYPASS = """
[[filter]]
kind = "regex"
name = "early"
rules = '''
+SHORTCIRCUIT:\\.pdf$
+SHORTCIRCUIT:^https://docs\\.example\\.org/
+SHORTCIRCUIT:^https://example\\.org\\.evil\\.com/
> example.org
+SHORTCIRCUIT:/keep/
<
+SHORTCIRCUIT:^https?://(www\\.)?example\\.org/
+.
'''

[[filter]]
kind = "prefix"
name = "seeds"
rules = '''
SHORTCIRCUIT:https://example.org:8080/a
SHORTCIRCUIT:https://other.net/
SHORTCIRCUIT:https://example.org
https://
'''

[[filter]]
kind = "domain"
name = "allow"
rules = '''
SHORTCIRCUIT:cdn.example.org
SHORTCIRCUIT:org
example.net
'''

[[filter]]
kind = "domain"
name = "scope"
rules = '''
example.org
'''

[[filter]]
kind = "regex"
name = "late"
rules = '''
+SHORTCIRCUIT:.
'''
"""


def test_lint_warns_of_a_short_circuit_that_bypasses_the_scope():
    chain = parse_chain(SCOPE_BYPASS)
    bypass = {(w.filter, w.line): str(w) for w in lint(chain) if "bypassed" in w.message}
    # off-site reach: an unanchored pattern, a look-alike host, a pattern lint cannot
    # read, another host, a prefix whose host may go on (example.org.evil.com), a suffix
    assert sorted(bypass) == [(0, 1), (0, 3), (0, 7), (1, 2), (1, 3), (2, 2)]
    assert bypass[(0, 1)] == (
        "filter 0 (early), line 1: short-circuit rule '\\.pdf$' accepts URLs before the "
        "scope filter: the chain's scope can be bypassed (what it matches skips filter 3 "
        "(scope), off-site URLs too; name a scope host in it, or move it after the scope "
        "filter)"
    )
    # what they let in really is off-site, and the scope would have rejected it
    off_site = "https://elsewhere.net/a.pdf"
    assert chain.check(off_site).shortcircuit and chain.check(off_site).filter == 0
    assert chain.filters[3].decide(off_site).outcome == "reject"

    # the scope disabled, emptied (accepts every URL) or missing: nothing to bypass
    for changed in (
        SCOPE_BYPASS.replace('name = "scope"\n', 'name = "scope"\nenabled = false\n'),
        SCOPE_BYPASS.replace("'''\nexample.org\n'''", "'''\n'''"),
        SCOPE_BYPASS.replace('name = "scope"', 'name = "site"'),
    ):
        assert not [w for w in lint(parse_chain(changed)) if "bypassed" in w.message]
    # the early filters disabled: their rules never run
    disabled = SCOPE_BYPASS.replace('name = "early"\n', 'name = "early"\nenabled = false\n')
    assert {w.filter for w in lint(parse_chain(disabled)) if "bypassed" in w.message} == {1, 2}


def test_the_default_chain_does_not_warn_of_a_scope_bypass():
    from recrawl.core.filters.scope import DEFAULT_CHAIN_FILE, widen_scope
    from recrawl.core.resources import resource_text

    chain = parse_chain(resource_text(DEFAULT_CHAIN_FILE))
    assert widen_scope(chain, ["example.org"])
    assert lint(parse_chain(chain.to_toml())) == []


def test_an_order_naming_no_kind_says_so():
    with pytest.raises(InvalidArgument, match="--order names no kind of filter"):
        import_nutch(CONF, [])
