"""canonical() with its fast path (ada) gives canonical_reference()'s form (w3lib), the
store's keys, on a corpus and on Hypothesis's URLs: the same URL or the same error.

The corpus: every URL written in the tests and the links their pages carry (resolved
against pages of the test servers' kinds), the hostile server's malformed links, and
variants of each (case, ports, dot segments, escapes, queries, fragments, non-ASCII).
Nutch's filter test data join it when ``RECRAWL_NUTCH_DIR`` names a checkout of Nutch
(its ``src/plugin/urlfilter-*/sample`` and ``urlnormalizer-*/sample`` files).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical, canonical_reference, fast_canonical

from tests.support.hostile import MALFORMED_HREFS

TESTS = Path(__file__).resolve().parents[2]
#: A URL as tests write it (f-string fields cut it short: what is left is a URL too).
_WRITTEN = re.compile(r"""https?://(?:\[[^\]\s'"]*\])?[^\s'"<>\\`{}()\[\]]*""", re.I)
_LINK = re.compile(r"""(?:href|src)=["']([^"'{}]*)["']""")
#: Pages links are resolved against: the test servers' origins and a few paths.
BASES = (
    "http://127.0.0.1:8000/",
    "http://127.0.0.2:41231/docs/library/os.html",
    "http://localhost:8080/news/2024/index.html?page=2",
    "https://example.org/a/b/",
    "http://h.com/a/b.html#here",
)


def outcome(call: Callable[[], str]) -> str | tuple[str, str, str | None]:
    """The canonical URL, or the error's message and reason."""
    try:
        return call()
    except InvalidUrl as exc:
        return ("error", str(exc), exc.reason)


def same(url: str, base: str | None = None) -> bool:
    return outcome(lambda: canonical(url, base)) == outcome(lambda: canonical_reference(url, base))


def variants(url: str) -> list[str]:
    """``url`` and what pages make of URLs like it."""
    found = re.match(r"(?i)(https?)://([^/?#]*)(.*)", url)
    if found is None:
        return [url]
    scheme, authority, rest = found.groups()
    host = authority.partition(":")[0]
    rest = rest or "/"
    out = [url, url.upper(), f"{scheme.upper()}://{authority.upper()}{rest}"]
    for new_port in ("", ":80", ":443", ":8080", ":080", ":65535", ":65536", ":"):
        out.append(f"{scheme}://{host}{new_port}{rest}")
    out += [
        f"{scheme}://{host}./{rest.lstrip('/')}",
        f"{scheme}://{authority}/./a/../b/..{rest}",
        f"{scheme}://{authority}/a/%2e%2E/{rest.lstrip('/')}",
        f"{scheme}://{authority}{rest}#frag?x=1",
        f"{scheme}://{authority}{rest}?b=2&a=1&a&&c=%41+x%20y&b=",
        f"{scheme}://{authority}{rest}&z=%7e%zz%2b?q",
        f"{scheme}://{authority}/%7e%7E/%2f%2F/%3b%3F/%25/%c3%bc/%41%5b%23{rest}",
        f"{scheme}://{authority}/ü/a b/{rest.lstrip('/')}",
        f"{scheme}://{authority}/a;p=1/b;q=%41{rest}",
        f"{scheme}://user:pw@{authority}{rest}",
        f"{scheme}://{authority}{rest}?'|!$*()",
    ]
    return out


@functools.cache
def written_urls() -> tuple[str, ...]:
    found: set[str] = set()
    for path in TESTS.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found.update(_WRITTEN.findall(text))
    return tuple(sorted(found))


@functools.cache
def page_links() -> tuple[str, ...]:
    found: set[str] = set(MALFORMED_HREFS)
    for path in TESTS.rglob("*.py"):
        found.update(_LINK.findall(path.read_text(encoding="utf-8")))
    return tuple(sorted(found))


@functools.cache
def corpus() -> tuple[str, ...]:
    urls = {v for url in written_urls() for v in variants(url)}
    urls.update(h for h in MALFORMED_HREFS if "://" in h)
    return tuple(sorted(urls))


def test_the_corpus_is_large_and_mostly_takes_the_fast_path():
    urls = corpus()
    fast = [u for u in urls if fast_canonical(u.strip()) is not None]
    assert len(written_urls()) > 300
    assert len(urls) > 5000
    assert len(fast) > len(urls) // 4  # the fast path is the one tested, not the fallback


def test_every_corpus_url_canonicalises_as_the_reference():
    assert [u for u in corpus() if not same(u)] == []


def test_every_link_of_the_tests_pages_resolves_as_the_reference():
    links = [v for link in page_links() for v in variants(link)]
    assert len(links) > 200
    assert [(link, base) for link in links for base in BASES if not same(link, base)] == []


def test_what_the_fast_path_gives_is_the_reference_s():
    for url in corpus():
        fast = fast_canonical(url.strip())
        if fast is not None:
            assert fast == canonical_reference(url), url


@pytest.mark.parametrize(
    "url",
    [
        "http://bücher.example/",  # IDNA: w3lib's codec, not ada's UTS 46
        "http://xn--bcher-kva.example/",
        "http://1.2.3/",  # ada writes it 1.2.0.3
        "http://0x7f.1/",
        "http://h.com:0080/",  # w3lib keeps the zero
        "http://h.com/a;p/b",  # w3lib's path parameters
        "http://h.com/a/%2e%2e/b",  # ada's dot segment
        "http://h.com/a b",
        "http://u@h.com/",
        "http://a..b/",
        "http://-a.com/",
        "http://[::1]/",
    ],
)
def test_urls_outside_the_proven_class_take_the_reference_path(url):
    assert fast_canonical(url) is None
    assert same(url)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Example.COM:80/a/../b?z=1&a=2#frag", "http://example.com/b?a=2&z=1"),
        ("http://h.com/%7e/%2f/%c3%a9?b=%41&a-b=1&a=2&a&&c=x+y", None),
        ("http://127.0.0.1:8080/x%7e", "http://127.0.0.1:8080/x~"),
        ("https://h.com:443?q", "https://h.com/?q="),
    ],
)
def test_the_fast_path_takes_common_urls(url, expected):
    fast = fast_canonical(url)
    assert fast is not None
    assert fast == (expected or canonical_reference(url))


def nutch_urls(folder: Path) -> list[str]:
    """The URLs of Nutch's URL filter and normaliser samples (a ``+``/``-`` first: the
    expected verdict; the normaliser's lines: the URL and what it becomes)."""
    urls: list[str] = []
    for pattern in ("urlfilter-*/sample/*", "urlnormalizer-*/sample/*.test"):
        for path in sorted((folder / "src" / "plugin").glob(pattern)):
            if path.suffix not in (".urls", ".txt", ".test"):
                continue
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                for word in line.split():
                    word = word.lstrip("+-")
                    if "://" in word:
                        urls.append(word)
    return urls


@pytest.mark.skipif("RECRAWL_NUTCH_DIR" not in os.environ, reason="no Nutch checkout named")
def test_nutch_s_filter_test_urls_canonicalise_as_the_reference():
    urls = nutch_urls(Path(os.environ["RECRAWL_NUTCH_DIR"]))
    assert len(urls) > 500
    many = [v for url in urls for v in variants(url)]
    assert [u for u in many if not same(u)] == []


# -- Hypothesis ------------------------------------------------------------------------

LABELS = st.one_of(
    st.sampled_from(["example", "EXAMPLE", "a", "x-y", "_dmarc", "www", "org", "xn--bcher-kva",
                     "bücher", "ÉCOLE", "中国", "1", "255", "0x7f", "08", "-a", "a-", ""]),
    st.text(alphabet="aZ09-_", min_size=1, max_size=8),
    st.text(alphabet="a" * 10 + "é%. ", min_size=1, max_size=4),
)  # fmt: skip
HOSTS = st.one_of(
    st.lists(LABELS, min_size=1, max_size=4).map(".".join),
    st.builds("{}.".format, st.lists(LABELS, min_size=1, max_size=3).map(".".join)),
    st.tuples(*[st.integers(0, 300)] * 4).map(lambda t: ".".join(map(str, t))),
    st.sampled_from(["[::1]", "[::ffff:1.2.3.4]", "[1:2::]", "user@h.com", "u:p@h.com", "h.com@"]),
)
PORTS = st.one_of(
    st.just(""),
    st.sampled_from([":", ":80", ":443", ":0", ":08080", ":65536", ":8a"]),
    st.integers(0, 70000).map(":{}".format),
)
SEGMENT = st.one_of(
    st.sampled_from([".", "..", "%2e", ".%2E", "%2e%2e", "", "a;b", ";p=1", "index.html"]),
    st.text(alphabet="aZ09-._~!$&'()*+,;=:@%|ü €/\\\"<>^`{}[]\t", max_size=6),
    st.lists(st.sampled_from(["%41", "%7e", "%7E", "%2f", "%2F", "%25", "%3b", "%3F", "%23",
                              "%c3%bc", "%C3", "%zz", "%", "%4", "%00", "%7f", "%ff", "%20"]),
             max_size=3).map("".join),
)  # fmt: skip
WORD = st.one_of(
    st.sampled_from(["a", "b", "A", "a-b", "", "x y", "+", "%2B", "%41", "%zz", "ü", "%c3%bc"]),
    st.text(alphabet="aZ09-._~!$'()*+,;:@/?%|= ü'\"<>", max_size=5),
)
ARGUMENT = st.one_of(WORD, st.builds("{}={}".format, WORD, WORD))
QUERY = st.one_of(
    st.just(""),
    st.lists(ARGUMENT, max_size=5).map(lambda args: "?" + "&".join(args)),
    st.lists(st.sampled_from(["a=1", "a=", "a", "b=2", "a=1", "&"]), max_size=6).map(
        lambda args: "?" + "&".join(args)
    ),
)
FRAGMENT = st.one_of(st.just(""), st.text(alphabet="ab#?/ %:ü", max_size=6).map("#{}".format))
SCHEMES = st.sampled_from(["http", "https", "HTTP", "hTTpS", "ftp", "http:", "http:/"])


@st.composite
def urls(draw: st.DrawFn) -> str:
    path = "".join("/" + draw(SEGMENT) for _ in range(draw(st.integers(0, 4))))
    return f"{draw(SCHEMES)}://{draw(HOSTS)}{draw(PORTS)}{path}{draw(QUERY)}{draw(FRAGMENT)}"


@settings(max_examples=3000, deadline=None)
@given(urls())
def test_hypothesis_s_urls_canonicalise_as_the_reference(url):
    assert outcome(lambda: canonical(url)) == outcome(lambda: canonical_reference(url))


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from([*BASES, None]), st.one_of(urls(), SEGMENT, QUERY, FRAGMENT))
def test_hypothesis_s_links_resolve_as_the_reference(base, href):
    assert outcome(lambda: canonical(href, base)) == outcome(
        lambda: canonical_reference(href, base)
    )


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from(["http://", "https://h.com/", "http://h.com?"]), st.text(max_size=20))
def test_any_text_after_a_scheme_canonicalises_as_the_reference(head, tail):
    url = head + tail
    assert outcome(lambda: canonical(url)) == outcome(lambda: canonical_reference(url))


def test_without_ada_s_c_functions_its_url_class_gives_the_same(monkeypatch):
    from recrawl.core.net import urls

    sample = [u for u in corpus() if fast_canonical(u.strip()) is not None][::20]
    direct = [fast_canonical(u.strip()) for u in sample]
    monkeypatch.setattr(urls, "_ADA", None)
    assert [fast_canonical(u.strip()) for u in sample] == direct
    assert fast_canonical("http://h.com:99999/") is None
