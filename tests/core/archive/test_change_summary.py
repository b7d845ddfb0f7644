"""A changed item's summary (docs/design.md §17): its diff's first lines, bounded."""

from __future__ import annotations

from recrawl.core.archive.change_summary import LINE_CHARS, SUMMARY_LINES, summary_text
from recrawl.core.content.diff import diff_lines


def test_removed_and_added_lines_in_page_order():
    old = ["Title", "The vote is in March.", "Kept as it was.", "Dropped paragraph."]
    new = ["Title", "The vote was on 4 March.", "Kept as it was.", "A new closing line."]
    assert summary_text(diff_lines(old, new)).splitlines() == [
        "- The vote is in March.",
        "+ The vote was on 4 March.",
        "- Dropped paragraph.",
        "+ A new closing line.",
    ]
    assert summary_text(diff_lines(old, old)) == ""


def test_at_most_six_lines_of_200_characters_and_moves_left_out():
    long = "word " * 100
    summary = summary_text(diff_lines([], [f"{n} {long}" for n in range(10)]))
    lines = summary.splitlines()
    assert len(lines) == SUMMARY_LINES
    assert all(len(line) == 2 + LINE_CHARS and line.endswith("…") for line in lines)
    moved = ["a paragraph that only moves down the page", "one", "two", "three"]
    after = ["one", "two", "three", "a paragraph that only moves down the page", "new"]
    assert summary_text(diff_lines(moved, after)) == "+ new"
