from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical, host_of, origin_of, seed_url


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("HTTP://Example.COM:80/a/../b?z=1&a=2#frag", "http://example.com/b?a=2&z=1"),
        ("https://x.org:443", "https://x.org/"),
        ("http://x.org:8080/ü path", "http://x.org:8080/%C3%BC%20path"),
        ("  http://x.org/a%7eb  ", "http://x.org/a~b"),
    ],
)
def test_canonical_forms(given, expected):
    assert canonical(given) == expected


@pytest.mark.parametrize(
    "bad", ["", "ftp://x.org/", "http://", "http://a b/", "http://x:99999/", "javascript:1"]
)
def test_bad_urls_raise_clear_errors(bad):
    with pytest.raises(InvalidUrl):
        canonical(bad)


@pytest.mark.parametrize(
    ("typed", "url"),
    [
        ("example.org/news", "https://example.org/news"),
        (" example.org ", "https://example.org/"),
        ("example.org:8443", "https://example.org:8443/"),
        ("//example.org/a", "https://example.org/a"),
        ("bücher.example/", "https://xn--bcher-kva.example/"),
        # hosts no certificate names, which browsers leave on http:// (a documentation
        # tree served on 127.0.0.1 answers no TLS)
        ("localhost:8080/x", "http://localhost:8080/x"),
        ("docs.localhost/", "http://docs.localhost/"),
        ("127.0.0.1/", "http://127.0.0.1/"),
        ("127.0.0.1:34613/index.html", "http://127.0.0.1:34613/index.html"),
        ("[::1]:8000/", "http://[::1]:8000/"),
        ("intranet:8080/wiki", "http://intranet:8080/wiki"),
        ("//localhost/a", "http://localhost/a"),
    ],
)
def test_a_seed_without_a_scheme_is_taken_as_a_browser_takes_it(typed, url):
    seed = seed_url(typed)
    assert (seed.url, seed.assumed_scheme) == (url, True)
    assert seed.note() == f"took {typed.strip()} as {url}"


def test_a_seed_with_a_scheme_is_canonical_and_says_nothing():
    seed = seed_url("HTTP://Example.org/a")
    assert (seed.url, seed.assumed_scheme, seed.note()) == ("http://example.org/a", False, None)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("exa mple.org/news", "malformed host: 'exa mple.org/news'"),
        ("mailto:me@example.org", "not an http(s) URL: 'mailto:me@example.org'"),
        ("ftp://example.org/", "not an http(s) URL: 'ftp://example.org/'"),
        ("/news", "not an http(s) URL: '/news'"),
        ("example.org:80abc", "not an http(s) URL: 'example.org:80abc'"),
        ("", "empty URL"),
    ],
)
def test_a_seed_that_is_no_url_is_refused_in_the_words_typed(typed, message):
    with pytest.raises(InvalidUrl) as refused:
        seed_url(typed)
    assert str(refused.value) == message


def test_host_and_origin():
    assert host_of("http://Example.com:81/x") == "example.com"
    assert origin_of("http://example.com:81/x?y") == "http://example.com:81"


@settings(max_examples=1000)
@given(
    st.sampled_from(
        [
            "http://h.com",
            "http://h.com/",
            "http://h.com/a/b.html?x=1#f",
            "http://h.com/a/",
            "https://h.com:8080/x/y;p?q",
            "http://h.com/a?x=/y/z",
        ]
    ),
    st.one_of(
        st.text(alphabet="ab./?#;:=%/", max_size=12),
        st.sampled_from(["http://", "http:", "https:x", "//o.com", "//", "///x", "a:b/c", "x/y:z"]),
    ),
)
def test_cached_join_equals_urljoin(base, href):
    from urllib.parse import urljoin

    from recrawl.core.net.urls import _join

    assert _join(base, href) == urljoin(base, href)


def outcome(call):
    """What a canonicalization gives: the URL, or the error's message and reason."""
    try:
        return call()
    except InvalidUrl as exc:
        return ("error", str(exc), exc.reason)


BASES = [
    "http://h.com/docs/library/os.html",
    "http://h.com/",
    "https://h.com:8443/a/b/?q=1",
    "http://h.com/a/b.html#here",
]
#: Links as pages write them, fragments included (and what no URL should be).
HREFS = st.one_of(
    st.text(alphabet="ab./?#;:=%@[]~ &", max_size=16),
    st.builds(
        "{}#{}".format,
        st.sampled_from(
            [
                "",
                "os.html",
                "../x.html",
                "?a=1",
                "//o.com/p",
                "http://h.com:80/x",
                "http://a b/",
                "http://[::1/",
                "http://x:99999/",
                "mailto:a",
                "http://",
                "ftp://x/",
                "/%zz/",
            ]
        ),
        st.text(alphabet="ab#?/ %:ü", max_size=8),
    ),
)


@settings(max_examples=2000)
@given(st.sampled_from([*BASES, None]), HREFS)
def test_cutting_the_fragment_first_changes_no_canonical_url_nor_error(base, href):
    from recrawl.core.net.urls import _canonical_absolute, _joined

    text = href.strip()
    # the path that reads the whole URL, as canonical() did before it cut the fragment
    whole = (
        outcome(lambda: _canonical_absolute(_joined(text, base, href)))
        if text
        else ("error", "empty URL", "empty URL")
    )
    assert outcome(lambda: canonical(href, base)) == whole


def test_the_links_to_a_page_s_anchors_share_its_cache_entry():
    from recrawl.core.net import urls

    urls._canonical_absolute.cache_clear()
    base = "http://h.com/docs/library/os.html"
    for anchor in range(100):
        assert canonical(f"os.html#f{anchor}", base) == base
        assert canonical(f"#f{anchor}", base) == base
    assert urls._canonical_absolute.cache_info().currsize == 1


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        # a fully qualified name with its root dot is still localhost / an IP / one label
        ("localhost.:8080/", "http://localhost.:8080/"),
        ("localhost./docs/", "http://localhost./docs/"),
        ("intranet.:8080", "http://intranet.:8080/"),
        ("127.0.0.1.:8080/", "http://127.0.0.1.:8080/"),
    ],
)
def test_a_local_host_with_a_trailing_dot_is_taken_as_http(typed, expected):
    assert seed_url(typed).url == expected


def test_port_80_typed_is_taken_as_http_not_https_on_port_80():
    # "example.org:80" names the HTTP port: https://example.org:80/ speaks TLS to it
    assert seed_url("example.org:80/docs/").url == "http://example.org/docs/"


def test_userinfo_without_a_scheme_is_taken_as_a_url():
    # a browser's address bar takes user:pass@host as http(s)://user:pass@host; a scheme
    # with an @ after it is still a scheme
    assert seed_url("user:pass@example.org/").url == "https://user:pass@example.org/"
    with pytest.raises(InvalidUrl):
        seed_url("mailto:me@example.org")
