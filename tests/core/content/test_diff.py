"""Text diffs (core/content/diff.py): what a reader of two versions of a page would say."""

from __future__ import annotations

import time
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.content import diff as diff_module
from recrawl.core.content.diff import diff_lines, diff_texts

INTRO = "Welcome to the page about the mountain, its history and the routes to its top."
LONG = (
    "The summit of the mountain is 2,435 m above the sea, which makes it the highest "
    "point of the range; it draws thousands of climbers every summer, most of them on "
    "the normal route from the hut, and a few on the north face."
)
ROUTE = "The normal route starts at the hut and takes about six hours in good weather."
HUT = "The hut is open from June to September and has forty beds."


def marked(text: str, spans: tuple[tuple[int, int], ...]) -> list[str]:
    return [text[start:end] for start, end in spans]


def test_an_added_sentence_is_a_changed_paragraph_with_the_sentence_marked():
    grown = ROUTE + " Guides can be hired at the hut."
    diff = diff_lines([INTRO, ROUTE, HUT], [INTRO, grown, HUT])
    assert [row.kind for row in diff.rows] == ["equal", "changed", "equal"]
    row = diff.rows[1]
    assert marked(row.new, row.new_marks) == ["Guides can be hired at the hut."]
    assert row.old_marks == ()
    assert diff.added == [grown] and diff.removed == [ROUTE]
    assert str(diff.counts) == "1 paragraph changed"


def test_a_corrected_number_is_marked_as_one_word_inside_a_long_paragraph():
    fixed = LONG.replace("2,435", "2,345")
    diff = diff_lines([INTRO, LONG], [INTRO, fixed])
    (row,) = [r for r in diff.rows if r.kind == "changed"]
    assert marked(row.old, row.old_marks) == ["2,435"]
    assert marked(row.new, row.new_marks) == ["2,345"]
    assert diff.unified("a", "b").splitlines() == [
        "--- a",
        "+++ b",
        "@@ -1,2 +1,2 @@",
        f" {INTRO}",
        f"-{LONG}",
        f"+{fixed}",
    ]


def test_a_removed_paragraph_leaves_a_blank_on_the_new_side():
    diff = diff_lines([INTRO, LONG, ROUTE, HUT], [INTRO, ROUTE, HUT])
    assert [(row.kind, row.new) for row in diff.rows if row.kind != "equal"] == [("removed", None)]
    assert diff.removed == [LONG] and diff.added == []
    assert str(diff.counts) == "1 paragraph removed"


def test_reordered_paragraphs_are_moved_not_new():
    diff = diff_lines([INTRO, LONG, ROUTE, HUT], [HUT, INTRO, LONG, ROUTE])
    moved = [row for row in diff.rows if row.moved]
    assert sorted(row.kind for row in moved) == ["added", "removed"]
    assert {row.old or row.new for row in moved} == {HUT}
    assert not any(row.kind == "changed" for row in diff.rows)
    assert str(diff.counts) == "1 paragraph moved"
    # the lists keep to the unified diff: the paragraph left one place and came to another
    assert diff.added == [HUT] and diff.removed == [HUT]


def test_unlike_paragraphs_are_not_paired():
    diff = diff_texts(f"{INTRO}\n{HUT}", f"{INTRO}\nSomething else entirely, unrelated.")
    assert [row.kind for row in diff.rows] == ["equal", "removed", "added"]
    assert str(diff.counts) == "1 paragraph added, 1 removed"


def test_equal_texts_have_no_diff():
    diff = diff_texts(f"{INTRO}\n\n{HUT}\n", f"{INTRO}\n{HUT}")
    assert diff.unified("a", "b") == "" and diff.added == diff.removed == []
    assert str(diff.counts) == "no change in the text"


lines = st.lists(st.sampled_from(["a b", "c d", "a b c", "e", "f g h", "1,234 x", "1,243 x"]))


def patched(old: list[str], unified: str) -> list[str]:
    """``old`` with a unified diff applied, checking each hunk against ``old``."""
    out: list[str] = []
    at = 0
    lines = unified.splitlines()[2:]
    for line in lines:
        if line.startswith("@@"):
            ranges = line.split(" ")[1]  # -start,length
            start = int(ranges[1:].split(",")[0])
            length = int(ranges.split(",")[1]) if "," in ranges else 1
            start = start - 1 if length else start
            out.extend(old[at:start])
            at = start
        elif line[0] in " -":
            assert old[at] == line[1:]
            at += 1
            if line[0] == " ":
                out.append(line[1:])
        else:
            out.append(line[1:])
    return out + old[at:]


@given(lines, lines)
def test_the_unified_diff_turns_old_into_new(old, new):
    diff = diff_lines(old, new)
    unified = diff.unified("a", "b")
    if old == new:
        assert unified == ""
    else:
        assert unified.startswith("--- a\n+++ b\n@@ ")
        assert patched(old, unified) == new
    # every line of both sides is in the rows, in order
    assert [r.old for r in diff.rows if r.old is not None] == old
    assert [r.new for r in diff.rows if r.new is not None] == new
    assert diff.added == [r.new for r in diff.rows if r.kind in ("added", "changed")]


def test_huge_texts_are_cut_at_the_bounds(monkeypatch):
    monkeypatch.setattr(diff_module, "VIEW", replace(diff_module.VIEW, diff_max_lines=1000))
    old = [f"line {i} of the old text" for i in range(5000)]
    diff = diff_lines(old, old[:10])
    assert diff.cut and len(diff.old) == 1000 and len(diff.removed) == 990


def test_repetitive_texts_stay_cheap():
    # difflib's worst case: a few lines repeated thousands of times on both sides
    old = ["x", "y"] * 10_000
    new = ["y", "x", "z"] * 6_000
    started = time.process_time()
    diff = diff_lines(old, new)
    assert len(diff.old) == 20_000 and len(diff.new) == 18_000
    assert time.process_time() - started < 60  # generous: quadratic would take hours
    long_run = "a " * 9_000
    row = diff_lines([long_run], [long_run.replace("a", "b", 10)]).rows[0]
    assert row.kind == "changed" and row.new_marks[0][0] == 0
