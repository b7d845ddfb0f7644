"""The URL filter hook: every discovered or injected URL passes a chain of filters.

Step 1 ships the built-in scope chain (skip obvious binary suffixes, stay on the seeds'
hosts); filter chains from TOML and Nutch files plug in behind the same
:class:`UrlFilter` protocol and :class:`Verdict` value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

ACCEPT = "accept"
REJECT = "reject"
SHORTCIRCUIT = "shortcircuit"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A filter chain's decision with its provenance.

    ``filter`` is the deciding filter's index in the chain (``None`` for a plain accept),
    ``line`` its deciding rule line (1-based, ``None`` when no rule matched).
    """

    accepted: bool
    shortcircuit: bool = False
    filter: int | None = None
    line: int | None = None
    filter_name: str | None = None

    @property
    def word(self) -> str:
        return "accept" if self.accepted else "reject"


PLAIN_ACCEPT = Verdict(accepted=True)


@dataclass(frozen=True, slots=True)
class FilterResult:
    """One filter's outcome: accept (go on), reject or shortcircuit (stop), and the rule line."""

    outcome: str
    line: int | None = None


class UrlFilter(Protocol):
    name: str
    enabled: bool

    def decide(self, url: str) -> FilterResult: ...


class Chain:
    """Filters run in order; reject or shortcircuit stops the chain."""

    def __init__(self, filters: Sequence[UrlFilter]) -> None:
        self.filters = list(filters)

    def check(self, url: str) -> Verdict:
        for index, flt in enumerate(self.filters):
            if not flt.enabled:
                continue
            result = flt.decide(url)
            if result.outcome == REJECT:
                return Verdict(False, False, index, result.line, flt.name)
            if result.outcome == SHORTCIRCUIT:
                return Verdict(True, True, index, result.line, flt.name)
        return PLAIN_ACCEPT


# Suffixes that are never worth a crawl of the seeds' HTML: images, media, archives,
# fonts, executables. Documents (PDF, office files) stay in.
BINARY_SUFFIXES = [
    ".jpg",
    ".jpeg",
    ".png",
    ".gif",
    ".bmp",
    ".ico",
    ".webp",
    ".tif",
    ".tiff",
    ".svg",
    ".psd",
    ".heic",
    ".avif",
    ".mp3",
    ".ogg",
    ".wav",
    ".flac",
    ".m4a",
    ".aac",
    ".mp4",
    ".m4v",
    ".mov",
    ".avi",
    ".wmv",
    ".mkv",
    ".webm",
    ".flv",
    ".mpg",
    ".mpeg",
    ".zip",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".7z",
    ".rar",
    ".tar",
    ".iso",
    ".dmg",
    ".jar",
    ".woff",
    ".woff2",
    ".ttf",
    ".otf",
    ".eot",
    ".exe",
    ".msi",
    ".bin",
    ".dll",
    ".so",
    ".deb",
    ".rpm",
    ".apk",
]


@dataclass
class SuffixRejectFilter:
    suffixes: tuple[str, ...] = tuple(BINARY_SUFFIXES)
    name: str = "binary-suffixes"
    enabled: bool = True

    def decide(self, url: str) -> FilterResult:
        path = urlsplit(url).path.lower()
        for line, suffix in enumerate(self.suffixes, start=1):
            if path.endswith(suffix):
                return FilterResult(REJECT, line)
        return FilterResult(ACCEPT)


@dataclass
class HostScopeFilter:
    """Accept URLs on the listed hosts (the seeds'); reject the rest. No hosts: accept all."""

    hosts: tuple[str, ...] = ()
    name: str = "seed-hosts"
    enabled: bool = True

    def decide(self, url: str) -> FilterResult:
        if not self.hosts:
            return FilterResult(ACCEPT)
        host = urlsplit(url).hostname or ""
        for line, allowed in enumerate(self.hosts, start=1):
            if host == allowed:
                return FilterResult(ACCEPT, line)
        return FilterResult(REJECT)


def default_chain(scope_hosts: Iterable[str]) -> Chain:
    return Chain([SuffixRejectFilter(), HostScopeFilter(tuple(sorted(set(scope_hosts))))])
