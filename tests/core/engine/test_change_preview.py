"""The change preview (docs/design.md §17): a rule tried on the pages' archived history.

Histories are archived as a crawl archives them (tests/support/histories.py: real WARC
records, CDXJ indexes, the store's pointers), so the counts are checked against a known
history: which fetches a rule would have judged otherwise.
"""

from __future__ import annotations

import threading

import pytest
from recrawl.core.engine.change_preview import PreviewProgress, preview_rule
from recrawl.core.filters.patterns import compile_pattern
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, project_rules, save_rules
from recrawl.core.services import Services

from tests.support.histories import Version, archive_history

SITE = "http://news.example"
STORY = (
    "<p>Surveyors returned from the summit of the Grossberg last week with new "
    "measurements of the highest peak in the eastern range.</p><p>The survey team spent "
    "four days on the mountain, using satellite receivers and a laser rangefinder.</p>"
)
EDIT = "<p>Correction: the summit stands at 2,345 m, not 2,435 m as first reported.</p>"
HEADLINES = (
    "Storm closes the coastal road near the harbour",
    "Council approves the new tram depot plans",
    "Local bakery wins the national bread award",
    "Volunteers plant four hundred trees by the river",
    "Museum reopens its maritime hall after repairs",
)


def page(article: str) -> str:
    return (
        "<html><head><title>Grossberg</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<article><h1>The Grossberg is taller than thought</h1>{article}</article>"
        "<footer>Peaks Weekly</footer></body></html>"
    )


def ticker(n: int, extra: str = "") -> str:
    return page(
        f"<p class='ticker'>Trending now: {HEADLINES[n % len(HEADLINES)]}</p>{STORY}{extra}"
    )


def test_a_known_history_counts_each_fetch_the_rule_judges_otherwise(project):
    url = f"{SITE}/story"
    instants = archive_history(
        project.path, url, [ticker(0), ticker(1), ticker(2), ticker(3, EDIT), ticker(4, EDIT)]
    )
    seen: list[PreviewProgress] = []
    preview = Services(project).changes.preview(
        ChangeRule("news.example/", remove=(".ticker",)), progress=seen.append
    )
    assert (preview.pages, preview.judged, preview.to_unchanged, preview.to_changed) == (1, 4, 3, 0)
    assert preview.unreadable == 0 and not preview.stopped
    assert [(e.at, e.before) for e in preview.examples] == [
        (instants[4], instants[3]),
        (instants[2], instants[1]),
        (instants[1], instants[0]),
    ]  # the edit (instants[3]) stays a change
    assert {(e.was, e.would_be, e.url) for e in preview.examples} == {("changed", "unchanged", url)}
    assert seen[0] == PreviewProgress(1, 5) and seen[-1] == PreviewProgress(1, 5, 5)
    assert project_rules() == ChangeRules()  # nothing saved


def test_only_reads_the_selected_elements(project):
    story = f"<div class='story'>{STORY}</div>"
    comments = [
        "<p>Great article, I climbed it twice myself in the summer of the flood.</p>",
        "<p>My grandfather surveyed this range with a theodolite and a mule.</p>",
    ]
    archive_history(
        project.path,
        f"{SITE}/a",
        [
            page(story + comments[0]),
            page(story + comments[0] + comments[1]),  # a comment: not the story
            page(f"<div class='story'>{STORY}{EDIT}</div>" + comments[0] + comments[1]),
        ],
    )
    preview = preview_rule(project.path, ChangeRule(f"{SITE}/", only=(".story",)))
    assert (preview.judged, preview.to_unchanged, preview.to_changed) == (2, 1, 0)


@pytest.mark.parametrize(
    ("pattern", "engine"),
    [
        (r"Quote of the day: [^.]*\.", "re2"),
        (r"(['\"])Quote: .*?\1", "backtracking"),  # a backreference: RE2 has none
    ],
)
def test_ignore_takes_a_pattern_out_of_the_text(project, pattern, engine):
    assert (compile_pattern(pattern).engine == "re2") == (engine == "re2")
    quotes = ["Stay hungry, stay foolish", "Simplicity is the ultimate sophistication"]
    if engine == "re2":
        lines = [f"<p>Quote of the day: {q}.</p>" for q in quotes]
    else:
        lines = [f"<p>Editor's pick 'Quote: {q}' for you</p>" for q in quotes]
    archive_history(
        project.path,
        f"{SITE}/q",
        [page(lines[0] + STORY), page(lines[1] + STORY), page(lines[0] + STORY + EDIT)],
    )
    preview = preview_rule(project.path, ChangeRule("news.example/q", ignore=(pattern,)))
    assert (preview.judged, preview.to_unchanged, preview.to_changed) == (2, 1, 0)


ITEMS = [
    "<p>The hut opens on the first of June and closes at the end of September.</p>",
    "<p>Guides can be booked at the tourist office in the valley below the pass.</p>",
    "<p>The cable car runs every twenty minutes when the weather allows it.</p>",
    "<p>A new via ferrata on the south face opens to climbers next summer.</p>",
]


def test_added_only_counts_added_lines_and_not_removed_ones(project):
    archive_history(
        project.path,
        f"{SITE}/hut",
        [
            page(STORY + ITEMS[0] + ITEMS[1] + ITEMS[2]),
            page(STORY + ITEMS[0] + ITEMS[1]),  # a line removed: no news under added-only
            page(STORY + ITEMS[0] + ITEMS[1] + ITEMS[3]),  # a line added: news
        ],
    )
    added_only = ChangeRule(f"{SITE}/hut", added_only=True)
    preview = preview_rule(project.path, added_only)
    assert (preview.judged, preview.to_unchanged, preview.to_changed) == (2, 1, 0)
    # the reverse: under an added-only rule already, a rule without it says the removal
    save_rules(ChangeRules((added_only,)))
    back = preview_rule(project.path, ChangeRule(f"{SITE}/hut", ignore=("zzz",)))
    assert (back.judged, back.to_unchanged, back.to_changed) == (2, 0, 1)
    assert [(e.was, e.would_be) for e in back.examples] == [("unchanged", "changed")]


def test_a_browser_capture_is_judged_by_its_dom(project):
    # the same document every time (revisits): its script fills in the ticker
    document = page("<p class='ticker' id='t'></p><script src='/t.js'></script>" + STORY)
    archive_history(
        project.path,
        f"{SITE}/live",
        [Version(document, dom=ticker(n)) for n in range(4)],
    )
    preview = preview_rule(project.path, ChangeRule(f"{SITE}/", remove=(".ticker",)))
    assert (preview.judged, preview.to_unchanged, preview.to_changed) == (3, 3, 0)


def test_the_longest_prefix_keeps_its_pages(project):
    archive_history(project.path, f"{SITE}/news/1", [ticker(0), ticker(1)])
    archive_history(project.path, f"{SITE}/sport/1", [ticker(0), ticker(1)])
    save_rules(ChangeRules((ChangeRule(f"{SITE}/sport/", ignore=("zzz",)),)))
    preview = preview_rule(project.path, ChangeRule("news.example/", remove=(".ticker",)))
    assert preview.pages == 1 and preview.to_unchanged == 1  # sport has a rule of its own
    assert {e.url for e in preview.examples} == {f"{SITE}/news/1"}


def many_pages(project, pages: int = 8, captures: int = 5) -> None:
    for number in range(pages):
        versions = [
            ticker(n + number, EDIT if n == 2 + number % 3 else "") for n in range(captures)
        ]
        archive_history(project.path, f"{SITE}/p{number}", versions)


def test_worker_processes_judge_as_this_process_does(project):
    many_pages(project)
    rule = ChangeRule("news.example/", remove=(".ticker",))
    inline = preview_rule(project.path, rule, workers=1)
    pooled = preview_rule(project.path, rule, workers=2)
    assert inline.judged == 8 * 4 and inline.to_unchanged > 0
    assert pooled == inline


def test_a_stop_ends_it_with_what_was_counted(project):
    many_pages(project)
    stop = threading.Event()
    seen: list[PreviewProgress] = []

    def after_each(state: PreviewProgress) -> None:
        seen.append(state)
        if state.done:
            stop.set()

    preview = preview_rule(
        project.path,
        ChangeRule("news.example/", remove=(".ticker",)),
        progress=after_each,
        stop=stop,
        workers=1,
    )
    assert preview.stopped
    assert 0 < seen[-1].done < seen[-1].captures == 8 * 5
    assert 0 < preview.judged < 8 * 4
