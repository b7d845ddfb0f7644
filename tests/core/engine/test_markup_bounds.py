"""The parse bounds' model of the parser (core/engine/markup_bounds.py): it cuts pages that
nest too deep or make too many elements, never a page the parser keeps shallow by
closing elements, and it errs deep: checked against Lexbor itself on random markup."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recrawl.core.engine.markup_bounds import find_cut, reach
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
