"""Review of step 14: seeds typed without a scheme (DESIGN.md §15, core/net/urls.seed_url)."""

from __future__ import annotations

import pytest

from recrawl.core.net.urls import seed_url


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
    # a browser's address bar takes user:pass@host as http(s)://user:pass@host
    assert seed_url("user:pass@example.org/").url == "https://user:pass@example.org/"
