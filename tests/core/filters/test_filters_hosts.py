"""Nutch's domain name (``URLUtil.getDomainName``) over the Public Suffix List's ICANN
section, as host blocks (NUTCH-1838) compare it."""

from __future__ import annotations

import pytest
from recrawl.core.filters import parse_chain
from recrawl.core.filters.hosts import domain_name, host_and_domain


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
