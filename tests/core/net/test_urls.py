from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical, host_of, origin_of


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
