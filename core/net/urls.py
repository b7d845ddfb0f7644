"""URL canonicalization and validation: the only way a URL enters the store."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urljoin, urlsplit

from recrawl.core.errors import InvalidUrl
from w3lib.url import canonicalize_url, safe_url_string

ALLOWED_SCHEMES = ("http", "https")
MAX_URL_LENGTH = 4096


def canonical(url: str, base: str | None = None) -> str:
    """Resolve ``url`` against ``base`` and canonicalize it; raise :class:`InvalidUrl`.

    Canonical form (w3lib): percent-encoding normalised, query arguments sorted,
    fragment dropped, scheme and host lower-cased, default port removed.
    """
    text = url.strip()
    if not text:
        raise InvalidUrl("empty URL")
    if base is not None:
        try:
            text = _join(base, text)
        except ValueError as exc:
            raise InvalidUrl(f"malformed URL {url!r}: {exc}") from None
    return _canonical_absolute(text)


def _join(base: str, href: str) -> str:
    # A relative link resolves against the base's directory alone unless it starts
    # with "?", "#" or ";" or has a scheme; keying the cache on that directory lets every page of a folder
    # share the work.
    if href[:1] in ("?", "#", ";", "") or href[:2] == "//" or ":" in href.split("/", 1)[0]:
        return urljoin(base, href)  # also absolute ones: "http://" alone means the base
    cut = base.split("#", 1)[0].split("?", 1)[0]
    if cut.count("/") < 3:
        return urljoin(base, href)
    return _join_in_directory(cut[: cut.rfind("/") + 1], href)


@lru_cache(maxsize=100_000)
def _join_in_directory(directory: str, href: str) -> str:
    return urljoin(directory, href)


@lru_cache(maxsize=100_000)
def _canonical_absolute(text: str) -> str:
    # Pages of one site link to the same URLs over and over: canonicalizing each
    # distinct URL once is most of a crawl's URL work saved.
    url = text
    try:
        parts = urlsplit(text)
    except ValueError as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}") from None
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise InvalidUrl(f"not an http(s) URL: {url!r}")
    try:
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}") from None
    if not host:
        raise InvalidUrl(f"URL has no host: {url!r}")
    if any(ch in host for ch in ' <>"{}|\\^`') or ".." in host:
        raise InvalidUrl(f"malformed host in URL {url!r}")
    try:
        result = canonicalize_url(safe_url_string(text))
    except (ValueError, UnicodeError) as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}") from None
    if len(result) > MAX_URL_LENGTH:
        raise InvalidUrl(f"URL longer than {MAX_URL_LENGTH} characters")
    # canonicalize_url keeps an explicit default port; drop it so one page has one URL
    parts = urlsplit(result)
    default = {"http": 80, "https": 443}[parts.scheme]
    if parts.port == default:
        result = parts._replace(netloc=parts.netloc.rsplit(":", 1)[0]).geturl()
    return result


def host_of(url: str) -> str:
    """The host (lower case, no port) of a canonical URL."""
    return urlsplit(url).hostname or ""


def origin_of(url: str) -> str:
    """``scheme://host[:port]``: the unit of politeness and robots.txt."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
