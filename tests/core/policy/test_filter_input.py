"""What `filter check` judges for each input (docs/design.md §8): any URL with a scheme."""

from __future__ import annotations

import pytest
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical
from recrawl.core.policy.filter_input import judged_url


@pytest.mark.parametrize(
    ("text", "url"),
    [
        # http(s): exactly what a crawl stores
        ("HTTP://Example.COM:80/a?b=2&a=1#top", canonical("http://example.com/a?a=1&b=2")),
        ("  https://example.com/  ", "https://example.com/"),
        # an authority: w3lib's canonical form (scheme and host lower case, no fragment)
        ("FTP://FTP.Example.com:21/pub/a b#x", "ftp://ftp.example.com:21/pub/a%20b"),
        ("file:///C:/Docs/A%7eb.txt", "file:///C:/Docs/A~b.txt"),
        ("news://News.Example.com/comp.lang", "news://news.example.com/comp.lang"),
        # none: the scheme lower case, the rest as given
        ("MailTo:Me@Example.COM?subject=Hi There", "mailto:Me@Example.COM?subject=Hi There"),
        ("news:comp.lang.python", "news:comp.lang.python"),
        ("JavaScript:void(0)", "javascript:void(0)"),
        ("tel:+1-555-0100", "tel:+1-555-0100"),
        ("localhost:8080", "localhost:8080"),  # a scheme by RFC 3986's grammar
    ],
)
def test_judged_url(text, url):
    assert judged_url(text) == url


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty URL"),
        ("example.com/page", "not a URL (no scheme such as http:): 'example.com/page'"),
        ("example.com:8080/page", "not a URL (no scheme such as http:)"),  # host and port
        ("1http://a.com/", "not a URL"),
        ("http://[::1", "malformed URL 'http://[::1'"),
        ("ftp://[::1", "malformed URL 'ftp://[::1'"),
        ("ftp://a.com:99999/", "malformed URL"),
        ("http:/a.com/x", "URL has no host"),
    ],
)
def test_not_a_url(text, message):
    with pytest.raises(InvalidUrl) as error:
        judged_url(text)
    assert str(error.value).startswith(message)
