"""A URL's host and domain name, as Nutch's host blocks in regex rules see them.

Nutch (NUTCH-1838, ``RegexURLFilterBase``) runs a rule of a ``> HOST`` … ``<`` block only
for URLs whose host (lower case) or whose domain name is HOST, with the domain name from
``URLUtil.getDomainName``: an IPv4 address is its own domain; otherwise the host is cut
from the left, label by label, until what follows the first dot is a public suffix (a
host that never gets there ends as its last label). Nutch reads its suffixes from its
own ``domain-suffixes.xml``; Recrawl asks the ICANN section of the Public Suffix List,
the maintained list of the same kind, through the ``publicsuffixlist`` package (loaded
only when a chain has host blocks). An unknown top-level label is not a suffix, as in
Nutch; a wildcard's root (``ck`` for ``*.ck``) is one, as the list's own rules say.
Punycode (``xn--``) hosts, the form canonical URLs carry, match the list's IDN entries.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList

_IPV4 = re.compile(r"(\d{1,3}\.){3}\d{1,3}")
#: A plain http(s) URL (:func:`_split_plain`): the netloc ends at the first ``/``, ``?``
#: or ``#`` (and has no bracket); the path ends at the first ``?`` or ``#`` after it.
_PLAIN = re.compile(r"https?://([^/?#\[\]]*)(?=[/?#]|\Z)([^?#]*)")


@functools.cache
def public_suffixes() -> PublicSuffixList:
    """The list's ICANN section, parsed once (about 0.1 s) on first use."""
    from publicsuffixlist import PublicSuffixList

    # accept_unknown=False: Nutch cuts an unknown TLD's host down to its last label
    return PublicSuffixList(only_icann=True, accept_unknown=False)


@functools.lru_cache(maxsize=65536)
def domain_name(host: str) -> str:
    """Nutch's domain name of a (lower-case) host: ``www.example.co.uk`` → ``example.co.uk``."""
    host = host.removesuffix(".")
    if _IPV4.fullmatch(host):
        return host
    is_public = public_suffixes().is_public
    candidate = host
    while True:
        dot = candidate.find(".")
        rest = candidate[dot + 1 :]  # the whole candidate once no dot is left
        if is_public(rest):
            return candidate
        candidate = rest
        if dot < 0:
            return candidate


def url_host(url: str) -> str:
    """The URL's host, lower case ("" when it has none or cannot be split)."""
    split = _split_plain(url)
    if split is not None:
        netloc = split[0]
        return netloc[netloc.rfind("@") + 1 :].partition(":")[0].lower()
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def url_path(url: str) -> str:
    """The URL's path, exactly as ``urlsplit(url).path``."""
    split = _split_plain(url)
    return split[1] if split is not None else urlsplit(url).path


def _split_plain(url: str) -> tuple[str, str] | None:
    """(netloc, path) of a plain http(s) URL, as :func:`urlsplit` gives them, about five
    times faster (applying a chain to a million known pages splits every URL); None for
    any other URL, which urlsplit splits.

    Plain: lower-case ``http://`` or ``https://``, printable ASCII (nothing urlsplit
    strips or removes, no netloc it checks for Unicode normalisation), and no bracket
    (an IPv6 literal, which urlsplit validates).
    """
    if not (url.isascii() and url.isprintable()):
        return None
    found = _PLAIN.match(url)
    return None if found is None else (found[1], found[2])


def host_and_domain(url: str) -> tuple[str, str]:
    """What a host block is compared with: the URL's host and its domain name."""
    host = url_host(url)
    return host, domain_name(host)
