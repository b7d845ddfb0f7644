"""Nutch's domain name (``URLUtil.getDomainName``) over the Public Suffix List's ICANN
section, as host blocks (NUTCH-1838) compare it."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.filters import parse_chain
from recrawl.core.filters.hosts import domain_name, host_and_domain, url_host, url_path


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("www.example.co.uk", "example.co.uk"),
        ("example.co.uk", "example.co.uk"),
        ("co.uk", "co.uk"),  # a suffix is its own domain name
        ("com", "com"),
        ("www.example.com.", "example.com"),  # the root's trailing dot
        # an IPv4 address is its own domain
        ("192.168.0.1", "192.168.0.1"),
        ("10.0.0.1", "10.0.0.1"),
        # an unknown top-level label: never a suffix, so the host ends as its last label
        ("www.example.zzz", "zzz"),
        ("localhost", "localhost"),
        # *.ck with the exception !www.ck: b.ck is a suffix, www.ck is not, ck itself is
        ("a.b.ck", "a.b.ck"),
        ("x.a.b.ck", "a.b.ck"),
        ("www.ck", "www.ck"),
        ("x.www.ck", "www.ck"),
        ("www.city.kobe.jp", "city.kobe.jp"),  # *.kobe.jp, !city.kobe.jp
        # punycode, as canonical URLs carry IDN hosts: 中国, 公司.cn, bücher.de
        ("www.example.xn--fiqs8s", "example.xn--fiqs8s"),
        ("www.example.xn--55qx5d.cn", "example.xn--55qx5d.cn"),
        ("shop.xn--bcher-kva.de", "xn--bcher-kva.de"),
        # the ICANN section only: a private suffix (github.io) is not one here
        ("user.github.io", "github.io"),
    ],
)
def test_domain_name_cuts_the_host_to_a_public_suffix_plus_one(host, domain):
    assert domain_name(host) == domain


def test_host_and_domain_of_urls():
    assert host_and_domain("https://WWW.Example.co.uk:8080/x") == (
        "www.example.co.uk",
        "example.co.uk",
    )
    assert host_and_domain("http://[::1]/") == ("::1", "::1")
    assert host_and_domain("mailto:someone") == ("", "")


def test_host_blocks_for_idn_and_wildcard_domains():
    chain = parse_chain(
        "[[filter]]\nkind = \"regex\"\nrules = '''\n"
        "> xn--bcher-kva.de\n-/cart\n"
        "> www.ck\n-/admin\n"
        "<\n+.\n'''\n"
    )
    assert not chain.check("http://shop.xn--bcher-kva.de/cart").accepted  # by its domain
    assert chain.check("http://shop.xn--bcher-kva.com/cart").accepted
    assert not chain.check("http://mail.www.ck/admin").accepted
    assert chain.check("http://mail.gov.ck/admin").accepted  # its domain is mail.gov.ck


# URL text as links deliver it: the characters urlsplit treats specially among plain ones
_URL_TEXT = st.lists(
    st.sampled_from([*"aZ09.-_~/?#@:[]%+= \t\n\x00\x7fé", "%2F", "..", "//"]),
    max_size=30,
).map("".join)
_SCHEMES = st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "mailto:", "", " http://"])


@settings(max_examples=2000, deadline=None)
@given(_SCHEMES, _URL_TEXT)
def test_the_quick_split_gives_urlsplits_host_and_path(scheme, rest):
    url = scheme + rest
    try:
        parts = urlsplit(url)
        expected = (parts.path, (parts.hostname or "").lower())
    except ValueError:  # url_path raises as urlsplit does; url_host says ""
        with pytest.raises(ValueError):
            url_path(url)
        assert url_host(url) == ""
        return
    assert (url_path(url), url_host(url)) == expected


def test_the_quick_split_on_plain_urls():
    for url, host, path in [
        ("http://a.B.com:80/x?y#z", "a.b.com", "/x"),
        ("https://u:p@H.com", "h.com", ""),
        ("http://h?q/x#f", "h", ""),
        ("http://h#f?q/p", "h", ""),
        ("https://x.org/a/b.pdf?x=1", "x.org", "/a/b.pdf"),
        ("http://[::1]:8080/p", "::1", "/p"),  # brackets: urlsplit's own answer
    ]:
        assert (url_host(url), url_path(url)) == (host, path)
