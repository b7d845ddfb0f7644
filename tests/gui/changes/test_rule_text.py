"""What the Change rules editor reads and says: a diff's selection made a literal ignore
pattern that the core's rule really takes out of the text; a form's lines; the counts."""

from __future__ import annotations

from datetime import datetime

from recrawl.core.engine.change_preview import Preview, PreviewExample
from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.policy.change_rules import ChangeRule
from recrawl.gui.changes.rule_text import (
    host_prefix,
    ignore_patterns,
    preview_text,
    re_signing_text,
    rule_from_form,
    rule_summary,
)

AT = datetime(2027, 1, 2, 3, 4, 5)


def test_a_selection_with_pattern_characters_is_ignored_literally_and_nothing_else():
    selection = "Deal: $5.99 (50% off) [today]*"
    patterns = ignore_patterns(selection)
    rule = ChangeRule("example.org", ignore=tuple(patterns))
    rule.check()  # RE2 (or the fallback) takes the escapes
    lines = [f"Before {selection} after", "$5X99 (50% off) [today]* is not it"]
    assert rule.lines(lines) == ["Before after", "$5X99 (50% off) [today]* is not it"]


def test_the_diff_views_invisible_breaks_and_paragraphs_are_not_in_the_patterns():
    # the diff puts zero-width spaces in long runs; Qt joins paragraphs with U+2029
    selection = "Trending\u200b now:  Storm\u00a0warning\u2029Quote of the day"
    assert ignore_patterns(selection) == [
        r"Trending\s+now:\s+Storm\s+warning",
        r"Quote\s+of\s+the\s+day",
    ]
    rule = ChangeRule("example.org", ignore=tuple(ignore_patterns(selection)))
    assert rule.lines(["Trending now: Storm warning", "Quote  of the day", "kept"]) == ["kept"]
    assert ignore_patterns(" \u2029 \u200b ") == []


def test_a_form_keeps_its_non_empty_lines_stripped():
    rule = rule_from_form(
        " example.org/news/ ",
        ".ticker\n\n  aside.trending \n",
        "",
        "Updated \\d+ min\n",
        added_only=True,
        notify=False,
    )
    assert rule == ChangeRule(
        "example.org/news/", (".ticker", "aside.trending"), (), (r"Updated \d+ min",), True, False
    )
    assert rule_summary(rule) == "remove 2 selectors, ignore 1 pattern, added text only"
    assert rule_summary(ChangeRule("x")) == "as without a rule"


def test_a_pages_host_prefix_keeps_its_port():
    assert host_prefix("http://127.0.0.5:8123/a/b?c") == "127.0.0.5:8123"
    assert host_prefix("https://News.Example.org/x") == "news.example.org"


def test_a_preview_says_both_ways_and_a_stop():
    example = PreviewExample("http://example.org/a", AT, AT, "changed", "unchanged")
    preview = Preview("example.org", 3, 40, 12, 1, (example,), unreadable=2, stopped=True)
    text = preview_text(preview)
    assert text.startswith(
        "12 past fetches would have been unchanged instead of changed, 1 the reverse "
        "(40 pairs of captures of 3 pages judged again)."
    )
    assert "2 pairs could not be read" in text and "Stopped before the end" in text
    assert preview_text(Preview("example.org", 1, 0, 0, 0, ())).startswith("Nothing to judge")


def test_a_re_signing_says_how_far_then_what_it_did():
    running = ReSigningProgress("main-text+rule:ab", total=400, done=120)
    assert re_signing_text(running, "Saved") == "Re-signing the rule's pages: 120 of 400 pages"
    done = ReSigningProgress("k", total=400, done=400, recomputed=398, unreadable=2)
    assert re_signing_text(done, "Saved").startswith("Saved: 398 pages re-signed")
    stopped = ReSigningProgress("k", total=400, done=100, recomputed=100, stopped=True)
    assert "stopped with 300 left" in re_signing_text(stopped, "Saved")
    assert re_signing_text(ReSigningProgress("k", 0), "Deleted") == (
        "Deleted: no page had to be signed again."
    )
