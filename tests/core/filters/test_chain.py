"""Filter kinds and chains: the edge cases of docs/design.md §6, with provenance."""

from __future__ import annotations

import time

import pytest
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.filters import ChainError, parse_chain
from recrawl.core.filters.chain import explain_rules
from recrawl.core.store.models import Page, RejectedLink

from tests.support.crawling import crawl


def chain(*filters: tuple[str, str] | tuple[str, str, bool]) -> object:
    tables = []
    for spec in filters:
        kind, rules = spec[0], spec[1]
        enabled = spec[2] if len(spec) > 2 else True
        tables.append(
            f'[[filter]]\nkind = "{kind}"\nenabled = {str(enabled).lower()}\n'
            f"rules = '''\n{rules}'''\n"
        )
    return parse_chain("\n".join(tables))


def verdict(c, url: str) -> tuple[str, bool, int | None, int | None]:
    v = c.check(url)
    return v.word, v.shortcircuit, v.filter, v.line


def test_prefix_longest_match_decides():
    c = chain(("prefix", "http://a.com/\nSHORTCIRCUIT:http://a.com/docs/\nhttp://a.com/docs/x"))
    assert verdict(c, "http://a.com/docs/y") == ("accept", True, 0, 2)
    assert verdict(c, "http://a.com/docs/xyz") == ("accept", False, None, None)  # line 3 wins
    assert c.check("http://a.com/docs/xyz").accepted
    assert verdict(c, "http://a.com/other") == ("accept", False, None, None)
    assert verdict(c, "http://b.com/") == ("reject", False, 0, None)


def test_suffix_modes_case_and_path():
    minus = chain(("suffix", ".html\n.htm"))  # no mode line: "-", listed suffixes accepted
    assert verdict(minus, "http://a.com/x.html") == ("accept", False, None, None)
    assert verdict(minus, "http://a.com/x.pdf") == ("reject", False, 0, None)
    assert verdict(minus, "http://a.com/x.HTML") == ("reject", False, 0, None)
    plus = chain(("suffix", "+I\n.jpg\n.tar.gz\n.gz"))
    assert verdict(plus, "http://a.com/x.JPG") == ("reject", False, 0, 2)
    assert verdict(plus, "http://a.com/x.tar.gz") == ("reject", False, 0, 3)  # longest
    assert verdict(plus, "http://a.com/x.html") == ("accept", False, None, None)
    path = chain(("suffix", "+P\n.jpg"))
    assert verdict(path, "http://a.com/x.jpg?size=2") == ("reject", False, 0, 2)
    assert verdict(path, "http://a.com/x?f=.jpg") == ("accept", False, None, None)
    whole = chain(("suffix", "+\n.jpg"))
    assert verdict(whole, "http://a.com/x.jpg?size=2") == ("accept", False, None, None)


def test_regex_searches_and_automaton_matches_whole():
    rx = chain(("regex", "-\\.cgi\n+SHORTCIRCUIT:^http://a\\.com/\n+."))
    assert verdict(rx, "http://a.com/run.cgi?x") == ("reject", False, 0, 1)
    assert verdict(rx, "http://a.com/page") == ("accept", True, 0, 2)
    assert verdict(rx, "http://b.com/page") == ("accept", False, None, None)
    assert verdict(chain(("regex", "+a\\.com")), "http://z.org/") == ("reject", False, 0, None)
    auto = chain(("automaton", "+http://a\\.com/.*\n-.*"))
    assert verdict(auto, "http://a.com/x") == ("accept", False, None, None)
    assert verdict(auto, "http://xa.com/x") == ("reject", False, 0, 2)
    assert verdict(chain(("automaton", "+a\\.com")), "http://a.com/") == ("reject", False, 0, None)


def test_domain_suffixes_and_lists():
    dom = chain(("domain", "org\nSHORTCIRCUIT:example.com\nwww.example.com"))
    assert verdict(dom, "http://archive.org/") == ("accept", False, None, None)
    assert verdict(dom, "http://docs.example.com/") == ("accept", True, 0, 2)
    assert verdict(dom, "http://www.example.com/") == ("accept", False, None, None)
    assert verdict(dom, "http://notexample.com/") == ("reject", False, 0, None)
    assert verdict(chain(("domain", "")), "http://any.net/") == ("accept", False, None, None)
    deny = chain(("domain-deny", "spam.com\n"))
    assert verdict(deny, "http://a.spam.com/") == ("reject", False, 0, 1)
    assert verdict(deny, "http://spam.com.org/") == ("accept", False, None, None)


def test_chain_order_disabled_and_shortcircuit_provenance():
    c = chain(
        ("regex", "-x", False),  # disabled, still counted as index 0
        ("prefix", "SHORTCIRCUIT:http://a.com/\nhttp://"),
        ("regex", "-.*"),  # never met by URLs that short-circuited
    )
    assert verdict(c, "http://a.com/x") == ("accept", True, 1, 1)
    assert verdict(c, "http://b.com/x") == ("reject", False, 2, 1)
    explained, steps = c.explain("http://a.com/x")
    assert explained == c.check("http://a.com/x")
    assert [s.status for s in steps] == ["disabled", "ran", "skipped"]
    assert steps[1].outcome == "shortcircuit" and steps[1].rule == "http://a.com/"


def test_line_numbers_count_the_rules_string_as_toml_delivers_it():
    c = parse_chain('[[filter]]\nkind = "regex"\nrules = """\n# c\n\n  -b  \n+."""\n')
    assert verdict(c, "http://b/") == ("reject", False, 0, 3)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[[filter]]\nkind = "regex"\nrules = "+ok\\n+(unclosed"', "filter 0 (regex), line 2"),
        ('[[filter]]\nkind = "suffix"\nrules = "SHORTCIRCUIT:.jpg"', "suffix filter"),
        ('[[filter]]\nkind = "magic"', "unknown kind 'magic'"),
        ('[[filter]]\nkind = "regex"\nrules = "nosign"', "line 1"),
        ("[[filter]\n", "not a valid TOML chain"),
    ],
)
def test_bad_chains_are_refused_whole_with_filter_and_line(toml, message):
    with pytest.raises(ChainError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_chain(toml)


HOST_BLOCKS = """\
-\\.pdf$
> a.com
-/private/
+SHORTCIRCUIT:/keep/
<
> www.a.co.uk
-(x)\\1
> 192.168.0.1
-/admin
<
+.
"""


#: the same blocks for the automaton kind, whose patterns match the whole URL
AUTOMATON_BLOCKS = (
    HOST_BLOCKS.replace("-\\.pdf$", "-.*\\.pdf")
    .replace("/private/", ".*/private/.*")
    .replace("/keep/", ".*/keep/.*")
    .replace("-(x)\\1", "-.*(x)\\1.*")
    .replace("-/admin", "-.*/admin.*")
    .replace("+.\n", "+.*\n")
)


@pytest.mark.parametrize(
    ("kind", "rules"), [("regex", HOST_BLOCKS), ("automaton", AUTOMATON_BLOCKS)]
)
def test_host_blocks_apply_to_their_host_or_domain_name(kind, rules):
    # NUTCH-1838: rules between "> HOST" and "<" (or the next ">") run only for URLs whose
    # host, or whose domain name (the registered domain), is HOST
    c = chain((kind, rules))
    assert [r.host for r in c.filters[0].rules] == [
        None, "a.com", "a.com", "www.a.co.uk", "192.168.0.1", None
    ]  # fmt: skip
    assert verdict(c, "http://a.com/private/1") == ("reject", False, 0, 3)
    assert verdict(c, "http://b.a.com/private/1") == ("reject", False, 0, 3)  # domain a.com
    assert verdict(c, "http://x.b.a.com/keep/1") == ("accept", True, 0, 4)
    assert verdict(c, "http://a.com.evil.org/private/") == ("accept", False, None, None)
    assert verdict(c, "http://b.com/private/") == ("accept", False, None, None)
    assert verdict(c, "http://www.a.co.uk/xx") == ("reject", False, 0, 7)  # the host itself
    assert verdict(c, "http://m.a.co.uk/xx") == ("accept", False, None, None)  # not its domain
    assert verdict(c, "http://192.168.0.1/admin") == ("reject", False, 0, 9)
    assert verdict(c, "http://192.168.0.2/admin") == ("accept", False, None, None)
    assert verdict(c, "http://a.com/x.pdf") == ("reject", False, 0, 1)


def test_host_blocks_explained_rule_by_rule():
    c = chain(("regex", HOST_BLOCKS))
    _, _, outcomes = explain_rules(c, "http://b.com/private/")
    assert [(o.line, o.outcome) for o in outcomes[0]] == [
        (1, "missed"), (3, "other host"), (4, "other host"),
        (7, "other host"), (9, "other host"), (11, "decided"),
    ]  # fmt: skip
    _, _, outcomes = explain_rules(c, "http://www.a.com/keep/")
    assert [o.outcome for o in outcomes[0]][:3] == ["missed", "missed", "decided"]


@pytest.mark.parametrize("line", [">", "> http://a.com/", "> a.com b.com", ">user@a.com"])
def test_a_host_block_needs_one_host(line):
    with pytest.raises(ChainError, match=f"filter 0 \\(regex\\), line 2: '{line}'"):
        chain(("regex", f"+a\n{line}\n+b\n<\n"))


def test_backtracking_only_patterns_load_and_run():
    c = chain(("regex", "-.*(/[^/]+)/[^/]+\\1/[^/]+\\1/\n+."))  # from Nutch's own template
    assert c.filters[0].rules[0].pattern.engine == "backtracking"
    assert verdict(c, "http://a.com/x/y/x/z/x/") == ("reject", False, 0, 1)
    assert verdict(c, "http://a.com/x/y/z/") == ("accept", False, None, None)


def test_pathological_pattern_returns_at_once():
    c = chain(("regex", "-(a+)+$\n+."))
    url = "http://a.com/" + "a" * 50_000 + "!"
    started = time.perf_counter()
    assert verdict(c, url) == ("accept", False, None, None)
    # RE2 answers in microseconds; a backtracker would take years: a bound for a hang only
    assert time.perf_counter() - started < 10.0


def test_crawl_records_each_rejection_with_filter_and_line(project, server):
    server.html(
        "/",
        '<a href="/a.jpg">img</a> <a href="/p?sid=9">s</a> <a href="http://o.example/">o</a> <a href="/ok">ok</a>',
    )
    server.html("/ok", "<p>ok</p>")
    inject([server.url("/")], utcnow())
    crawl(project)
    why = {r.url: (r.filter, r.line) for r in RejectedLink.select()}
    assert why[server.url("/a.jpg")] == ("no-binaries", 2)  # ".jpg" on line 2, after "+IP"
    assert why[server.url("/p?sid=9")][0] == "clean-up"
    assert why["http://o.example/"] == ("scope", None)
    assert {p.url for p in Page.select()} == {server.url("/"), server.url("/ok")}


EMBED_CHAIN = """
[[filter]]
kind = "suffix"
name = "no-binaries"
rules = '''
+IP
.png
'''

[[embed]]
kind = "domain-deny"
name = "no-trackers"
rules = '''
tracker.example
'''
"""


def test_embed_rules_are_a_chain_of_their_own_kept_with_the_chain():
    c = parse_chain(EMBED_CHAIN)
    image, tracked = "http://a.org/logo.png", "http://tracker.example/pixel.gif"
    # the pages' filters reject the image; the embed rules accept it, and reject the tracker
    assert verdict(c, image) == ("reject", False, 0, 2)
    assert verdict(c.embed_rules, image) == ("accept", False, None, None)
    assert verdict(c.embed_rules, tracked) == ("reject", False, 0, 1)
    assert c.embed_rules.check(tracked).filter_name == "no-trackers"
    # written back with its embed rules, read again the same
    again = parse_chain(c.to_toml())
    assert "[[embed]]" in c.to_toml()
    assert [f.name for f in again.filters] == ["no-binaries"]
    assert [f.name for f in again.embed_rules.filters] == ["no-trackers"]
    # no embed rules: every embed accepted
    assert (
        parse_chain('[[filter]]\nkind = "prefix"\nrules = "http://a.org/"\n')
        .embed_rules.check(tracked)
        .accepted
    )


def test_a_bad_embed_rule_is_refused_naming_the_rule_and_line():
    bad = (
        EMBED_CHAIN
        + "\n[[embed]]\nkind = \"regex\"\nname = \"broken\"\nrules = '''\n+ok\n-(\n'''\n"
    )
    with pytest.raises(ChainError, match=r"embed rule 1 \(broken\), line 2"):
        parse_chain(bad)
