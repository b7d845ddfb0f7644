"""Counts and shares for people (core/words.py): plurals right, shares never rounded
to complete or to empty (issue 25)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.words import percent, plural


def test_plural_counts_with_the_right_noun():
    assert plural(1, "host") == "1 host"
    assert plural(2, "host") == "2 hosts"
    assert plural(0, "round") == "0 rounds"
    assert plural(1204, "page") == "1,204 pages"
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"


@pytest.mark.parametrize(
    ("part", "whole", "text"),
    [(459, 461, "99 %"), (461, 461, "100 %"), (0, 461, "0 %"), (1, 1000, "<1 %"),
     (1, 2, "50 %"), (0, 0, "0 %"), (999_999, 1_000_000, "99 %")],
)  # fmt: skip
def test_percent_rounds_down_and_says_all_or_none_only_when_so(part, whole, text):
    assert percent(part, whole) == text


@given(st.integers(1, 10**6), st.data())
def test_percent_is_100_only_for_all_and_0_only_for_none(whole, data):
    part = data.draw(st.integers(0, whole))
    text = percent(part, whole)
    assert (text == "100 %") == (part == whole)
    assert (text == "0 %") == (part == 0)


ROOT = Path(__file__).resolve().parents[2]
#: "round(s)", "seed(s)": a plural left to the reader; "http(s)" is a scheme, not one.
HEDGED_PLURAL = re.compile(r"[A-Za-z]\(s\)")


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_no_string_in_the_app_or_the_command_line_hedges_a_plural_with_s_in_brackets():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for folder in ("gui", "core/cli")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, text in _strings(path)
        if HEDGED_PLURAL.search(text.replace("http(s)", "http"))
    ]
    assert not found, "say it with plural() (core/words.py):\n" + "\n".join(found)
