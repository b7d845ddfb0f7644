"""A URL's host and domain name, as Nutch's host blocks in regex rules see them.

Nutch (NUTCH-1838, ``RegexURLFilterBase``) runs a rule of a ``> HOST`` … ``<`` block only
for URLs whose host (lower case) or whose domain name is HOST, with the domain name from
``URLUtil.getDomainName``: an IPv4 address is its own domain; otherwise the host is cut
from the left, label by label, until what follows the first dot is a public suffix (a
host that never gets there ends as its last label). Nutch reads its suffixes from its
own ``domain-suffixes.xml``; Recrawl takes the ICANN section of the Public Suffix List,
the maintained list of the same kind (``resources/public-suffixes.toml``, read only when
a chain has host blocks).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from urllib.parse import urlsplit

from recrawl.core.resources import resource_text

SUFFIX_FILE = "public-suffixes.toml"
_IPV4 = re.compile(r"(\d{1,3}\.){3}\d{1,3}")


@dataclass(frozen=True)
class Suffixes:
    """The Public Suffix List's rules: plain, wildcard (``*.ck``) and exceptions (``!www.ck``)."""

    plain: frozenset[str]
    wildcard_parents: frozenset[str]  # "ck" for "*.ck"
    exceptions: frozenset[str]  # "www.ck" for "!www.ck"

    @classmethod
    def parse(cls, rules: str) -> Suffixes:
        plain, wild, exceptions = set(), set(), set()
        for rule in rules.split():
            if rule.startswith("!"):
                exceptions.add(rule[1:])
            elif rule.startswith("*."):
                wild.add(rule[2:])
            else:
                plain.add(rule)
        return cls(frozenset(plain), frozenset(wild), frozenset(exceptions))

    def is_public(self, name: str) -> bool:
        if name in self.plain:
            return True
        if name in self.exceptions:
            return False
        parent = name.partition(".")[2]
        return bool(parent) and parent in self.wildcard_parents


@functools.cache
def public_suffixes() -> Suffixes:
    data = tomllib.loads(resource_text(SUFFIX_FILE))
    return Suffixes.parse(data["suffixes"])


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
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def host_and_domain(url: str) -> tuple[str, str]:
    """What a host block is compared with: the URL's host and its domain name."""
    host = url_host(url)
    return host, domain_name(host)


def suffix_file_text(dat: str) -> str:
    """``resources/public-suffixes.toml`` from the Public Suffix List's ``.dat`` text.

    Only the ICANN section; names in their ASCII (IDNA) form, as hosts are in canonical URLs.
    """
    import idna  # only to regenerate the file: an httpx dependency

    head, _, rest = dat.partition("// ===BEGIN ICANN DOMAINS===")
    icann = rest.partition("// ===END ICANN DOMAINS===")[0]
    version = next(
        (ln.split(":", 1)[1].strip() for ln in head.splitlines() if "VERSION:" in ln), ""
    )
    names: list[str] = []
    for line in icann.splitlines():
        rule = line.strip()
        if not rule or rule.startswith("//"):
            continue
        mark = rule[0] if rule[0] == "!" else ("*." if rule.startswith("*.") else "")
        name = rule[len(mark) :]
        try:
            name = name if name.isascii() else idna.encode(name, uts46=True).decode("ascii")
        except idna.IDNAError:
            continue  # a name no canonical URL can have
        names.append(mark + name.lower())
    return (
        "# The ICANN section of the Public Suffix List (https://publicsuffix.org/list/),\n"
        "# licensed under the Mozilla Public License 2.0 (https://mozilla.org/MPL/2.0/).\n"
        "# Names in ASCII (IDNA) form. Made by recrawl.core.filters.hosts.suffix_file_text:\n"
        "#   python -m recrawl.core.filters.hosts public_suffix_list.dat OUT.toml\n"
        f'version = "{version}"\n'
        'suffixes = """\n' + "\n".join(names) + '\n"""\n'
    )


if __name__ == "__main__":
    import sys

    with open(sys.argv[1], encoding="utf-8") as source:
        text = suffix_file_text(source.read())
    with open(sys.argv[2] if len(sys.argv) > 2 else SUFFIX_FILE, "w", encoding="utf-8") as out:
        out.write(text)
