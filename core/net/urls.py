"""URL canonicalization and validation: the only way a URL enters the store."""

from __future__ import annotations

import importlib
import ipaddress
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote_plus, unquote_to_bytes, urljoin, urlsplit

import ada_url
from recrawl.core.errors import InvalidUrl
from w3lib.url import canonicalize_url, safe_url_string

ALLOWED_SCHEMES = ("http", "https")
MAX_URL_LENGTH = 4096
#: URLs the caches below keep. A site's pages link to the same few URLs over and over;
#: an entry costs ~250 bytes with its key and value, and a page of 100,000 distinct links
#: filled 100,000-entry caches with 50 MB no later page asked for.
CACHED_URLS = 16_384


def canonical(url: str, base: str | None = None) -> str:
    """Resolve ``url`` against ``base`` and canonicalize it; raise :class:`InvalidUrl`.

    Canonical form (w3lib): percent-encoding normalised, query arguments sorted,
    fragment dropped, scheme and host lower-cased, default port removed. The form is
    :func:`canonical_reference`'s; most URLs get it from :func:`fast_canonical`.
    """
    text = url.strip()
    if base is None:
        # an absolute URL of the common kind needs neither the join nor the cache (a
        # bulk check meets each URL once: the cache would only miss)
        fast = fast_canonical(text)
        if fast is not None:
            return fast
    return _canonical(url, text, base, _canonical_absolute)


def canonical_reference(url: str, base: str | None = None) -> str:
    """:func:`canonical` by w3lib alone, as it was before the fast path: the form the
    store's keys have, which the tests hold :func:`canonical` to."""
    return _canonical(url, url.strip(), base, _w3lib_canonical)


def _canonical(url: str, text: str, base: str | None, absolute: Callable[[str], str]) -> str:
    if not text:
        raise InvalidUrl("empty URL")
    # The fragment is dropped: cut before the cached steps, so that the links to a
    # page's anchors (a documentation page has hundreds: os.html#os.stat) are one entry
    # of each cache, not one each (they filled the caches, and missed). An ASCII URL
    # canonicalizes the same without it, unless it then ends in a space or a control
    # character (w3lib strips those at the end); a URL that fails fails as a whole, so
    # that its error (which quotes it) is the one it always had.
    cut = text.find("#")
    if cut >= 0 and text.isascii():
        try:
            joined = _joined(text[:cut], base, url)
            if joined[-1:] > " ":
                return absolute(joined)
        except InvalidUrl:
            pass
    return absolute(_joined(text, base, url))


@dataclass(frozen=True)
class SeedUrl:
    """A URL as the user typed it (a seed, a feed) and the canonical URL taken from it."""

    given: str
    url: str
    #: the scheme was missing and one was put in front, as a browser's address bar does
    assumed_scheme: bool

    def note(self) -> str | None:
        """The line that says what was assumed, if anything."""
        return f"took {self.given} as {self.url}" if self.assumed_scheme else None


#: A URL's scheme (RFC 3986 §3.1) and its ":".
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
#: ... unless it is a host's port (``localhost:8080/``, ``example.org:8443``) or a user's
#: name and password (``user:pass@example.org/``, not a scheme a browser knows).
_HOST_PORT = re.compile(r"[A-Za-z0-9.-]+:\d+(?:[/?#]|$)")
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):[^/?#@]*@")
#: Schemes that are no user's name: ``mailto:me@example.org`` is an address, not a site.
_KNOWN_SCHEMES = frozenset(
    [
        "about",
        "blob",
        "data",
        "file",
        "ftp",
        "ftps",
        "git",
        "irc",
        "javascript",
        "mailto",
        "news",
        "sftp",
        "sms",
        "ssh",
        "tel",
        "urn",
        "ws",
        "wss",
    ]
)


def seed_url(text: str) -> SeedUrl:
    """The canonical URL of what a user typed as a URL to crawl; :class:`InvalidUrl`
    in one line when it is none.

    Typed without a scheme (``example.org/news``, ``//host/``), it is taken as https://,
    as a browser's address bar takes it; a host no certificate names (an IP address,
    ``localhost``, a name of one label: ``intranet:8080``, with or without its root dot)
    and a host typed with HTTP's port (``example.org:80``) as http://, as browsers take
    those too (their HTTPS upgrades leave such hosts alone): a documentation tree served
    on 127.0.0.1 speaks plain HTTP. A URL with another scheme (``mailto:``, ``ftp:``) is
    refused as before.
    """
    given = text.strip()
    if given.startswith("//"):
        rest = given[2:]
    elif given[:1] == "[" or (given[:1].isalnum() and not _has_scheme(given)):  # "[": IPv6
        rest = given
    else:
        return SeedUrl(given, canonical(given), assumed_scheme=False)
    try:
        url = canonical("https://" + rest)
        parts = urlsplit(url)
        if _local_host(parts.hostname or "") or parts.port == 80:
            url = canonical("http://" + rest)
        return SeedUrl(given, url, assumed_scheme=True)
    except (InvalidUrl, ValueError) as exc:  # ValueError: urlsplit's port out of range
        reason = exc.reason if isinstance(exc, InvalidUrl) else f"malformed URL: {exc}"
        # the user's own words, not the URL they never typed
        raise InvalidUrl(f"{reason}: {given!r}", reason) from None


def _has_scheme(text: str) -> bool:
    if not _SCHEME.match(text) or _HOST_PORT.match(text):
        return False
    user = _USERINFO.match(text)
    return user is None or user[1].lower() in _KNOWN_SCHEMES


def _local_host(host: str) -> bool:
    """An IP address, ``localhost`` (or a name under it) or a single-label name; a
    name's root dot (``localhost.``) changes nothing."""
    name = host.strip("[]").removesuffix(".")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name == "localhost" or name.endswith(".localhost") or "." not in name


def _joined(text: str, base: str | None, url: str) -> str:
    if base is None:
        return text
    try:
        return _join(base, text)
    except ValueError as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}", f"malformed URL: {exc}") from None


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


@lru_cache(maxsize=CACHED_URLS)
def _join_in_directory(directory: str, href: str) -> str:
    return urljoin(directory, href)


@lru_cache(maxsize=CACHED_URLS)
def _canonical_absolute(text: str) -> str:
    # Pages of one site link to the same URLs over and over: canonicalizing each
    # distinct URL once is most of a crawl's URL work saved.
    fast = fast_canonical(text)
    return fast if fast is not None else _w3lib_canonical(text)


def _w3lib_canonical(text: str) -> str:
    """The canonical form of an absolute URL by w3lib: the reference."""
    url = text
    try:
        parts = urlsplit(text)
    except ValueError as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}", f"malformed URL: {exc}") from None
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise InvalidUrl(f"not an http(s) URL: {url!r}", "not an http(s) URL")
    try:
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}", f"malformed URL: {exc}") from None
    if not host:
        raise InvalidUrl(f"URL has no host: {url!r}", "URL has no host")
    if any(ch in host for ch in ' <>"{}|\\^`') or ".." in host:
        raise InvalidUrl(f"malformed host in URL {url!r}", "malformed host")
    try:
        result = canonicalize_url(safe_url_string(text))
    except (ValueError, UnicodeError) as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}", f"malformed URL: {exc}") from None
    if len(result) > MAX_URL_LENGTH:
        raise InvalidUrl(f"URL longer than {MAX_URL_LENGTH} characters")
    # canonicalize_url keeps an explicit default port; drop it so one page has one URL
    parts = urlsplit(result)
    _check_host(parts.hostname or "", url)
    default = {"http": 80, "https": 443}[parts.scheme]
    if parts.port == default:
        result = parts._replace(netloc=parts.netloc.rsplit(":", 1)[0]).geturl()
    return result


#: A host name's label once IDNA has made it ASCII (``_`` is not DNS's, but hosts use it).
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")


def _check_host(host: str, url: str) -> None:
    """A host name no DNS could answer is malformed (``%zz``, ``xn--``, a 64-letter
    label); an IP literal is urlsplit's to check."""
    problem = _host_problem(host)
    if problem is not None:
        raise InvalidUrl(f"{problem} in URL {url!r}", problem)


@lru_cache(maxsize=1024)  # a crawl meets few hosts, each in many URLs
def _host_problem(host: str) -> str | None:
    if ":" in host:  # an IPv6 literal (urlsplit checked its brackets)
        return None
    for label in host.removesuffix(".").split("."):
        if not _LABEL.fullmatch(label):
            return "malformed host"
        if label.startswith("xn--"):
            try:
                label[4:].encode("ascii").decode("punycode")
            except UnicodeError:
                return "malformed IDN host"
    return None


#: The URLs :func:`fast_canonical` takes: http(s) with a host of letters, digits, "_",
#: "-" and "." (group 2, checked by :func:`_fast_host`) and no user, a port with no
#: leading zero, a path and query of the characters that w3lib and the URL standard
#: both leave as they are (``%`` escapes too; no ``;`` in the path, which w3lib reads
#: as the start of its parameters) and a fragment of printable ASCII. Group 1 is the
#: URL without its fragment.
_FAST_URL = re.compile(
    r"([Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9_.-]+)(?::[1-9][0-9]{0,4})?"
    r"(?:/[A-Za-z0-9._~!$&'()*+,=:@/%|-]*)?"
    r"(?:\?[A-Za-z0-9._~!$&'()*+,;=:@/?%|-]*)?)"
    r"(?:#[!-~]*)?"
)
#: A host name's label as _check_host wants it (any case; ``xn--`` labels are w3lib's to
#: check), and the last one, which starts with no digit: the URL standard reads a host
#: whose last label is a number as an IPv4 address, which ada writes in its own way ...
_FAST_LABEL = r"(?![Xx][Nn]--)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_FAST_LAST_LABEL = r"(?![Xx][Nn]--)[A-Za-z_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
#: ... unless it is one as the URL standard writes it, which w3lib keeps as it is.
_IPV4_BYTE = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_FAST_HOST = re.compile(
    rf"(?:{_IPV4_BYTE}\.){{3}}{_IPV4_BYTE}|(?:{_FAST_LABEL}\.)*{_FAST_LAST_LABEL}\.?"
)
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_QUERY_WORD = r"[A-Za-z0-9_.~-]"
#: A query of name=value arguments that canonical form keeps as written, but in order.
_PLAIN_QUERY = re.compile(rf"{_QUERY_WORD}+={_QUERY_WORD}*(?:&{_QUERY_WORD}+={_QUERY_WORD}*)*")


@lru_cache(maxsize=CACHED_URLS)  # a bulk check meets its hosts over and over
def _fast_host(host: str) -> bool:
    """Whether ada and w3lib write ``host`` alike (lower case) and _check_host takes it."""
    return _FAST_HOST.fullmatch(host) is not None


def _path_escapes() -> tuple[str, ...]:
    """What w3lib makes of each ``%XX`` in a path: the character when it is one a path
    keeps (unreserved, reserved but ``#``, and ``|``), except ``%``, ``/``, ``;`` and ``?``,
    whose escapes mean something else; otherwise the escape in upper case."""
    kept = string.ascii_letters + string.digits + "-._~" + ":/?[]@!$&'()*+,;=|"
    return tuple(
        chr(b) if chr(b) in kept and chr(b) not in "%/;?" else f"%{b:02X}" for b in range(256)
    )


_PATH_ESCAPES = _path_escapes()


def _path_escape(found: re.Match[str]) -> str:
    return _PATH_ESCAPES[int(found[0][1:], 16)]


def _ada_binding() -> tuple[Any, Any]:
    # ada_url's C functions, called directly: its URL class asks for each part in a
    # call of its own and registers a finaliser, twice the cost of the parse itself
    try:
        wrapper = importlib.import_module("ada_url._ada_wrapper")
        return wrapper.lib, wrapper.ffi
    except (ImportError, AttributeError):
        return None, None


_ADA, _ADA_FFI = _ada_binding()


def _ada_href(text: str) -> str | None:
    """ada's href of an ASCII URL (the URL standard's serialisation), None if invalid."""
    if _ADA is None:
        try:
            return str(ada_url.URL(text).href)
        except ValueError:
            return None
    data = text.encode("ascii")
    handle = _ADA.ada_parse(data, len(data))
    try:
        if not _ADA.ada_is_valid(handle):
            return None
        href = _ADA.ada_get_href(handle)
        return str(_ADA_FFI.unpack(href.data, href.length).decode("ascii"))
    finally:
        _ADA.ada_free(handle)


def fast_canonical(text: str) -> str | None:
    """:func:`canonical_reference`'s form of the absolute URL ``text`` (stripped), by ada
    (the URL standard's parser) and a little string work, for the URLs of a class the
    two are proven to agree on (tests/core/net/test_urls_corpus.py); None for any other
    URL, and for one that is not valid, which the reference canonicalizes or refuses.

    ada lower-cases the scheme and host, drops a default port, puts in the root path
    and resolves ``.`` and ``..`` segments; what w3lib does besides is done here: a
    path's escapes normalised (``%7e`` is ``~``, ``%c3`` is ``%C3``), the query's
    arguments decoded, sorted, and encoded again (``a`` is ``a=``, a space is ``+``),
    and the fragment dropped.
    """
    found = _FAST_URL.fullmatch(text)
    if found is None or "%2e" in text or "%2E" in text:  # ada resolves "%2e" segments
        return None
    if not _fast_host(found[2]):
        return None
    href = _ada_href(found[1])
    if href is None:
        return None
    start = href.find("/", 8)  # the path's: after "http://" and a host of one letter or more
    mark = href.find("?", start)
    path = href[start:] if mark < 0 else href[start:mark]
    if "%" in path:
        path = _ESCAPE.sub(_path_escape, path)
    result = href[:start] + path
    if mark >= 0:
        query = _canonical_query(href[mark + 1 :])
        if query:
            result += "?" + query
    return result if len(result) <= MAX_URL_LENGTH else None


def _canonical_query(query: str) -> str:
    """w3lib's query: ``&``-separated arguments (blank ones dropped), each decoded
    (``+`` is a space), sorted by name then value as bytes, encoded again."""
    if _PLAIN_QUERY.fullmatch(query):
        if "&" not in query:
            return query
        # sorted by (name, value): with the "=" (each has one) a NUL, below every other
        # character, as strings
        return "&".join(sorted(query.replace("=", "\0").split("&"))).replace("\0", "=")
    pairs = []
    for arg in query.split("&"):
        if arg:
            name, _, value = arg.partition("=")
            pairs.append(
                (
                    unquote_to_bytes(name.replace("+", " ")),
                    unquote_to_bytes(value.replace("+", " ")),
                )
            )
    pairs.sort()
    return "&".join(f"{quote_plus(name, '')}={quote_plus(value, '')}" for name, value in pairs)


def embed_url(href: str, base: str | None = None) -> str:
    """``href`` resolved against ``base`` as a browser requests it (the WHATWG URL
    standard's serialisation, by ada-url), less its fragment; raise :class:`InvalidUrl`.

    What a page embeds is archived under this URL, not the canonical form of
    :func:`canonical`: a replayed page asks for ``style.css?v1`` as written, and the
    canonical ``style.css?v1=`` (or arguments sorted) would be another capture's key.
    """
    text = href.strip()
    if not text:
        raise InvalidUrl("empty URL")
    return _embed_url(text, base)


@lru_cache(maxsize=CACHED_URLS)
def _embed_url(text: str, base: str | None) -> str:
    try:
        parsed = ada_url.URL(text, base) if base is not None else ada_url.URL(text)
    except ValueError:
        raise InvalidUrl(f"malformed URL {text!r}", "malformed URL") from None
    if parsed.protocol not in ("http:", "https:"):
        raise InvalidUrl(f"not an http(s) URL: {text!r}", "not an http(s) URL")
    host = parsed.hostname
    if not host:
        raise InvalidUrl(f"URL has no host: {text!r}", "URL has no host")
    _check_host(host.strip("[]") if host.startswith("[") else host, text)
    parsed.hash = ""
    result = parsed.href
    if len(result) > MAX_URL_LENGTH:
        raise InvalidUrl(f"URL longer than {MAX_URL_LENGTH} characters")
    return result


def host_of(url: str) -> str:
    """The host (lower case, no port) of a canonical URL."""
    return urlsplit(url).hostname or ""


def origin_of(url: str) -> str:
    """``scheme://host[:port]``: the unit of politeness and robots.txt."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
