from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.config import ParseSettings
from recrawl.core.engine.parse import is_html, parse_html
from recrawl.core.errors import InvalidUrl
from recrawl.core.net.urls import canonical

BASE = "http://site.example/dir/page.html"


def links(html: str | bytes, content_type: str | None = "text/html") -> list[tuple[str, bool]]:
    body = html.encode() if isinstance(html, str) else html
    return [(link.url, link.nofollow) for link in parse_html(body, BASE, content_type).links]


def test_anchors_areas_iframes_and_meta_refresh():
    html = """<html><head><meta http-equiv="refresh" content="0; URL='/moved'"></head>
    <body><a href="a.html">a</a><area href="/map"><iframe src="frame.html"></iframe></body></html>"""
    assert links(html) == [
        ("http://site.example/moved", False),
        ("http://site.example/dir/a.html", False),
        ("http://site.example/map", False),
        ("http://site.example/dir/frame.html", False),
    ]


def test_frameset_frames():
    html = '<html><frameset><frame src="left.html"><frame src="/right"></frameset></html>'
    assert [u for u, _ in links(html)] == [
        "http://site.example/dir/left.html",
        "http://site.example/right",
    ]


def test_base_href_changes_resolution():
    html = '<head><base href="http://other.example/x/"></head><a href="y">y</a>'
    assert links(html) == [("http://other.example/x/y", False)]


def test_nofollow_marked_per_link_and_by_meta_robots():
    assert links('<a href="/n" rel="external NoFollow">n</a><a href="/f">f</a>') == [
        ("http://site.example/n", True),
        ("http://site.example/f", False),
    ]
    meta = '<meta name="robots" content="noindex, nofollow"><a href="/f">f</a>'
    assert links(meta) == [("http://site.example/f", True)]


def test_malformed_and_non_http_hrefs_are_skipped_and_counted():
    html = (
        '<a href="http://[bad">1</a><a href="javascript:void(0)">2</a><a href="mailto:a@b">3</a>'
        '<a href="">4</a><a href="#top">5</a><a href="http://exa mple.com/">6</a>'
        f'<a href="/{"x" * 5000}">7</a><a href="ok">8</a>'
    )
    result = parse_html(html.encode(), BASE, "text/html")
    assert [link.url for link in result.links] == ["http://site.example/dir/ok"]
    assert result.malformed == 3


def test_charset_from_header_and_from_meta():
    cp1252 = '<a href="/caf\xe9">café</a>'.encode("cp1252")
    assert links(cp1252, "text/html; charset=windows-1252") == [
        ("http://site.example/caf%C3%A9", False)
    ]
    sjis = '<meta charset="shift_jis"><a href="/日本">日本</a>'.encode("shift_jis")
    assert links(sjis) == [("http://site.example/%E6%97%A5%E6%9C%AC", False)]
    result = parse_html(sjis, BASE, "text/html")
    assert "日本" in result.text


def test_non_html_is_recognised():
    assert not is_html("application/pdf", b"%PDF-1.7")
    assert is_html(None, b"  <!DOCTYPE html><html>")
    assert is_html("application/xhtml+xml; charset=utf-8", b"")


@given(st.text(max_size=200))
def test_parser_never_raises_on_garbage(text):
    result = parse_html(f"<a href='{text}'>x</a>{text}".encode("utf-8", "replace"), BASE, None)
    assert result.malformed + len(result.links) <= 1


@given(st.text(max_size=80))
def test_canonical_is_idempotent_or_rejects(text):
    try:
        once = canonical(text, BASE)
    except InvalidUrl:
        return
    assert canonical(once) == once


def test_a_page_past_a_parse_bound_is_parsed_up_to_it_and_says_so():
    html = '<a href="/before">b</a>' + "<div>" * 300 + '<a href="/deep">d</a>' + "</div>" * 300
    result = parse_html(html.encode(), BASE, "text/html", ParseSettings(max_depth=100))
    assert [link.url for link in result.links] == ["http://site.example/before"]
    cut_at = len('<a href="/before">b</a>') + 100 * len("<div>")
    assert result.cut == (
        f"parsed up to character {cut_at:,} of {len(html):,} "
        "(elements nested more than 100 deep): links past it not followed"
    )
    whole = parse_html(html.encode(), BASE, "text/html")  # 300 is within the default
    assert whole.cut is None and len(whole.links) == 2


def test_a_binary_body_is_not_parsed_whatever_its_content_type():
    binary = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR<a href=/x>" + bytes(range(256)) * 8
    assert not is_html("text/html", binary)
    assert not is_html("text/html; charset=utf-8", b"<html>\x00</html>")
    utf16 = "<html><a href=/x>x</a></html>".encode("utf-16")  # NULs, and a BOM
    assert is_html("text/html", utf16)
    assert is_html("text/html; charset=UTF-16LE", utf16[2:])  # no BOM, said in the header
    assert links(utf16) == [("http://site.example/x", False)]


def test_the_title_is_the_documents_not_an_svgs_and_is_bounded():
    from recrawl.core.config import ParseSettings

    def title(html: str) -> str | None:
        return parse_html(html.encode(), "http://x.test/", "text/html").title

    assert title("<title>\n  Hello\tworld </title><p>x</p>") == "Hello world"
    assert title("<html><head><title>A &amp; B</title></head><body></body></html>") == "A & B"
    assert title("<body><svg><title>a chart</title></svg></body>") is None
    assert title("<title>   </title>") is None
    assert title(f"<title>{'t' * 100_000}</title>") == "t" * ParseSettings().max_title
