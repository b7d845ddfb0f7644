"""A page's own publication date (core/content/published.py): read from the parse tree
where pages state their date (htmldate's fast mode for what else states one), as naive
UTC, bounded by the fetch."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, datetime

import pytest
from recrawl.core.config import ParseSettings
from recrawl.core.content import published
from recrawl.core.content.published import page_date
from selectolax.lexbor import LexborHTMLParser

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


# -- read from the parse tree ------------------------------------------------------------


def body(markup: str) -> str:
    return head("", markup)


@pytest.mark.parametrize(
    ("markup", "published"),
    [
        (head('<meta property="og:published_time" content="2026-11-02T08:00:00Z">'), (8, 0)),
        (head('<meta name="DC.date" content="2026-11-02">'), (0, 0)),
        (head('<meta name="dcterms.created" content="2026-11-02T08:00">'), (8, 0)),
        (head('<meta name="pubdate" content="20261102">'), (0, 0)),
        (head('<meta name="publish-date" content="November 2, 2026">'), (0, 0)),  # (htmldate's)
        (head('<meta itemprop="datePublished" content="2026-11-02T08:00:00Z">'), (8, 0)),
        (head('<meta http-equiv="date" content="Mon, 02 Nov 2026 08:00:00 GMT">'), (0, 0)),
        (
            body('<span itemprop="datePublished" content="2026-11-02T08:00:00Z">2 Nov</span>'),
            (8, 0),
        ),
        (body('<time itemprop="datePublished" datetime="2026-11-02T08:00:00Z">x</time>'), (8, 0)),
        (body('<meta property="article:published_time" content="2026-11-02T08:00Z">'), (8, 0)),
        (body('<time pubdate datetime="2026-11-02T08:00:00Z">2 Nov</time>'), (8, 0)),
        (body('<time class="entry-date published" datetime="2026-11-02T08:00Z">x</time>'), (8, 0)),
        # other times: the earliest (the page's own, before its comments')
        (
            body(
                '<time datetime="2026-11-03T10:00Z">a</time><time datetime="2026-11-02T08:00Z">b</time>'
            ),
            (8, 0),
        ),
        (head('<meta property="article:modified_time" content="2026-11-02T08:00:00Z">'), (8, 0)),
        (head('<meta property="og:image" content="http://img.test/2026/11/02/a.jpg">'), (0, 0)),
        (head('<meta property="og:url" content="http://news.test/2026/11/02/story">'), (0, 0)),
    ],
)
def test_each_place_a_page_states_its_date_is_read(markup, published):
    assert page_date(markup, URL, FETCHED) == datetime(2026, 11, 2, *published)
    # the same from the caller's tree (the analysis passes the one it parsed)
    assert page_date(markup, URL, FETCHED, LexborHTMLParser(markup)) == datetime(
        2026, 11, 2, *published
    )


def ld(value: str) -> str:
    return f'<script type="application/ld+json">{value}</script>'


def test_the_publication_comes_first_then_the_address_then_times_then_changes():
    meta = '<meta property="article:published_time" content="2026-11-01T10:00:00Z">'
    json_ld = ld('{"@type": "NewsArticle", "datePublished": "2026-11-02T10:00:00Z"}')
    marked = '<time pubdate datetime="2026-11-03T10:00:00Z">3 Nov</time>'
    other = '<time datetime="2026-10-30T10:00:00Z">30 Oct</time>'
    changed = '<meta property="article:modified_time" content="2026-11-04T10:00:00Z">'
    dated_url = "http://news.test/2026/10/31/story"
    # a change written before the publication: the publication still
    page = head(changed + meta + json_ld, marked + other)
    assert page_date(page, dated_url, FETCHED) == datetime(2026, 11, 1, 10)
    page = head(changed + json_ld, marked + other)
    assert page_date(page, dated_url, FETCHED) == datetime(2026, 11, 2, 10)
    page = head(changed, marked + other)
    assert page_date(page, dated_url, FETCHED) == datetime(2026, 11, 3, 10)
    page = head(changed, other)
    assert page_date(page, dated_url, FETCHED) == datetime(2026, 10, 31)
    assert page_date(page, URL, FETCHED) == datetime(2026, 10, 30, 10)
    assert page_date(head(changed), URL, FETCHED) == datetime(2026, 11, 4, 10)


@pytest.mark.parametrize(
    "script",
    [
        '{"datePublished": "2026-11-02T08:00:00Z",}',  # a trailing comma: no JSON
        '{"@graph": [{"@type": "WebPage"}, {"datePublished": "2026-11-02T08:00:00Z"}]}',
        '[{"datePublished": {"@value": "2026-11-02T08:00:00Z"}}]',
        '{"datePublished": 20261102, "article": {"datePublished": "2026-11-02T08:00:00Z"}}',
        '{"datePublished": "soon"} {"datePublished": "2026-11-02T08:00:00Z"}',
        # (bigger than is parsed: searched as text)
        '{"datePublished": "2026-11-02T08:00:00Z", "padding": "'
        + "x" * ParseSettings.max_json_chars
        + '"}',
    ],
    ids=["comma", "graph", "value", "number", "two", "big"],
)
def test_json_ld_is_read_however_it_is_written(script):
    assert page_date(head(ld(script)), URL, FETCHED) == datetime(2026, 11, 2, 8)


def test_json_ld_that_is_no_date_is_no_date():
    for script in ("", "{", "[" * 100_000 + "]" * 100_000, '{"datePublished": null}', "42"):
        assert page_date(head(ld(script)), URL, FETCHED) is None


@pytest.mark.parametrize(
    "stamp",
    ["1970-01-01", "1994-12-31T23:00:00Z", "9999-01-01", "2026-13-45", "2026-11-07", "0"],
)
def test_an_absurd_date_is_passed_over_for_the_next_statement(stamp):
    absurd = f'<meta property="article:published_time" content="{stamp}">'
    assert page_date(head(absurd), URL, FETCHED) is None
    # the next place that states one: the address
    assert page_date(head(absurd), "http://news.test/2026/11/02/s", FETCHED) == datetime(
        2026, 11, 2
    )


@pytest.mark.parametrize(
    ("stamp", "utc"),
    [
        ("2026-11-02T08:00:00+05:30", datetime(2026, 11, 2, 2, 30)),
        ("2026-11-02T23:30:00-08:00", datetime(2026, 11, 3, 7, 30)),
        ("2026-11-02T08:00:00.123456Z", datetime(2026, 11, 2, 8, 0, 0, 123456)),
        ("2026-11-02T08:00:00", datetime(2026, 11, 2, 8)),  # no zone: UTC
        ("2026-11-02", datetime(2026, 11, 2)),  # a day: its midnight
        (" 2026-11-02T08:00:00+0100 ", datetime(2026, 11, 2, 7)),
    ],
)
def test_a_time_zone_is_converted_to_utc(stamp, utc):
    markup = head(f'<meta property="article:published_time" content="{stamp}">')
    assert page_date(markup, URL, FETCHED) == utc


def count_htmldate(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    call = published._htmldate

    def counted(markup: str, url: str, latest: date) -> datetime | None:
        calls.append(url)
        return call(markup, url, latest)

    monkeypatch.setattr(published, "_htmldate", counted)
    return calls


@pytest.mark.parametrize(
    "markup",
    [
        body('<span class="date">2 November 2026</span><p>The story.</p>'),
        body('<div class="byline">By Ann, 2 November 2026</div>'),
        body("<footer>Posted 2026-11-02</footer>"),
        body('<abbr class="published" title="2026-11-02T00:00:00+00:00">2 Nov</abbr>'),
        body("<h1>Minutes of 2 November 2026</h1>"),
        body("<p>Posted on 02.11.2026 by Ann</p>"),
        body("<p>Veröffentlicht am 2.11.2026</p>"),
    ],
)
def test_htmldate_reads_what_the_tree_does_not_say(markup, monkeypatch):
    calls = count_htmldate(monkeypatch)
    assert page_date(markup, URL, FETCHED) == datetime(2026, 11, 2)
    assert calls == [URL]


@pytest.mark.parametrize(
    "markup",
    [
        body("<p>No date here.</p>"),
        # a timestamp in an example is not the page's date (htmldate's last resort took it)
        body("<pre>2026-11-02 10:00:00,123 INFO started</pre>"),
        body("<p>Python 3.8.12 and 2.7.18 are old.</p>"),  # ("on" in "Python")
        # Python's documentation: the copyright's years, the last update past 52 characters
        body(
            '<div class="footer">&copy; <a href="/copyright.html">Copyright</a> 2001-2026, '
            "Python Software Foundation.<br/>This page is licensed under the PSF License."
            "<br/>Last updated on October 07, 2026.</div>"
        ),
        head("<title>What's New in Python 3.11 — Python 3.11.2 documentation</title>"),
    ],
)
def test_htmldate_is_not_asked_where_it_could_only_guess(markup, monkeypatch):
    calls = count_htmldate(monkeypatch)
    assert page_date(markup, URL, FETCHED) is None
    assert calls == []


def test_the_tree_reading_needs_no_htmldate(monkeypatch):
    # a page that states its date in its metadata is read without it
    calls = count_htmldate(monkeypatch)
    markup = head('<meta property="article:published_time" content="2026-11-02T08:00:00Z">')
    assert page_date(markup, URL, FETCHED) == datetime(2026, 11, 2, 8)
    assert calls == []


def test_numbers_are_no_dates_to_hand_to_htmldate(monkeypatch):
    # 2,000 to 2,039 and 12,000 to 20,399 are no years (nor is any number in a link)
    calls = count_htmldate(monkeypatch)
    links = "".join(f'<a href="/n/{i}">{i}</a>\n' for i in range(21_000))
    assert page_date(body(links), URL, FETCHED) is None
    assert calls == []
