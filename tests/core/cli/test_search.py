"""``recrawl search`` (docs/design.md §19) on real crawls, on SQLite and on PostgreSQL.

A 127.0.0.1 server changes a page between crawls run at given instants (``--now``): a
sentence appears in crawl 2, stays in crawl 3 (unchanged bytes: a revisit record), is
gone in crawl 4 and back in crawl 5. Search must give the captures it was first and
last seen in, and the one it was gone from, exactly. Other pages test phrases against
words, prefixes, exclusions, every script, sites and time ranges.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from recrawl.core.cli.search import SEARCH_KEYS
from recrawl.core.clock import parse_iso, to_iso

from recrawl.main import main
from tests.support import httpserver
from tests.support.stores import store_kind  # noqa: F401  # every crawl test on both stores

ROUNDS = ("2027-01-01T12:00:00Z", "2027-03-01T12:00:00Z", "2027-05-01T12:00:00Z",
          "2027-07-01T12:00:00Z", "2027-09-01T12:00:00Z")  # fmt: skip
SENTENCE = "The harbour wall will close for repairs next spring."
OPENING = "The town council met on Tuesday to discuss the budget for the coming year."
CLOSING = "Residents may send their comments to the town hall until the end of the month."


def article(*paragraphs: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        "<html><head><title>Council news</title></head><body>"
        f"<nav><a href='/'>Home</a></nav><article><h1>Council news</h1>{body}</article>"
        "</body></html>"
    )


WITHOUT = article(OPENING, CLOSING)
WITH = article(OPENING, SENTENCE, CLOSING)
#: The page in each crawl: the sentence added in crawl 2, kept in 3 (the same bytes),
#: gone in 4, back in 5.
VERSIONS = (WITHOUT, WITH, WITH, WITHOUT, WITH)


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def crawl_at(capsys, d: Path, now: str) -> None:
    code, _, err = run(capsys, "crawl", d, "--delay", "0", "--json", "--now", now)
    assert code == 0, err


def search(capsys, d: Path, *query: str) -> list[dict[str, object]]:
    code, out, err = run(capsys, "search", d, *query, "--json")
    assert code == 0, err
    hits = json.loads(out)
    assert all(list(hit) == list(SEARCH_KEYS) for hit in hits)
    return hits


def captured(capsys, d: Path, url: str) -> list[str]:
    """Each capture's time as search gives it: the fetch's, to the second (a round's
    clock runs on from --now)."""
    code, out, _ = run(capsys, "history", d, url, "--json")
    assert code == 0
    return [to_iso(parse_iso(e["fetched_at"]).replace(microsecond=0)) for e in json.loads(out)]


@pytest.fixture
def project(tmp_path, capsys, db_args) -> Path:
    d = tmp_path / "p"
    assert run(capsys, "init", d, *db_args)[0] == 0
    return d


def test_a_sentence_is_first_seen_last_seen_and_gone_at_the_captures_it_was(
    project, capsys, server
):
    d = project
    url = server.url("/")
    assert run(capsys, "inject", d, url)[0] == 0
    for version, now in zip(VERSIONS[:4], ROUNDS, strict=False):
        server.html("/", version)
        crawl_at(capsys, d, now)
    at = captured(capsys, d, url)
    assert len(at) == 4

    (hit,) = search(capsys, d, '"the harbour wall will close"')
    assert hit["url"] == url and hit["title"] == "Council news"
    assert hit["snippet"] == SENTENCE.rstrip(".")
    assert (hit["first_seen"], hit["last_seen"], hit["gone_at"]) == (at[1], at[2], at[3])
    assert hit["captures"] == 2
    # words of the opening paragraph: every capture has them, the latest too
    (every,) = search(capsys, d, "council budget")
    assert (every["first_seen"], every["last_seen"], every["gone_at"]) == (at[0], at[3], None)
    assert every["captures"] == 4

    code, out, err = run(capsys, "search", d, "harbour wall")
    assert code == 0 and err == ""
    # not a terminal: no bold, plain text
    assert out.splitlines() == [
        "Council news",
        url,
        f"  {SENTENCE.rstrip('.')}",
        f"  first seen {at[1][:10]} {at[1][11:16]} UTC · last seen {at[2][:10]} "
        f"{at[2][11:16]} UTC · gone {at[3][:10]} {at[3][11:16]} UTC · 2 captures",
    ]

    server.html("/", VERSIONS[4])
    crawl_at(capsys, d, ROUNDS[4])
    at = captured(capsys, d, url)
    (back,) = search(capsys, d, '"harbour wall will close"')
    assert (back["first_seen"], back["last_seen"], back["gone_at"]) == (at[1], at[4], None)
    assert back["captures"] == 3
    code, out, _ = run(capsys, "search", d, "harbour wall")
    assert out.splitlines()[-1].endswith("· still there · 3 captures in 2 periods")

    # --since, --until: only the captures in that range count
    (late,) = search(capsys, d, "harbour wall", "--since", at[3])
    assert (late["first_seen"], late["last_seen"], late["gone_at"]) == (at[4], at[4], None)
    assert late["captures"] == 1
    (early,) = search(capsys, d, "harbour wall", "--until", at[2])
    assert (early["first_seen"], early["last_seen"], early["gone_at"]) == (at[1], at[2], None)
    # a date alone is its midnight: crawl 4 (July 1st, 12:00) is after July 1st's midnight
    (dated,) = search(capsys, d, "harbour wall", "--since", "2027-02-01", "--until", "2027-07-01")
    assert (dated["first_seen"], dated["last_seen"], dated["gone_at"]) == (at[1], at[2], None)
    # no capture that matches in the range: no result
    assert search(capsys, d, "harbour wall", "--until", at[0]) == []
    assert search(capsys, d, "harbour wall", "--since", at[3], "--until", at[3]) == []


#: Pages of one site, each a paragraph or two; the home page links to them.
PAGES = {
    "/apart": ("Apart", "The harbour is quiet at dawn, and only later does the old wall warm."),
    "/phrase": ("Phrase", SENTENCE),
    "/master": ("Master", "The harbour master retired after forty years."),
    "/side": ("Side", "Harbourside cafés open early in summer."),
    "/ru": ("Москва", "Красная площадь находится в центре Москвы."),
    "/el": ("Αθήνα", "Η Ακρόπολη δεσπόζει πάνω από την Αθήνα."),
    "/ar": ("القاهرة", "القَاهِرَة هي عاصمة مصر وأكبر مدنها."),
    "/hi": ("दिल्ली", "नई दिल्ली भारत की राजधानी है।"),
    "/zh": ("北京", "北京是中华人民共和国的首都。"),
    "/ja": ("東京", "東京タワーは港区にある電波塔です。"),
    "/cafe": ("Cafe", "A cafe without accents, for the other way round."),
}


def page_html(title: str, text: str) -> str:
    return f"<html><head><title>{title}</title></head><body><p>{text}</p></body></html>"


@pytest.fixture
def site(project, capsys, server):
    """The pages above crawled once, and a second host (127.0.0.2) with a harbour page."""
    links = "".join(f'<a href="{path}">{n}</a> ' for n, path in enumerate(PAGES))
    server.html("/", f"<html><body>{links}</body></html>")
    for path, (title, text) in PAGES.items():
        server.html(path, page_html(title, text))
    other = httpserver.TestServer(address="127.0.0.2").start()
    try:
        other.html("/", page_html("Elsewhere", "Another harbour, another wall."))
        assert run(capsys, "inject", project, server.url("/"), other.url("/"))[0] == 0
        crawl_at(capsys, project, ROUNDS[0])
        yield project, server, other
    finally:
        other.stop()


def found(capsys, d: Path, *query: str) -> set[str]:
    return {str(hit["title"]) for hit in search(capsys, d, *query)}


def test_phrases_words_prefixes_and_exclusions(site, capsys):
    d, _, other = site
    assert found(capsys, d, "harbour wall") == {"Apart", "Phrase", "Elsewhere"}
    assert found(capsys, d, '"harbour wall"') == {"Phrase"}
    assert found(capsys, d, "harb*") == {"Apart", "Phrase", "Master", "Side", "Elsewhere"}
    assert found(capsys, d, "harbour", "-wall") == {"Master"}
    assert found(capsys, d, "harbour -wall -master") == set()
    assert found(capsys, d, '-"harbour wall" harbour') == {"Apart", "Master", "Elsewhere"}
    # the snippet marks what matched (here without the terminal's bold: in the spans)
    (hit,) = search(capsys, d, '"harbour wall"')
    assert hit["snippet"] == SENTENCE.rstrip(".")
    # --site: the host's pages only, however the host is written
    assert found(capsys, d, "harbour wall", "--site", "127.0.0.2") == {"Elsewhere"}
    assert found(capsys, d, "harbour wall", "--site", other.url("/")) == {"Elsewhere"}
    assert found(capsys, d, "harbour wall", "--site", "127.0.0.1") == {"Apart", "Phrase"}
    assert found(capsys, d, "harbour", "--site", "nowhere.example") == set()
    # --limit: the best N
    assert len(search(capsys, d, "harb*", "--limit", "2")) == 2


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("москвы", "Москва"),  # Cyrillic, any case
        ("МОСКВЫ", "Москва"),
        ("αθηνα", "Αθήνα"),  # Greek without its accent
        ("القاهرة", "القاهرة"),  # Arabic without its vowel marks
        ("राजधानी", "दिल्ली"),  # Devanagari
        ("首都", "北京"),  # Chinese: a word inside a sentence with no spaces
        ("タワー", "東京"),  # Japanese
    ],
)
def test_a_page_in_each_script_is_found_by_a_word_of_it(site, capsys, query, title):
    assert title in found(capsys, site[0], query)


def test_accents_are_left_out_both_ways(site, capsys):
    d = site[0]
    assert found(capsys, d, "cafés") == {"Side"}
    assert found(capsys, d, "cafes") == {"Side"}
    assert found(capsys, d, "café") == {"Cafe"}  # the page wrote "cafe"
    assert found(capsys, d, "CAFE*") == {"Side", "Cafe"}


# -- bad input: one clear line, or results; never a traceback (SQLite alone) --------------


@pytest.fixture
def small(tmp_path, capsys, server) -> Path:
    d = tmp_path / "small"
    server.html("/", page_html("Port \x1b[31mnews\x1b[0m", SENTENCE))
    for args in (("init", d), ("inject", d, server.url("/"))):
        assert run(capsys, *args)[0] == 0
    crawl_at(capsys, d, ROUNDS[0])
    return d


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ((), 'recrawl: error: nothing to search for: give a word or a "phrase"'),
        (("",), 'recrawl: error: nothing to search for: give a word or a "phrase"'),
        (("-",), 'recrawl: error: nothing to search for: give a word or a "phrase"'),
        (("?!",), 'recrawl: error: nothing to search for: give a word or a "phrase"'),
        (("-wall",), "recrawl: error: a query of exclusions alone matches nearly everything"),
        (("-wall", "-harbour"), "recrawl: error: a query of exclusions alone matches nearly"),
    ],
)
def test_a_query_with_nothing_to_find_is_one_line(small, capsys, query, said):
    code, out, err = run(capsys, "search", small, *query)
    assert code == 1 and out == ""
    assert err.startswith(said) and err.count("\n") == 1


def test_an_unclosed_quote_searches_the_phrase_and_says_so(small, capsys):
    code, out, err = run(capsys, "search", small, '"harbour wall', "--json")
    assert code == 0 and len(json.loads(out)) == 1
    assert err == "recrawl: a quote was not closed: the phrase runs to the end of the query\n"
    # a lone dash beside words is a dash: searched without it, nothing said
    code, out, err = run(capsys, "search", small, "harbour", "-", "wall", "--json")
    assert code == 0 and len(json.loads(out)) == 1 and err == ""


def test_ten_thousand_words_are_cut_and_said_once(small, capsys):
    words = ["harbour", "wall", *(f"w{n}" for n in range(9_998))]
    code, out, err = run(capsys, "search", small, *words, "--json")
    # the first 32 terms are searched: the page has not w0…w29, so nothing matches
    assert code == 0 and json.loads(out) == []
    assert err == "recrawl: only the first 32 terms were searched (9,968 left out)\n"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--since", "yesterday"), "recrawl: error: --since: not an ISO 8601 time: 'yesterday'"),
        (("--until", "2027-13-01"), "recrawl: error: --until: not an ISO 8601 time"),
        (
            ("--since", "2027-02-01", "--until", "2027-01-01"),
            "recrawl: error: --until 2027-01-01T00:00:00Z is before --since 2027-02-01T00:00:00Z",
        ),
    ],
)
def test_a_bad_time_is_one_line(small, capsys, options, said):
    code, out, err = run(capsys, "search", small, "harbour", *options)
    assert code == 1 and out == "" and err.startswith(said) and err.count("\n") == 1


@pytest.mark.parametrize("limit", ["0", "-1", "many"])
def test_a_bad_limit_is_argparse_one_line(small, capsys, limit):
    with pytest.raises(SystemExit) as exit_:
        main(["search", str(small), "harbour", "--limit", limit])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "--limit" in err


def test_no_project_is_one_line(tmp_path, capsys):
    code, out, err = run(capsys, "search", tmp_path / "nowhere", "harbour")
    assert code == 1 and out == ""
    assert (
        err
        == f"recrawl: error: no project at {tmp_path / 'nowhere'} (run `recrawl init {tmp_path / 'nowhere'}` first)\n"
    )


def test_nothing_found_says_so_and_a_page_cannot_drive_the_terminal(small, capsys):
    code, out, err = run(capsys, "search", small, "lighthouse")
    assert (code, out, err) == (0, "no page matches\n", "")
    code, out, _ = run(capsys, "search", small, "harbour")
    # the title's escape sequences are shown as U+FFFD, not sent to the terminal
    assert out.splitlines()[0] == "Port \ufffd[31mnews\ufffd[0m" and "\x1b" not in out


def test_on_a_terminal_the_matches_are_bold():
    from datetime import datetime

    from recrawl.core.archive.search import Period, SearchHit
    from recrawl.core.cli.search import BOLD, NORMAL, write_blocks

    seen = datetime(2027, 3, 1, 12, 0, 5)
    hit = SearchHit(
        url="https://example.org/",
        title="Port news",
        snippet="… the harbour wall will close",
        marks=((6, 13), (14, 18)),
        first_seen=seen,
        last_seen=seen,
        gone_at=None,
        captures=1,
        periods=(Period(seen, seen, None),),
        rank=1.0,
    )
    out = io.StringIO()
    write_blocks(out, [hit], bold=True)
    assert out.getvalue().splitlines()[2] == (
        f"  … the {BOLD}harbour{NORMAL} {BOLD}wall{NORMAL} will close"
    )
    plain = io.StringIO()
    write_blocks(plain, [hit], bold=False)
    assert plain.getvalue().splitlines()[2:] == [
        "  … the harbour wall will close",
        "  first seen 2027-03-01 12:00 UTC · last seen 2027-03-01 12:00 UTC · still there "
        "· 1 capture",
    ]
