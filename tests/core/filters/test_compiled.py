"""The compiled fast path (recrawl.core.filters.compiled) against the reference Chain.check.

Random chains built from a small alphabet of hosts, paths, suffixes and patterns, so
that rules really match; every verdict (accepted, shortcircuit, filter, line, name) must
be the same as the plain in-order evaluation's.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recrawl.core.filters.chain import Chain, Verdict, build_filter, parse_chain
from recrawl.core.filters.compiled import compile_chain, prefix_head

SCHEMES = ["http", "https", "ftp", "HTTP"]
HOSTS = [
    "a.com",
    "b.a.com",
    "www.a.com",
    "a.com.evil.org",
    "evil.org",
    "x.org",
    "A.COM",
    "aa.com",
    "com",
    "[::1]",
    "user@a.com",
    "",
    "www.a.co.uk",
    "a.co.uk",
    "co.uk",
    "192.168.0.1",
    "b.x.org",
]
PORTS = ["", ":8080", ":80"]
PATHS = [
    "",
    "/",
    "/x",
    "/x/",
    "/x/y.pdf",
    "/x/Y.PDF",
    "/a.com/",
    "/x?q=1",
    "/x#f",
    "/xx/yy",
    "/img/a.png",
    "/x/y.pdf?a=.html",
    "/aab",
]

urls = st.one_of(
    st.builds(
        lambda s, h, p, q: f"{s}://{h}{p}{q}",
        st.sampled_from(SCHEMES),
        st.sampled_from(HOSTS),
        st.sampled_from(PORTS),
        st.sampled_from(PATHS),
    ),
    st.sampled_from(["a.com/x", "http:/a.com/x", "mailto:me@a.com", "", "http://", "x"]),
)

DOMAINS = [
    "a.com",
    "com",
    "org",
    "evil.org",
    "b.a.com",
    "A.com",
    ".a.com",
    "x.org",
    "a.com.evil.org",
    "aa.com",
]
SUFFIXES = [".pdf", ".PDF", "pdf", "/", ".com", "y.pdf", "x", "=1", "com/", ".png", "f", "Y.pdf"]
MODES = ["+", "-", "+I", "-I", "+P", "-P", "+IP", "-PI"]
PATTERNS = [
    r"a\.com",
    r"^https?://",
    r"\.pdf$",
    r"(?i)\.PDF",
    r"x",
    r"^http://a\.com/.*",
    r".*",
    r"org",
    r"(\w)\1",  # backreference: the backtracking engine
    r"a\.com(?=/)",  # lookahead: the backtracking engine
    r"^ftp",
    r"[0-9]+",
    r"/x/",
    r"https?://[^/]*a\.com/x.*",
    r"http://a\.com/x",
    r"",
]

#: ``> HOST`` blocks (NUTCH-1838): hosts, domain names, a suffix, an address, upper case
BLOCK_HOSTS = [
    "a.com",
    "b.a.com",
    "evil.org",
    "x.org",
    "co.uk",
    "a.co.uk",
    "www.a.co.uk",
    "192.168.0.1",
    "A.com",
    "com",
]

markers = st.sampled_from(["", "", "SHORTCIRCUIT:"])
noise = st.sampled_from(["", "", "# comment", "   "])


def _lines(draw, items: list[str]) -> str:
    out = []
    for item in items:
        out.append(draw(noise))
        out.append(item)
    return "\n".join(out)


@st.composite
def prefix_rules(draw) -> str:
    items = []
    for _ in range(draw(st.integers(0, 8))):
        url = draw(urls)
        if not url:
            continue
        cut = draw(st.integers(1, len(url)))
        text = url[:cut].strip()
        if not text or text.startswith("#"):
            continue
        items.append(draw(markers) + text)
    if items and draw(st.booleans()):
        items.append(draw(st.sampled_from(items)))  # a duplicate
    return _lines(draw, items)


@st.composite
def domain_rules(draw) -> str:
    items = [draw(markers) + draw(st.sampled_from(DOMAINS)) for _ in range(draw(st.integers(0, 6)))]
    return _lines(draw, items)


@st.composite
def suffix_rules(draw) -> str:
    items = [draw(st.sampled_from(SUFFIXES)) for _ in range(draw(st.integers(0, 6)))]
    mode = draw(st.sampled_from([None, *MODES]))
    if mode is not None:
        items.insert(draw(st.integers(0, len(items))), mode)
    return _lines(draw, items)


@st.composite
def regex_rules(draw) -> str:
    items = []
    for _ in range(draw(st.integers(0, 7))):
        block = draw(st.sampled_from(["", "", "", ">", "<"]))
        if block == ">":
            items.append("> " + draw(st.sampled_from(BLOCK_HOSTS)))
        elif block == "<":
            items.append("<")
        sign = draw(st.sampled_from("+-"))
        mark = draw(markers) if sign == "+" else ""
        pattern = draw(st.sampled_from(PATTERNS))
        if not pattern:
            continue  # an empty pattern is an error
        items.append(sign + mark + pattern)
    return _lines(draw, items)


KIND_RULES = {
    "prefix": prefix_rules(),
    "domain": domain_rules(),
    "domain-deny": domain_rules(),
    "suffix": suffix_rules(),
    "regex": regex_rules(),
    "automaton": regex_rules(),
}


@st.composite
def chains(draw) -> Chain:
    filters = []
    for index in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(sorted(KIND_RULES)))
        table = {
            "kind": kind,
            "name": f"{kind}-{index}",
            "enabled": draw(st.booleans() | st.just(True)),
            "rules": draw(KIND_RULES[kind]),
        }
        filters.append(build_filter(index, table))
    return Chain(filters)


def _agree(chain: Chain, url_list: list[str]) -> None:
    compiled = compile_chain(chain)
    for url in url_list:
        assert compiled.check(url) == chain.check(url), url


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.lists(urls, min_size=1, max_size=25))
def test_compiled_agrees_with_reference(chain: Chain, url_list: list[str]) -> None:
    _agree(chain, url_list)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["prefix", "domain", "domain-deny", "suffix", "regex", "automaton"]), st.data()
)
def test_single_kind_agrees(kind: str, data: st.DataObject) -> None:
    rules = data.draw(KIND_RULES[kind])
    chain = Chain([build_filter(0, {"kind": kind, "rules": rules})])
    _agree(chain, data.draw(st.lists(urls, min_size=1, max_size=40)))


# -- hand-written edge cases ---------------------------------------------------------


def _chain(kind: str, rules: str) -> Chain:
    return Chain([build_filter(0, {"kind": kind, "rules": rules})])


def test_longest_prefix_across_bucket_and_generic() -> None:
    chain = _chain(
        "prefix", "http://a.com\nSHORTCIRCUIT:http://a.com/x/\nhttp://a.co\nhttp://a.com/"
    )
    compiled = compile_chain(chain)
    cases = {
        "http://a.com/x/1": Verdict(True, True, 0, 2, "prefix"),
        "http://a.com/y": None,  # accept via line 4, which beats the generic line 1
        "http://a.com?q": None,  # only the generic ones match
        "http://a.com.evil.org/x": None,
        "http://b.com/": Verdict(False, False, 0, None, "prefix"),
    }
    for url, expected in cases.items():
        assert compiled.check(url) == chain.check(url)
        if expected is not None:
            assert compiled.check(url) == expected
    # a plain accept from a prefix filter is a chain-level plain accept
    assert compiled.check("http://a.com/y").accepted


def test_prefix_without_slash_matches_longer_host() -> None:
    chain = _chain("prefix", "SHORTCIRCUIT:http://a.com\nhttp://a.com/")
    compiled = compile_chain(chain)
    for url in ["http://a.com.evil.org/x", "http://a.com/x", "http://a.com", "http://a.comx/"]:
        assert compiled.check(url) == chain.check(url)
    assert compiled.check("http://a.com.evil.org/x") == Verdict(True, True, 0, 1, "prefix")
    assert compiled.check("http://a.com/x").shortcircuit is False


def test_duplicate_prefixes_first_line_wins() -> None:
    chain = _chain("prefix", "http://a.com/\nSHORTCIRCUIT:http://a.com/")
    assert compile_chain(chain).check("http://a.com/x") == chain.check("http://a.com/x")
    chain = _chain("prefix", "SHORTCIRCUIT:http://a.com/\nhttp://a.com/")
    assert compile_chain(chain).check("http://a.com/x") == Verdict(True, True, 0, 1, "prefix")


def test_prefix_head() -> None:
    assert prefix_head("http://a.com/x") == "http://a.com/"
    assert prefix_head("http://a.com") is None
    assert prefix_head("a.com/x") is None


def test_domain_suffix_entry() -> None:
    chain = _chain("domain", "org\nSHORTCIRCUIT:evil.org\ncom")
    compiled = compile_chain(chain)
    for url in [
        "http://a.com.evil.org/",
        "http://x.org/",
        "http://ORG/",
        "http://a.net/",
        "http://org.net/",
    ]:
        assert compiled.check(url) == chain.check(url)
    assert compiled.check("http://a.com.evil.org/") == Verdict(True, True, 0, 2, "domain")
    assert compiled.check("http://a.net/") == Verdict(False, False, 0, None, "domain")
    deny = _chain("domain-deny", "org\nevil.org")
    assert compile_chain(deny).check("http://a.evil.org/") == Verdict(
        False, False, 0, 2, "domain-deny"
    )
    assert compile_chain(_chain("domain", "")).check("http://a/") == Verdict(True)


def test_automaton_full_match_vs_regex_search() -> None:
    url = "http://a.com/x/y"
    regex = _chain("regex", r"+a\.com")
    automaton = _chain("automaton", "+a\\.com\n+http://a\\.com/.*")
    assert compile_chain(regex).check(url) == regex.check(url) == Verdict(True)
    assert compile_chain(automaton).check(url) == automaton.check(url)
    assert automaton.check(url).accepted  # line 2, a plain accept
    only_partial = _chain("automaton", r"+a\.com")
    assert compile_chain(only_partial).check(url) == Verdict(False, False, 0, None, "automaton")


def test_backtracking_rule_before_set_match() -> None:
    # the backreference rule (line 1) must win over the RE2 rule (line 2) when both match
    chain = _chain("regex", "-(\\w)\\1\n+SHORTCIRCUIT:a\\.com\n+.*")
    compiled = compile_chain(chain)
    for url in ["http://aa.com/", "http://a.com/", "http://b.org/"]:
        assert compiled.check(url) == chain.check(url)
    assert compiled.check("http://a.com/") == Verdict(False, False, 0, 1, "regex")  # "tt"
    assert compiled.check("http://b.org/") == Verdict(False, False, 0, 1, "regex")


def test_disabled_and_order_from_toml() -> None:
    text = """
[[filter]]
kind = "suffix"
rules = '''
+I
.PDF
'''

[[filter]]
kind = "prefix"
enabled = false
rules = 'http://nothing/'

[[filter]]
kind = "prefix"
name = "scope"
rules = '''
SHORTCIRCUIT:http://a.com/
http://b.com/
'''

[[filter]]
kind = "automaton"
rules = '+http://b\\.com/ok/.*'
"""
    chain = parse_chain(text)
    compiled = compile_chain(chain)
    expected = {
        "http://a.com/x.pdf": Verdict(False, False, 0, 2, "suffix"),
        "http://a.com/x": Verdict(True, True, 2, 1, "scope"),
        "http://b.com/ok/1": Verdict(True),
        "http://b.com/no": Verdict(False, False, 3, None, "automaton"),
        "http://c.com/": Verdict(False, False, 2, None, "scope"),
    }
    for url, verdict in expected.items():
        assert chain.check(url) == verdict
        assert compiled.check(url) == verdict


def test_large_chain_agrees() -> None:
    """Hundreds of rules per filter: the RE2 sets and host buckets at some scale."""

    rng = random.Random(7)
    hosts = [f"h{i}.d{i % 13}.org" for i in range(600)]
    prefixes = "\n".join(
        ("SHORTCIRCUIT:" if i % 4 else "") + f"http://{h}/" + ("x/" if i % 5 == 0 else "")
        for i, h in enumerate(hosts)
    )
    prefixes += "\nhttp://h1\nSHORTCIRCUIT:http://h2"
    automaton = "\n".join(
        f"{'+-'[i % 7 == 0]}http://{h.replace('.', chr(92) + '.')}/(x|y)/.*"
        for i, h in enumerate(hosts)
    )
    regex = "-(\\w)\\1\\1\n" + "\n".join(f"-/bad{i}/" for i in range(300)) + "\n+."
    chain = Chain(
        [
            build_filter(0, {"kind": "regex", "rules": regex}),
            build_filter(1, {"kind": "domain-deny", "rules": "d3.org\nh5.d5.org"}),
            build_filter(2, {"kind": "prefix", "rules": prefixes}),
            build_filter(3, {"kind": "automaton", "rules": automaton}),
        ]
    )
    compiled = compile_chain(chain)
    paths = ["x/1", "y/2", "z/3", "bad17/x", "www/", "x/bad299/", ""]
    for _ in range(3000):
        host = rng.choice(hosts) if rng.random() < 0.9 else f"h{rng.randrange(30)}x.org"
        url = f"http://{host}/{rng.choice(paths)}"
        assert compiled.check(url) == chain.check(url), url


def test_host_blocks_agree_and_keep_provenance() -> None:
    rules = (
        "-\\.pdf$\n> a.com\n-/private/\n+SHORTCIRCUIT:/keep/\n<\n"
        "> www.a.co.uk\n-(x)\\1\n+SHORTCIRCUIT:x\n> evil.org\n-(?=/)\n<\n+.\n"
    )
    chain = _chain("regex", rules)
    compiled = compile_chain(chain)
    expected = {
        "http://b.a.com/private/": Verdict(False, False, 0, 3, "regex"),
        "http://b.a.com/keep/": Verdict(True, True, 0, 4, "regex"),
        "http://www.a.co.uk/xx": Verdict(False, False, 0, 7, "regex"),  # backtracking rule
        "http://www.a.co.uk/x": Verdict(True, True, 0, 8, "regex"),
        "http://m.a.co.uk/xx": Verdict(True),
        "http://a.evil.org/": Verdict(False, False, 0, 10, "regex"),
        "http://a.com.evil.org/private/": Verdict(False, False, 0, 10, "regex"),
        "mailto:me@a.com": Verdict(True),
    }
    for url, verdict in expected.items():
        assert chain.check(url) == verdict, url
        assert compiled.check(url) == verdict, url
