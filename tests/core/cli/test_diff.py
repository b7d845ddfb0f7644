"""``recrawl diff`` (docs/design.md §10): a page's text between two captures, on a real crawl.

A 127.0.0.1 server changes an article between rounds run at given instants (``--now``):
a corrected number, then nothing (a revisit record), then an added and a removed
paragraph. The same diffs must come out after a compaction moved the old captures into
``history/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from recrawl.core.clock import parse_iso, to_iso

from recrawl.main import main
from tests.support.httpserver import Reply
from tests.support.sphinxlike import sentence, sphinx_page

DIFF_KEYS = {"url", "from", "to", "added", "removed", "unified"}
ROUNDS = ("2027-01-01T00:00:00Z", "2027-04-01T00:00:00Z", "2027-08-01T00:00:00Z",
          "2028-01-01T00:00:00Z")  # fmt: skip

NAV = "<nav><a href='/'>Home</a> <a href='/about'>About us</a></nav>"
WRONG = "The summit of the mountain is 2,435 m above the sea and draws climbers every summer."
RIGHT = WRONG.replace("2,435", "2,345")
HISTORY = "Its first recorded ascent was in 1865, by a party of four guides from the valley."
ROUTE = "The normal route starts at the hut and takes about six hours in good weather."
ADDED = "A new cable car opened in the autumn, which shortens the approach by two hours."


def article(*paragraphs: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<html><head><title>The mountain</title></head><body>{NAV}"
        f"<article><h1>The mountain</h1>{body}</article>"
        "<footer>© Peaks Inc, all rights reserved</footer></body></html>"
    )


VERSIONS = (
    article(WRONG, HISTORY, ROUTE),
    article(RIGHT, HISTORY, ROUTE),
    article(RIGHT, HISTORY, ROUTE),  # unchanged: archived as a revisit
    article(RIGHT, ROUTE, ADDED),
)


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def crawl_round(capsys, d: Path, now: str) -> None:
    code, out, _ = run(capsys, "crawl", d, "--delay", "0", "--json", "--now", now)
    assert code == 0, out


@pytest.fixture
def crawled(tmp_path, capsys, server):
    """A project whose article was crawled at each of ROUNDS, one version each."""
    d = tmp_path / "p"
    server.routes["/about"] = Reply(
        200, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", {"Content-Type": "image/png"}
    )
    assert run(capsys, "init", d)[0] == 0
    # md5: any edit is a change, so the default diff's rule is what is tested here
    assert run(capsys, "signature", d, "--set", "md5")[0] == 0
    assert run(capsys, "inject", d, server.url("/"))[0] == 0
    for version, now in zip(VERSIONS, ROUNDS, strict=True):
        server.html("/", version)
        crawl_round(capsys, d, now)
    url = server.url("/")
    # a round's clock runs on from --now: its capture is dated when the fetch was made
    code, out, _ = run(capsys, "history", d, url, "--json")
    fetched = [parse_iso(event["fetched_at"]).replace(microsecond=0) for event in json.loads(out)]
    assert code == 0 and len(fetched) == len(ROUNDS)
    return d, url, tuple(to_iso(instant) for instant in fetched)


def diff(capsys, d: Path, url: str, *options: str) -> dict[str, object]:
    code, out, err = run(capsys, "diff", d, url, "--json", *options)
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) == DIFF_KEYS
    return doc


def check_diffs(capsys, d: Path, url: str, captured: tuple[str, ...]) -> None:
    # the default: the latest change (round 4) against the capture before it (round 3,
    # a revisit that stands for round 2's payload)
    latest = diff(capsys, d, url)
    assert (latest["from"], latest["to"]) == (captured[2], captured[3])
    assert latest["added"] == [ADDED]
    assert latest["removed"] == [HISTORY]
    assert f"+{ADDED}" in latest["unified"] and f"-{HISTORY}" in latest["unified"]
    assert f" {ROUTE}" in latest["unified"]  # context
    assert "Home" not in latest["unified"] and "Peaks Inc" not in latest["unified"]

    corrected = diff(capsys, d, url, "--from", captured[0], "--to", "2027-05-01T00:00:00Z")
    assert (corrected["from"], corrected["to"]) == (captured[0], captured[1])
    assert corrected["removed"] == [WRONG] and corrected["added"] == [RIGHT]
    # --to alone: from the capture before it
    assert diff(capsys, d, url, "--to", captured[1])["from"] == captured[0]
    # --from alone: up to the latest capture
    whole = diff(capsys, d, url, "--from", captured[0])
    assert (whole["from"], whole["to"]) == (captured[0], captured[3])
    assert whole["added"] == [RIGHT, ADDED] and whole["removed"] == [WRONG, HISTORY]
    # the revisit and the response it stands for: the same text
    same = diff(capsys, d, url, "--from", captured[1], "--to", captured[2])
    assert same["added"] == same["removed"] == [] and same["unified"] == ""


def test_diffs_between_rounds(crawled, capsys):
    d, url, captured = crawled
    check_diffs(capsys, d, url, captured)
    code, out, err = run(capsys, "diff", d, url)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == (
        f"{url}: 1 paragraph added, 1 removed between {captured[2]} and {captured[3]}"
    )
    assert lines[1] == f"--- {url} {captured[2]}" and lines[2] == f"+++ {url} {captured[3]}"
    assert f"+{ADDED}" in lines and f"-{HISTORY}" in lines


def test_diffs_find_captures_a_compaction_moved_into_history(crawled, capsys):
    d, url, captured = crawled
    code, _, err = run(capsys, "compact", d, "--below", "1", "--json")
    assert code == 0, err
    moved = list((d / "history").glob("*.cdxj"))
    assert moved and any(url in line for line in moved[0].read_text().splitlines())
    check_diffs(capsys, d, url, captured)


def test_errors_are_one_line(crawled, capsys, tmp_path):
    d, url, _ = crawled
    cases = [
        ((url + "nowhere",), "no page"),
        ((url, "--from", "2026-06-01T00:00:00Z"), "no capture of"),
        ((url, "--from", "yesterday"), "not an ISO 8601 time"),
    ]
    for args, words in cases:
        code, out, err = run(capsys, "diff", d, *args)
        assert code != 0 and out == ""
        assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err, err
    code, _, err = run(capsys, "diff", d, url + "about")
    assert code != 0 and err.count("\n") == 1 and "not text: image/png" in err


def test_a_page_captured_once_has_nothing_to_compare(tmp_path, capsys, server):
    d = tmp_path / "p"
    server.html("/", article(WRONG))
    run(capsys, "init", d)
    run(capsys, "inject", d, server.url("/"))
    crawl_round(capsys, d, ROUNDS[0])
    code, out, err = run(capsys, "diff", d, server.url("/"))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "has only one capture (2027-01-01T00:00:0" in err


def test_the_default_diff_of_a_page_gone_and_back_leaves_its_error_page_out(
    tmp_path, capsys, server
):
    d = tmp_path / "p"
    url = server.url("/")
    assert run(capsys, "init", d)[0] == 0
    assert run(capsys, "inject", d, url)[0] == 0
    server.html("/", article(RIGHT, ROUTE))
    crawl_round(capsys, d, ROUNDS[0])
    server.routes["/"] = Reply(404, b"<html><body><p>Error code: 404. Not found.</p></body></html>")
    crawl_round(capsys, d, ROUNDS[1])
    server.html("/", article(RIGHT, ROUTE, ADDED))
    crawl_round(capsys, d, ROUNDS[2])
    latest = diff(capsys, d, url)
    # the text before it went (round 1), not the 404's error page (round 2)
    assert latest["from"][:10] == ROUNDS[0][:10] and latest["to"][:10] == ROUNDS[2][:10]
    assert latest["added"] == [ADDED] and latest["removed"] == []


def test_the_diff_of_a_sphinx_page_is_of_its_paragraphs_whole(tmp_path, capsys, server):
    """A Sphinx-like page whose paragraphs span several lines of markup, one word of one
    changed: the real command shows that paragraph whole, its context too, no "¶"."""
    d = tmp_path / "p"
    url = server.url("/")
    paragraphs = [sentence(n) for n in range(24)]
    assert run(capsys, "init", d)[0] == 0
    assert run(capsys, "inject", d, url)[0] == 0
    server.html("/", sphinx_page(paragraphs))
    crawl_round(capsys, d, ROUNDS[0])
    edited = [*paragraphs]
    edited[9] = edited[9].replace(" the ", " a ", 1)
    server.html("/", sphinx_page(edited))
    crawl_round(capsys, d, ROUNDS[1])
    done = subprocess.run(
        [Path(sys.executable).with_name("recrawl"), "diff", d, url, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)

    def shown(paragraph: str) -> str:  # the third word is inline code: "word()"
        words = paragraph.split(" ")
        return " ".join([*words[:2], words[2] + "()", *words[3:]])

    assert doc["removed"] == [shown(paragraphs[9])] and doc["added"] == [shown(edited[9])]
    unified = doc["unified"].splitlines()
    assert unified[3:] == [
        # context: whole paragraphs too, a heading without its permalink mark
        " Return the capture() of url number 1 with its date and its digest, or None when "
        "the page has none yet.",
        " Section 2",
        " " + shown(paragraphs[8]),
        "-" + shown(paragraphs[9]),
        "+" + shown(edited[9]),
        " " + shown(paragraphs[10]),
        " " + shown(paragraphs[11]),
        " capture2(url)",  # a definition's name, without its permalink mark
    ]
    assert "¶" not in doc["unified"]
