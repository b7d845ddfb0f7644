"""A payload's text (core/content/maintext.py): the main text of a page, a text file's
lines, and "not text" for the rest."""

from __future__ import annotations

import time

import pytest
from recrawl.core.content.maintext import main_text, payload_text, visible_text
from recrawl.core.errors import NotText
from recrawl.core.policy.maintext_signature import MainTextSignature
from selectolax.lexbor import LexborHTMLParser

from tests.support.realdocs import python_docs
from tests.support.sphinxlike import sentence, sphinx_page

CLIMB = "The summit is 2,345 m above the sea and draws thousands of climbers every summer."
ROUTE = "The normal route starts at the hut and takes about six hours in good weather."


def page(body: str, title: str = "Peaks") -> str:
    return (
        f"<html><head><title>{title}</title><script>var x = 1;</script></head><body>"
        "<nav><a href='/'>Home</a> <a href='/about'>About us</a></nav>"
        f"<article><h1>The mountain</h1>{body}</article>"
        "<footer>© 2027 Peaks Inc, all rights reserved</footer></body></html>"
    )


def test_the_main_text_keeps_repeated_paragraphs_lists_and_tables_and_drops_the_rest():
    more = "Read the whole story of the first ascent below, with its photographs."
    html = page(
        f"<p>{CLIMB}</p><p>{more}</p><p>{ROUTE}</p><p>{more}</p>"
        "<ul><li>Crampons for the glacier on the way</li><li>A rope of fifty metres</li></ul>"
        "<table><tr><td>Height</td><td>2,345 m</td></tr></table>"
    )
    text = main_text(html, "http://example.org/")
    assert text.source == "main text" and text.title == "Peaks"
    lines = text.paragraphs
    assert lines.count(more) == 2  # a diff must see a repeated paragraph's second copy
    assert CLIMB in lines and ROUTE in lines
    assert any("Crampons" in line for line in lines) and any("2,345 m" in line for line in lines)
    assert not any("Home" in line or "Peaks Inc" in line or "var x" in line for line in lines)


def test_a_page_of_navigation_alone_still_has_its_words():
    # trafilatura's fast mode (no fallback extractors) or else visible_text: never an
    # empty page where a reader sees words
    html = "<html><body><nav><a href=/>Home</a> <a href=/b>Blog</a></nav></body></html>"
    assert " ".join(main_text(html).paragraphs).split() == ["Home", "Blog"]
    assert main_text("<html><body><script>x()</script></body></html>").paragraphs == ()
    assert visible_text("<body><div>Name<p>Hello</p></div><ul><li>One</ul>") == (
        "Name",
        "Hello",
        "One",
    )


def test_deep_markup_is_parsed_only_within_the_parse_bounds():
    deep = "<html><body><p>" + CLIMB + "</p>" + "<div>" * 200_000 + "x" + "</div>" * 200_000
    started = time.process_time()
    assert CLIMB in main_text(deep).paragraphs
    assert visible_text(deep)[0] == CLIMB
    assert time.process_time() - started < 60  # unbounded: minutes


def test_text_files_are_their_lines_and_charsets_are_honoured():
    plain = payload_text(f"{CLIMB}\n\n  {ROUTE}  \n".encode(), "text/plain")
    assert plain.source == "text" and plain.paragraphs == (CLIMB, ROUTE)
    json_text = payload_text(b'{"height": 2345,\n "name": "Peak"}', "application/json")
    assert json_text.paragraphs == ('{"height": 2345,', '"name": "Peak"}')
    latin = payload_text("Café au sommet".encode("latin-1"), "text/plain; charset=iso-8859-1")
    assert latin.paragraphs == ("Café au sommet",)
    html = payload_text(page(f"<p>{CLIMB}</p>").encode(), "text/html; charset=utf-8")
    # too short for a main text (trafilatura dumps the whole body): the visible text's blocks
    assert html.source == "visible text" and CLIMB in html.paragraphs
    longer = payload_text(page(f"<p>{CLIMB}</p><p>{ROUTE}</p>" * 2).encode(), "text/html")
    assert longer.source == "main text"
    assert longer.paragraphs == ("The mountain", CLIMB, ROUTE, CLIMB, ROUTE)
    sniffed = payload_text(f"<!DOCTYPE html><html><body><p>{CLIMB}</p>".encode(), None)
    assert CLIMB in sniffed.paragraphs


@pytest.mark.parametrize(
    ("body", "content_type", "says"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png", "not text: image/png"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", "application/pdf", "not text: application/pdf"),
        (b"GIF89a\x01\x00\x01\x00\x00\x00", "text/html", "binary"),  # an image served as HTML
    ],
)
def test_anything_else_is_not_text(body, content_type, says):
    with pytest.raises(NotText, match=says):
        payload_text(body, content_type)


# -- the page's blocks, as a diff compares them ------------------------------------------


def test_a_diff_reads_the_pages_blocks_whole_without_permalink_marks():
    paragraphs = [sentence(n) for n in range(8)]
    text = payload_text(sphinx_page(paragraphs).encode(), "text/html; charset=utf-8")
    assert text.source == "main text" and text.title == "The archive — Docs"
    lines = text.paragraphs
    # each paragraph, wrapped over five lines of markup around its inline code, is one
    for paragraph in paragraphs:
        words = paragraph.split(" ")
        words[2] += "()"
        assert " ".join(words) in lines
    assert lines[:2] == ("The archive", "Section 0")  # no "¶" after a heading
    assert "capture0(url)" in lines  # nor after a definition
    assert not any("¶" in line for line in lines)
    assert 'import recrawl recrawl.open("project")' in lines  # a code block is one block
    assert lines[-2:] == ("Height", "2,345 m")  # a table cell each
    assert not any("Navigation" in line or "Copyright" in line for line in lines)
    # the other permalink marks: MkDocs' and Docusaurus', and a "#" anchor; a real link
    # whose text is a word stays
    marks = page(
        f'<h2 id="a">Route<a class="headerlink" href="#a" title="Permanent link">#</a></h2>'
        f'<h2 id="b">Climb<a class="hash-link" href="#b">\u200b</a></h2>'
        f'<h2 id="c">Hut<a href="#c">§</a></h2><p>{CLIMB} <a href="#c">Hut</a></p><p>{ROUTE}</p>'
    )
    assert payload_text(marks.encode(), "text/html").paragraphs[-5:] == (
        "Route",
        "Climb",
        "Hut",
        f"{CLIMB} Hut",
        ROUTE,
    )


def test_a_real_sphinx_pages_paragraphs_are_its_blocks():
    html = (python_docs() / "library" / "functions.html").read_bytes()
    text = payload_text(html, "text/html")
    assert text.source == "main text"
    assert not any("¶" in line for line in text.paragraphs)
    # every paragraph of the page's body that the main text has is one paragraph of it,
    # whole, however many lines of markup it spans
    tree = LexborHTMLParser(html.decode())
    whole = [
        " ".join(node.text(deep=True).split())
        for node in tree.css('div[role="main"] p')
        if "\n" in node.text(deep=True).strip() and len(node.text(deep=True)) > 80
    ]
    kept = [p for p in whole if any(p[:40] in line for line in text.paragraphs)]
    assert len(kept) > 100 and len(kept) > 0.9 * len(whole)
    assert all(p in text.paragraphs for p in kept)


def test_the_signature_still_reads_the_plain_text_so_no_page_looks_changed():
    """The main-text signature of a page a project fetched before is the same now: the
    diff's blocks are not the signature's text (a changed signature would make every
    page look changed on its next fetch)."""
    html = sphinx_page([sentence(n) for n in range(8)])
    signature = MainTextSignature()
    digest = signature.compute(html.encode(), "\n".join(visible_text(html)), ())
    # the digest this page had before the diff read blocks (trafilatura 2.3's plain text)
    assert digest.hex() == "4e365e2cb2eec9e4c2a41ef766b21c3e"
    real = (python_docs() / "library" / "functions.html").read_bytes()
    lines = signature.lines(real, "text")
    assert lines is not None and any(line.endswith("¶") for line in lines)
