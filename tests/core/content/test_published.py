"""A page's own publication date (core/content/published.py): what htmldate's fast mode
finds where pages state their date, as naive UTC, bounded by the fetch."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime

from recrawl.core.content.published import page_date

FETCHED = datetime(2026, 11, 5, 10, 0)
URL = "http://news.test/story"


def head(markup: str, body: str = "<p>The story.</p>") -> str:
    return f"<html><head><title>Story</title>{markup}</head><body>{body}</body></html>"


def test_a_meta_date_with_a_time_zone_is_stored_in_utc():
    markup = head('<meta property="article:published_time" content="2026-11-02T22:30:00-05:00">')
    assert page_date(markup, URL, FETCHED) == datetime(2026, 11, 3, 3, 30)


def test_json_ld_gives_the_publication_date_not_the_last_update():
    ld = (
        '<script type="application/ld+json">{"@type": "NewsArticle", '
        '"datePublished": "2026-11-02T08:00:00+01:00", "dateModified": "2026-11-04"}</script>'
    )
    assert page_date(head(ld), URL, FETCHED) == datetime(2026, 11, 2, 7, 0)


def test_a_date_alone_is_its_midnight_utc_and_the_url_can_state_it():
    assert page_date(head('<meta name="date" content="2026-11-02">'), URL, FETCHED) == datetime(
        2026, 11, 2
    )
    bare = head("", "<p>No date in the text.</p>")
    assert page_date(bare, "http://news.test/2026/11/01/story", FETCHED) == datetime(2026, 11, 1)
    assert page_date(bare, URL, FETCHED) is None
    # the markup's time beats the URL's day
    timed = head('<meta property="article:published_time" content="2026-11-01T18:05:00Z">')
    assert page_date(timed, "http://news.test/2026/11/01/story", FETCHED) == datetime(
        2026, 11, 1, 18, 5
    )


def test_a_date_after_the_fetch_is_no_publication_date():
    # htmldate alone turns a date past its bound into that date's month: 1 Nov here
    later = head('<meta property="article:published_time" content="2026-11-09T10:00:00Z">')
    assert page_date(later, URL, FETCHED) is None
    # a day ahead is allowed: a time zone east of UTC is already on the next day
    tomorrow = head('<meta property="article:published_time" content="2026-11-06T09:00:00+09:00">')
    assert page_date(tomorrow, URL, FETCHED) == datetime(2026, 11, 6, 0, 0)


def test_a_page_htmldate_cannot_read_has_no_date(server):
    for markup in ("", "\x00\x01 binary \xff", "<html", "just words"):
        assert page_date(markup, URL, FETCHED) is None
    # a body that reads as a URL: htmldate downloads a str like it, never our markup
    server.html("/2026/11/01/", head('<meta name="date" content="2026-11-01">'))
    page_date(server.url("/2026/11/01/"), URL, FETCHED)
    assert server.hits_for("/2026/11/01/") == 0


def test_the_fast_mode_never_loads_dateparser():
    # dateparser is left out of the packaged app: reading a date must not need it
    script = (
        "import sys\n"
        "from datetime import datetime\n"
        "from recrawl.core.content.published import page_date\n"
        "for text in ('<p>Published 2 November 2026</p>', '<p>le 2 novembre 2026</p>'):\n"
        "    page_date('<html><body>' + text + '</body></html>', 'http://a.test/', "
        "datetime(2026, 11, 5))\n"
        "print('dateparser' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert out.stderr == ""
