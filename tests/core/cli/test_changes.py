"""``recrawl changes`` (docs/design.md §17): change rules on a real loopback site.

An article carries a "Trending now" ticker inside its text, re-rolled at every fetch:
the default signature cannot know it is the site's noise, a rule says so. Crawls run at
given instants (``crawl --now``) against a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recrawl.core.project import Project
from recrawl.core.store.models import Page

from recrawl.main import main

ROUNDS = [f"{year}-01-01T00:00:00Z" for year in range(2027, 2034)]
HEADLINES = (
    "Storm closes the coastal road near the harbour",
    "Council approves the new tram depot plans",
    "Local bakery wins the national bread award",
    "Volunteers plant four hundred trees by the river",
    "Museum reopens its maritime hall after repairs",
    "Cyclists ride in protest over the bridge closure",
    "Choir from the valley sings at the cathedral",
)
STORY = (
    "<p>Surveyors returned from the summit of the Grossberg last week with new "
    "measurements of the highest peak in the eastern range.</p><p>The survey team spent "
    "four days on the mountain, using satellite receivers and a laser rangefinder to "
    "measure the rock beneath the snow.</p>"
)
EDIT = "<p>Correction: the summit stands at 2,345 m, not 2,435 m as first reported.</p>"


def article(trending: int, extra: str = "") -> str:
    return (
        "<html><head><title>Grossberg</title></head><body><nav><a href='/'>Home</a></nav>"
        "<article><h1>The Grossberg is taller than thought</h1>"
        f"<div class='ticker'>Trending now: {HEADLINES[trending % len(HEADLINES)]}</div>"
        f"{STORY}{extra}</article><footer>Peaks Weekly</footer></body></html>"
    )


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def crawl_at(capsys: pytest.CaptureFixture[str], d: Path, now: str) -> None:
    code, out, _ = run(capsys, "crawl", d, "--delay", "0", "--json", "--now", now)
    assert code == 0, out


def history(capsys: pytest.CaptureFixture[str], d: Path, url: str) -> list[str]:
    code, out, _ = run(capsys, "history", d, url, "--json")
    assert code == 0
    return [row["change"] for row in json.loads(out)]


def rules(capsys: pytest.CaptureFixture[str], d: Path) -> list[dict[str, object]]:
    code, out, _ = run(capsys, "changes", d, "--json")
    assert code == 0
    found: list[dict[str, object]] = json.loads(out)
    return found


def kinds(d: Path) -> dict[str, str | None]:
    project = Project.open(d)
    try:
        return {p.url: p.signature_kind for p in Page.select()}
    finally:
        project.close()


@pytest.fixture
def site(tmp_path: Path, server, capsys) -> tuple[Path, str]:
    """A project with the article crawled once; the prefix that covers the site."""
    d = tmp_path / "p"
    assert main(["init", str(d)]) == 0
    server.html("/", '<a href="/story">story</a>')
    server.html("/story", article(0))
    assert main(["inject", str(d), server.url("/")]) == 0
    crawl_at(capsys, d, ROUNDS[0])
    return d, server.origin.split("://", 1)[1] + "/"  # no scheme: http and https alike


def test_the_ticker_is_a_change_without_a_rule_and_none_with_remove(site, server, capsys):
    d, prefix = site
    story = server.url("/story")
    for n in (1, 2):
        server.html("/story", article(n))
        crawl_at(capsys, d, ROUNDS[n])
    assert history(capsys, d, story) == ["unknown", "changed", "changed"]

    code, out, err = run(capsys, "changes", d, "--set", prefix, "--remove", ".ticker", "--json")
    assert code == 0, err
    done = json.loads(out)
    assert done["rule"]["prefix"] == prefix and done["rule"]["remove"] == [".ticker"]
    assert done["recompute"] == {
        "pages": 2,
        "recomputed": 2,
        "unreadable": 0,
        "skipped": 0,
        "stopped": False,
    }
    assert "recomputing main-text+rule:" in err
    assert set(kinds(d).values()) == {f"main-text+rule:{_digest(capsys, d)}"}
    # re-signed: the next fetch, only the ticker moved, says unchanged (not unknown)
    server.html("/story", article(3))
    crawl_at(capsys, d, ROUNDS[3])
    assert history(capsys, d, story)[-1] == "unchanged"
    # a real edit is still one, and its diff shows it without the ticker's lines
    server.html("/story", article(4, EDIT))
    crawl_at(capsys, d, ROUNDS[4])
    assert history(capsys, d, story)[-1] == "changed"
    code, out, _ = run(capsys, "diff", d, story, "--json")
    assert code == 0
    diff = json.loads(out)
    assert diff["added"] == [
        "Correction: the summit stands at 2,345 m, not 2,435 m as first reported."
    ]
    assert diff["removed"] == []
    assert "Trending" not in diff["unified"]
    # the listing says it in one line
    code, out, _ = run(capsys, "changes", d)
    assert out == f"{prefix}: remove .ticker\n"


def _digest(capsys: pytest.CaptureFixture[str], d: Path) -> str:
    from recrawl.core.policy.change_rules import ChangeRule

    return ChangeRule.from_json(rules(capsys, d)[0]).digest


def test_the_preview_counts_what_the_rule_would_have_judged_otherwise(site, server, capsys):
    d, prefix = site
    story = server.url("/story")
    for n in (1, 2, 3, 4):  # five captures: the ticker moves every time, one real edit
        server.html("/story", article(n, EDIT if n >= 3 else ""))
        crawl_at(capsys, d, ROUNDS[n])
    assert history(capsys, d, story) == ["unknown", "changed", "changed", "changed", "changed"]

    code, out, err = run(capsys, "changes", d, "--preview", prefix, "--remove", ".ticker", "--json")
    assert code == 0, err
    preview = json.loads(out)
    assert {k: preview[k] for k in ("prefix", "pages", "judged", "to_unchanged", "to_changed")} == {
        "prefix": prefix,
        "pages": 2,
        "judged": 4 + 4,  # the story's four fetches after its first, and the home page's
        "to_unchanged": 3,
        "to_changed": 0,
    }
    assert not preview["stopped"] and preview["unreadable"] == 0
    examples = preview["examples"]
    assert [e["url"] for e in examples] == [story] * 3
    assert [e["at"] for e in examples] == ["2031-01-01T00:00:00Z", "2029-01-01T00:00:00Z",
                                          "2028-01-01T00:00:00Z"]  # fmt: skip
    assert {(e["was"], e["would_be"]) for e in examples} == {("changed", "unchanged")}
    assert "previewing the rule:" in err and "(100 %)" in err
    assert rules(capsys, d) == []  # nothing saved
    # in words too
    code, out, _ = run(capsys, "changes", d, "--preview", prefix, "--remove", ".ticker")
    assert out.splitlines()[0] == (
        f"{prefix}: 2 pages, 8 past fetches judged; 3 changed would have been unchanged, "
        "0 unchanged would have been changed"
    )


@pytest.mark.parametrize(
    ("option", "value", "complaint"),
    [
        ("--remove", "div[[", "--remove 'div[[' is not a CSS selector"),
        ("--only", "::nope(", "--only '::nope(' is not a CSS selector"),
        ("--ignore", "(unclosed", "--ignore"),
    ],
)
def test_a_bad_selector_or_pattern_is_one_line_and_nothing_is_saved(
    site, capsys, option, value, complaint
):
    d, prefix = site
    assert run(capsys, "changes", d, "--set", "example.org/", "--ignore", "Updated .*")[0] == 0
    before = rules(capsys, d)
    for verb in ("--set", "--preview"):
        code, out, err = run(capsys, "changes", d, verb, prefix, option, value)
        assert code == 1 and out == ""
        assert err.count("\n") == 1 and err.startswith(f"recrawl: error: change rule {prefix}: ")
        assert complaint in err
    assert rules(capsys, d) == before  # the rules setting unchanged


def test_unset_drops_the_rule_and_re_signs_its_pages(site, server, capsys):
    d, prefix = site
    assert run(capsys, "changes", d, "--set", prefix, "--remove", ".ticker")[0] == 0
    assert all("+rule:" in str(kind) for kind in kinds(d).values())
    code, out, err = run(capsys, "changes", d, "--unset", prefix, "--json")
    assert code == 0, err
    assert json.loads(out) == {
        "unset": prefix,
        "recompute": {"pages": 2, "recomputed": 2, "unreadable": 0, "skipped": 0, "stopped": False},
    }
    assert rules(capsys, d) == [] and set(kinds(d).values()) == {"main-text"}
    server.html("/story", article(0))  # the same page again: compared like with like
    crawl_at(capsys, d, ROUNDS[1])
    assert history(capsys, d, server.url("/story"))[-1] == "unchanged"
    code, _, err = run(capsys, "changes", d, "--unset", prefix)
    assert code == 1 and f"no change rule on '{prefix}'" in err


def test_the_longest_prefix_wins(site, server, capsys):
    d, prefix = site
    story = server.url("/story")
    assert run(capsys, "changes", d, "--set", prefix, "--remove", ".ticker")[0] == 0
    # a longer prefix that keeps the ticker: its page is signed by it, not the site's rule
    code, out, err = run(
        capsys, "changes", d, "--set", prefix + "story", "--ignore", "zzz", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["recompute"]["recomputed"] == 1  # the story alone
    found = kinds(d)
    assert found[story] != found[server.url("/")] and found[story].startswith("main-text+rule:")
    server.html("/story", article(1))
    crawl_at(capsys, d, ROUNDS[1])
    assert history(capsys, d, story)[-1] == "changed"  # the ticker counts under the longer one
    code, out, _ = run(capsys, "changes", d)
    assert out.splitlines() == [f"{prefix}: remove .ticker", f"{prefix}story: ignore 'zzz'"]
    # the site's rule previewed judges the home page only: the story has its own
    code, out, _ = run(capsys, "changes", d, "--preview", prefix, "--remove", "footer", "--json")
    assert json.loads(out)["pages"] == 1


def test_rule_options_need_set_or_preview(site, capsys):
    d, _ = site
    code, _, err = run(capsys, "changes", d, "--remove", ".ticker")
    assert code == 1 and "go with --set PREFIX or --preview PREFIX" in err


def test_ctrl_c_stops_the_re_signing_between_batches_and_set_again_resumes(
    tmp_path, capsys, monkeypatch
):
    import signal

    from recrawl.core.cli.re_signing import ProgressLine
    from recrawl.core.engine.re_signing import BATCH

    from tests.support.histories import archive_round

    d = tmp_path / "p"
    pages = BATCH + 40  # more than one batch
    project = Project.init(d)
    try:
        archive_round(d, {f"http://news.example/{n}": article(n) for n in range(pages)})
    finally:
        project.close()
    shown = ProgressLine.__call__
    pressed: list[int] = []

    def ctrl_c_after_the_first_batch(line: ProgressLine, state) -> None:
        shown(line, state)
        if 0 < state.done < state.total and not pressed:  # once: a second one kills
            pressed.append(state.done)
            signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C, a real SIGINT

    monkeypatch.setattr(ProgressLine, "__call__", ctrl_c_after_the_first_batch)
    code, out, err = run(
        capsys, "changes", d, "--set", "news.example/", "--remove", ".ticker", "--json"
    )
    assert code == 128 + signal.SIGINT, err
    assert "stopping after the batch in hand; --set again resumes" in err
    assert json.loads(out)["recompute"] == {
        "pages": pages,
        "recomputed": BATCH,
        "unreadable": 0,
        "skipped": 0,
        "stopped": True,
    }
    found = list(kinds(d).values())
    ruled = next(kind for kind in found if kind and "+rule:" in kind)
    assert found.count(ruled) == BATCH and found.count(None) == pages - BATCH  # consistent
    monkeypatch.undo()
    code, out, err = run(capsys, "changes", d, "--set", "news.example/", "--remove", ".ticker")
    assert code == 0 and f"recomputed {pages - BATCH} pages' signatures as {ruled}" in err
    assert set(kinds(d).values()) == {ruled}


def test_added_only_in_a_crawl_a_removed_line_is_unchanged_an_added_one_changed(
    site, server, capsys
):
    d, prefix = site
    story = server.url("/story")
    hours = "<p>The hut opens on the first of June and closes at the end of September.</p>"
    server.html("/story", article(0, hours))
    crawl_at(capsys, d, ROUNDS[1])
    assert run(capsys, "changes", d, "--set", prefix, "--added-only")[0] == 0
    server.html("/story", article(0))  # the line removed
    crawl_at(capsys, d, ROUNDS[2])
    server.html("/story", article(0, EDIT))  # a line added
    crawl_at(capsys, d, ROUNDS[3])
    assert history(capsys, d, story) == ["unknown", "changed", "unchanged", "changed"]
