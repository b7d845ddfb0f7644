"""The parse bounds' model of the parser (core/content/markup_bounds.py): it cuts pages that
nest too deep or make too many elements, never a page the parser keeps shallow by
closing elements, and it errs deep: checked against Lexbor itself on random markup."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recrawl.core.content import markup_bounds
from recrawl.core.content.markup_bounds import (
    MAX_HEIGHT,
    elements_bound,
    find_cut,
    reach,
    skeleton,
    within,
)
from selectolax.lexbor import LexborHTMLParser

#: Lexbor's tree has html and body above what the page says, and a void element or
#: text node under the deepest element the model counts.
SLACK = 3


def lexbor_reach(text: str) -> tuple[int, int]:
    """The parser's tree: its deepest element, and how many elements it has."""
    tree = LexborHTMLParser(text)
    deepest, elements = 0, 0
    stack = [(tree.root, 1)] if tree.root is not None else []
    while stack:
        node, depth = stack.pop()
        elements += 1
        deepest = max(deepest, depth)
        child = node.child
        while child is not None:
            if child.tag and not child.tag.startswith("-"):  # -text, -comment
                stack.append((child, depth + 1))
            child = child.next
    return deepest, elements


# -- what is cut -----------------------------------------------------------------------


def test_nested_divs_are_cut_at_the_first_too_deep():
    page = "<html><body>" + "<div>" * 100_000 + "</div>" * 100_000 + "</body></html>"
    cut = find_cut(page, 512, 200_000)
    assert cut is not None
    # html and body are on the model's stack too: the 511th div is the 513th element
    assert cut.at == len("<html><body>") + 510 * len("<div>")
    assert cut.reason == "elements nested more than 512 deep"


def test_elements_past_the_count_are_cut():
    page = "<p>" + "<br>" * 1000
    cut = find_cut(page, 512, 500)
    assert cut is not None and cut.at == len("<p>") + 499 * len("<br>")
    assert cut.reason == "more than 500 elements"


def test_comments_and_end_tags_that_make_elements_count():
    assert find_cut("<!-- x -->" * 600, 512, 500) is not None
    assert find_cut("</p>" * 600, 512, 500) is not None
    assert find_cut("<?php x ?>" * 600, 512, 500) is not None


@pytest.mark.parametrize(
    "page",
    [
        "<div><p>x</p></div>" * 2000,  # closed
        "<ul>" + "<li>item" * 2000 + "</ul>",  # each <li> ends the last
        "<p>one" * 2000,  # so does each <p>
        "<table>" + "<tr><td>cell<td>cell" * 1000 + "</table>",
        "<dl>" + "<dt>t<dd>d" * 1000 + "</dl>",
        "<a href=/1>one" * 2000,  # a second <a> ends the first
        "<table>" + "<tr><td><b>bold</td>" * 1000 + "</table>",  # a cell forgets its <b>
        "<div><font face=x>x</div>" * 2000,  # three alike are remade at most
        "<script>" + "<div>" * 2000 + "</script>",  # text
        "<!--" + "<div>" * 2000 + "-->",
    ],
)
def test_pages_the_parser_keeps_shallow_are_not_cut(page):
    assert find_cut(page, 512, 200_000) is None
    assert lexbor_reach(page)[0] < 50  # and the parser agrees


@pytest.mark.parametrize(
    "page",
    [
        # formatting elements popped by </div> are made again inside the next element:
        # the parser took 11 s and then ran out of memory on 10,000 of each
        "".join(f"<div><b id={i}></div>" for i in range(3000)) + "<p>x</p>" * 3000,
        # a misnested </b> moves the <div> out of the <b>, leaving both open
        "<b><div></b>" * 3000,
        "<table><td>" * 3000,  # each cell makes its table's body and row
    ],
)
def test_pages_the_parser_nests_deep_are_cut(page):
    assert find_cut(page, 512, 200_000) is not None


def test_the_scan_is_linear():
    # a page of '<a' with no '>' must not make the scan look ahead to every tag's end
    # this thread's CPU time, not the clock's: a loaded machine (the suite's other
    # workers) stretches the wall time of a 2 s scan past any sane bound
    started = time.thread_time()
    find_cut("<b" * 500_000, 10**9, 10**9)
    find_cut("<b " * 300_000, 10**9, 10**9)
    assert time.thread_time() - started < 30  # quadratic would take hours


# -- the model errs deep ---------------------------------------------------------------


def words(text: str) -> list[str]:
    return text.split()


TAGS = words(
    "div p li ul ol dl dt dd b i a font span em h1 h2 br img pre "
    "table tr td th tbody caption select option form button nobr s code center"
)
TOKENS = st.lists(
    st.one_of(
        st.sampled_from([f"<{t}>" for t in TAGS] + [f"</{t}>" for t in TAGS]),
        st.sampled_from(["<b id=1>", "<b id=2>", "<a href=x>", "x", " ", "<!--c-->"]),
    ),
    max_size=60,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TOKENS, st.integers(1, 200))
def test_the_parser_stays_within_a_small_factor_of_the_model(parts, times):
    # repeated, so that a difference that grows with the page would show
    page = "".join(parts) * times
    model = reach(page)
    depth, elements = lexbor_reach(page)
    assert depth <= 2 * model.depth + SLACK, (model, depth)
    assert elements <= 3 * model.elements + SLACK, (model, elements)


# -- the shortcut: a page shown within the bounds by its skeleton ------------------------

#: Names the random pages are made of: every kind the shortcut treats apart (quiet and
#: formatting elements, links, elements that end others, table parts, forms, voids,
#: text elements, comments), in lower and upper case.
NESTED = words(
    "span code em b i font small a nobr div p li ul dl dt dd h1 h2 pre section table tbody "
    "tr td th caption form button select option ruby rt svg SPAN B DIV"
)
LEAVES = [
    "x",
    " ",
    "<br>",
    "<hr>",
    "<img src=x>",
    "<!--c-->",
    "<!-- <b> -->",
    "<!x>",
    "<script>if (a<b) {x = '</div>'}</script>",
    "<title><b></title>",
    "<xmp><p></xmp>",
    "<b id=1>",
    "</b>",
    "</div>",
    "</p>",
    "<p>",
    "<li>",
    "<td>",
    "<a href=x>",
    "</a>",
    '<span title="-->">',
    "<plaintext>",
    "<style>b{}</style>",
    "<b<i>",
    "<i<!--",  # (the model reads no comment there: the tag's name runs on)
    "-->",
    "<u<script>",
    "</script>",
]


def _tree(children: list[str], name: str, closed: bool) -> str:
    return f"<{name}>" + "".join(children) + (f"</{name}>" if closed else "")


#: Markup mostly nested properly (every element ended, most of the time), with noise.
NESTED_MARKUP = st.recursive(
    st.sampled_from(LEAVES),
    lambda inner: st.builds(
        _tree,
        st.lists(inner, max_size=4),
        st.sampled_from(NESTED),
        st.sampled_from([True, True, True, False]),  # ended, mostly
    ),
    max_leaves=40,
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(NESTED_MARKUP, min_size=1, max_size=4), st.integers(1, 30))
def test_the_skeleton_bounds_what_the_model_makes_of_the_page(parts, times):
    page = "".join(parts) * times
    bones = skeleton(page)
    if bones is None:
        return
    model = reach(page)
    assert model.depth <= reach(bones.text).depth + bones.height, (model, bones)
    assert model.elements <= elements_bound(page), model


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(NESTED_MARKUP, min_size=1, max_size=4),
    st.integers(1, 30),
    st.integers(1, 40),
    st.integers(1, 400),
)
def test_a_page_shown_within_is_one_the_model_does_not_cut(parts, times, depth, elements):
    page = "".join(parts) * times
    if within(page, depth, elements):
        assert markup_bounds._scan(page, depth, elements)[0] is None


def sphinx_like(sections: int) -> str:
    """A documentation page as Sphinx writes one: well nested, link and code heavy."""
    code = "".join(f'<span class="n">x{i}</span><span class="o">=</span>' for i in range(20))
    section = (
        '<section id="s"><h2>Title<a class="headerlink" href="#s">¶</a></h2>'
        '<p>See <a class="reference internal" href="#f"><code class="xref py"><span '
        'class="pre">f()</span></code></a> and <em>this</em>, <strong>that</strong>.</p>'
        '<dl class="py function"><dt class="sig" id="f"><span class="sig-name">f</span>'
        '<em class="sig-param">x</em></dt><dd><p>Does it.<br>Really.</p>'
        f'<div class="highlight"><pre><span></span>{code}</pre></div>'
        "<ul><li><p>one</p></li><li><p>two</p><ul><li>nested</li></ul></li></ul></dd></dl>"
        "<table><tr><td>a</td><td><b>b</b></td></tr></table><hr></section>"
    )
    return (
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>Doc</title>"
        "<script>var a = 1 < 2;</script><!-- build --></head><body><div class=body>"
        + section * sections
        + '<form action="search"><input name=q></form></div></body></html>'
    )


def test_an_ordinary_page_is_shown_within_without_the_model_reading_it_all():
    page = sphinx_like(300)
    bones = skeleton(page)
    assert bones is not None
    assert len(bones.text) < len(page) / 10  # the model reads a tenth of it, or less
    assert within(page, 512, 200_000)
    assert find_cut(page, 512, 200_000) is None


@pytest.mark.parametrize(
    ("page", "cut"),
    [
        # formatting elements popped by another element's end: remade, so no shortcut
        ("".join(f"<div><b id={i}></div>" for i in range(3000)) + "<p>x</p>" * 3000, True),
        ("<b><div></b>" * 3000, True),
        ("<table><td>" * 3000, True),  # its skeleton is all of it, and nests too deep
        ("<div>" * 5000 + "</div>" * 5000, True),  # nested properly, deeper than the rounds
        # within the bounds, but the model must read them to know
        ("<p><b><div>x</div></b></p>" * 3000, False),  # a block in a <b> ends the <p>
        ("<a href=1><b><a href=2>x</a></b></a>" * 3000, False),  # a link in a link
    ],
    ids=["remade", "misnested", "cells", "deep", "block-in-b", "link-in-link"],
)
def test_a_page_that_may_pass_a_bound_is_left_to_the_model(page, cut):
    assert not within(page, 512, 200_000)
    assert (find_cut(page, 512, 200_000) is not None) == cut


def test_what_the_shortcut_does_not_read_is_left_to_the_model():
    assert skeleton("<b<i>x</i></b>" * 100) is None  # a tag name runs into a "<"
    # the model ends a script at "</ſcript" (ſ matches s case-insensitively)
    assert skeleton("<script>x</\u017fcript><b>y</b>") is None
    assert skeleton("<p>ı and ſ in text</p>") is not None  # elsewhere they are text
    assert skeleton("<div>" * (MAX_HEIGHT + 1) + "</div>" * (MAX_HEIGHT + 1)) is None
    assert skeleton("<B>x</B>") is None  # a formatting element in upper case stays


def test_the_shortcut_s_kinds_are_what_the_model_says_they_are():
    m = markup_bounds
    quiet = set(m._QUIET_NAMES.split())
    # quiet: their tags start and end themselves, nothing else
    for kind in (m._ENDS_P, m._IMPLIED, m._TOP_IMPLIED, m._TABLE_ONLY, m._MARKERS):
        assert not quiet & set(kind)
    assert not quiet & (m._VOID | m._RAW_TEXT | m._TABLE_CONTEXTS | {"a", "nobr"})
    assert not set(m._QUIET_OTHER.split()) & m._FORMATTING
    # blocks end an open <p> and push themselves, nothing else
    blocks = set(f"{m._BLOCKS} {m._LISTS} {m._HEADINGS_NAMES} dl p form".split())
    assert blocks <= m._ENDS_P
    assert not blocks & (m._TABLE_ONLY | m._FORMATTING | m._VOID | m._RAW_TEXT | m._MARKERS)
    assert not (blocks - set(m._HEADINGS_NAMES.split())) & (set(m._IMPLIED) | set(m._TOP_IMPLIED))
    # items end an open item unless a list (or other special element) is in between
    for item in ("li", "dt", "dd"):
        kinds, stops = m._IMPLIED[item]
        assert stops == m._ITEM_STOPS and item in kinds
    assert set(m._LISTS.split()) | {"dl"} <= m._ITEM_STOPS
    # a cell stops every search for an element to end
    cells = {"td", "th", "caption"}
    assert cells <= m._SCOPE and cells <= m._ITEM_STOPS and cells <= m._IMPLIED["table"][1]
    assert "hr" not in m._QUIET_VOID.split() and "xmp" not in m._TEXT_ELEMENTS.split()
