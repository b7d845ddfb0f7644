"""What a filter chain judges when a user asks about a URL (docs/design.md §8, ``filter check``).

The chain judges any URL with a scheme: ``mailto:``, ``ftp:``, ``file:`` and the rest too,
as Nutch's templates and the default chain expect (they have rules for them); only
fetching is limited to http(s). Each is canonicalised first, as links are before the
chain sees them:

- ``http``/``https``: :func:`recrawl.core.net.urls.canonical`, exactly as in a crawl;
- other schemes with an authority (``ftp://``, ``file://``, ``news://``): w3lib's
  canonical form, the one http URLs get (scheme and host lower case, percent-encoding
  normalised, query arguments sorted, fragment dropped; a port is kept as written);
- schemes without one (``mailto:``, ``news:``, ``tel:``, ``data:``, ``javascript:``):
  the scheme lower case, the rest as given — w3lib would sort a ``mailto:`` query and
  turn its spaces into ``+``, which changes what the URL means.

Text without a scheme (``example.com/page``, and ``example.com:8080/page``, whose
"scheme" would be a host name) is not a URL: :class:`InvalidUrl`.
"""

from __future__ import annotations

import re

from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import ALLOWED_SCHEMES, canonical, fast_canonical
from w3lib.url import canonicalize_url, safe_url_string

#: RFC 3986's scheme, and the colon after it.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def judged_url(text: str) -> str:
    """The canonical URL the chain judges for ``text``; InvalidUrl if it is not a URL."""
    url = text.strip()
    fast = fast_canonical(url)  # the common http(s) URL: canonical() would take this path
    if fast is not None:
        return fast
    found = _SCHEME.match(url)
    if found is not None and "." in found.group() and url[found.end() : found.end() + 1].isdigit():
        found = None  # host:port, not scheme:...
    if found is None:
        if not url:
            raise InvalidUrl("empty URL")
        raise InvalidUrl(f"not a URL (no scheme such as http:): {text.strip()!r}")
    scheme = found.group()[:-1].lower()
    if scheme in ALLOWED_SCHEMES:
        return canonical(url)
    rest = url[found.end() :]
    if not rest.startswith("//"):
        return f"{scheme}:{rest}"
    try:
        return canonicalize_url(safe_url_string(f"{scheme}:{rest}"))
    except (ValueError, UnicodeError) as exc:
        raise InvalidUrl(f"malformed URL {url!r}: {exc}") from None
