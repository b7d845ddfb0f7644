"""The full-text index and search through time, on both stores: texts and captures
written as a crawl's commit writes them, searched as `recrawl search` does."""

from __future__ import annotations

from datetime import datetime

import pytest
from recrawl.core.archive.search import search
from recrawl.core.content.search_text import (
    IndexedText,
    SearchDocument,
    indexed_text,
    parse_query,
)
from recrawl.core.errors import QueryError
from recrawl.core.project import Project
from recrawl.core.store import captures as capture_rows
from recrawl.core.store import search as index
from recrawl.core.store.models import DB, SearchDoc
from recrawl.core.store.sql import writing

URL = "http://127.0.0.1/harbour"


def _capture(url: str, stamp: str, digest: str, status: str = "200") -> capture_rows.CaptureRow:
    return capture_rows.CaptureRow(
        url, url, stamp, "segments/x.warc.gz", int(stamp[8:]), 10, "text/html", status, digest
    )


def _version(url: str, digest: str, text: str, title: str = "Harbour") -> IndexedText:
    return indexed_text(url, digest, SearchDocument(title, text))


def _write(texts: list[IndexedText], captures: list[capture_rows.CaptureRow]) -> None:
    with writing():
        index.add_texts(texts)
        capture_rows.add_captures(captures)


PLAIN = "The town council met on Monday.\nThe ferry runs every hour."
SAID = PLAIN + "\nThe harbour wall will close for repairs."


def test_a_sentence_that_comes_and_goes_has_its_first_last_and_gone_captures(
    project: Project,
) -> None:
    _write(
        [
            _version(URL, "sha1:A", PLAIN),
            _version(URL, "sha1:B", SAID),
            _version(URL, "sha1:C", PLAIN + "\n"),
        ],
        [
            _capture(URL, "20270301000000", "sha1:A"),
            _capture(URL, "20270302000000", "sha1:B"),
            _capture(URL, "20270303000000", "sha1:B"),  # a revisit: the same payload
            _capture(URL, "20270304000000", "sha1:C"),
        ],
    )
    found = search('"harbour wall will close"')
    assert [hit.url for hit in found.hits] == [URL]
    hit = found.hits[0]
    assert hit.first_seen == datetime(2027, 3, 2)
    assert hit.last_seen == datetime(2027, 3, 3)
    assert hit.gone_at == datetime(2027, 3, 4)
    assert hit.captures == 2
    assert "harbour wall will close" in hit.snippet
    assert [hit.snippet[a:b] for a, b in hit.marks] == ["harbour wall will close"]
    # the words apart still match the words, not the phrase
    assert search("ferry council").hits[0].gone_at is None
    assert search('"council ferry"').hits == ()
    # it comes back: the last run is open
    _write([], [_capture(URL, "20270305000000", "sha1:B")])
    again = search("harbour wall").hits[0]
    assert again.last_seen == datetime(2027, 3, 5) and again.gone_at is None
    assert len(again.periods) == 2 and again.periods[0].gone == datetime(2027, 3, 4)
    # only the captures in a time range count
    early = search("harbour", until=datetime(2027, 3, 2, 12)).hits[0]
    assert early.last_seen == datetime(2027, 3, 2) and early.gone_at is None


def test_versions_with_one_text_share_a_document_and_indexing_twice_changes_nothing(
    project: Project,
) -> None:
    rows = [_version(URL, "sha1:A", PLAIN), _version(URL, "sha1:B", PLAIN)]
    with writing():
        assert index.add_texts(rows) == 2
        assert index.add_texts(rows) == 0
        assert index.add_texts([_version(URL, "sha1:C", SAID)]) == 1
    assert index.version_count() == 3
    assert index.indexed_versions([(URL, "sha1:A"), (URL, "sha1:Z")]) == {(URL, "sha1:A")}
    # one generation, each paragraph in it once: the title and the three sentences
    assert [(g.paragraphs, g.tokens) for g in SearchDoc.select()] == [(4, 19)]
    texts = index.version_texts([(URL, "sha1:A"), (URL, "sha1:C"), (URL, "sha1:Z")])
    assert texts == {
        (URL, "sha1:A"): SearchDocument("Harbour", PLAIN),
        (URL, "sha1:C"): SearchDocument("Harbour", SAID),
    }


def test_a_page_that_changes_without_end_starts_new_generations(project: Project) -> None:
    with writing():
        for n in range(700):
            index.add_texts([_version(URL, f"sha1:{n}", f"{PLAIN}\nVisitor number {n} today.")])
    generations = list(SearchDoc.select())
    assert len(generations) > 1
    assert max(g.tokens for g in generations) <= 3 * 20 + 2000
    _write(
        [], [_capture(URL, "20270301000000", "sha1:5"), _capture(URL, "20270302000000", "sha1:650")]
    )
    hit = search('"visitor number 650"').hits[0]
    assert hit.captures == 1 and hit.first_seen == hit.last_seen
    assert search("visitor").hits[0].captures == 2


def test_prefixes_exclusions_sites_and_scripts(project: Project) -> None:
    other = "http://127.0.0.2/port"
    _write(
        [
            _version(URL, "sha1:A", SAID),
            _version(other, "sha1:P", "The harbour master retired.", "Port"),
            _version("http://127.0.0.1/ru", "sha1:R", "Мост через реку закроют в среду.", "Мост"),
            _version("http://127.0.0.1/zh", "sha1:Z", "港口的墙将关闭维修。", "港口"),
            _version("http://127.0.0.1/fr", "sha1:F", "Le café du port ferme à midi.", "Café"),
            _version("http://127.0.0.1/hi", "sha1:H", "बंदरगाह की दीवार बंद होगी।", "दीवार"),
        ],
        [
            _capture(URL, "20270301000000", "sha1:A"),
            _capture(other, "20270301000001", "sha1:P"),
            _capture("http://127.0.0.1/ru", "20270301000002", "sha1:R"),
            _capture("http://127.0.0.1/zh", "20270301000003", "sha1:Z"),
            _capture("http://127.0.0.1/fr", "20270301000004", "sha1:F"),
            _capture("http://127.0.0.1/hi", "20270301000005", "sha1:H"),
        ],
    )
    assert {hit.url for hit in search("harb*").hits} == {URL, other}
    assert [hit.url for hit in search("harbour -wall").hits] == [other]
    assert [hit.url for hit in search("harbour", site="127.0.0.2").hits] == [other]
    assert [hit.url for hit in search("реку").hits] == ["http://127.0.0.1/ru"]
    assert [hit.url for hit in search("墙将关闭").hits] == ["http://127.0.0.1/zh"]
    assert [hit.url for hit in search("cafe").hits] == ["http://127.0.0.1/fr"]
    assert [hit.url for hit in search("CAFÉ").hits] == ["http://127.0.0.1/fr"]
    assert [hit.url for hit in search("दीवार").hits] == ["http://127.0.0.1/hi"]
    assert search("दीवार").hits[0].title == "दीवार"


def test_a_server_error_between_matches_is_no_gap(project: Project) -> None:
    _write(
        [_version(URL, "sha1:B", SAID)],
        [
            _capture(URL, "20270301000000", "sha1:B"),
            _capture(URL, "20270302000000", "sha1:E", status="503"),
            _capture(URL, "20270303000000", "sha1:B"),
            _capture(URL, "20270304000000", "sha1:N", status="404"),
        ],
    )
    hit = search("harbour").hits[0]
    assert len(hit.periods) == 1 and hit.gone_at == datetime(2027, 3, 4) and hit.captures == 2


def test_clearing_the_index_leaves_nothing_to_find(project: Project) -> None:
    _write([_version(URL, "sha1:B", SAID)], [_capture(URL, "20270301000000", "sha1:B")])
    with writing():
        index.clear_index()
    assert search("harbour").hits == ()
    assert index.version_count() == 0


@pytest.mark.parametrize(
    "bad", ["", "   ", "-", "- -", '"', "-harbour", '-"harbour wall"', "!!! ??"]
)
def test_a_query_with_nothing_to_look_for_is_one_line(project: Project, bad: str) -> None:
    with pytest.raises(QueryError) as raised:
        search(bad)
    assert "\n" not in str(raised.value)


def test_a_huge_query_is_cut_and_says_so(project: Project) -> None:
    _write([_version(URL, "sha1:B", SAID)], [_capture(URL, "20270301000000", "sha1:B")])
    found = search(" ".join(["harbour"] + [f"word{n}" for n in range(10_000)]))
    assert found.hits == ()
    assert any("first 32 terms" in note for note in found.notes)
    assert parse_query('harbour "wall').notes


def test_past_the_ranked_most_the_newest_pages_come_first(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = [f"http://127.0.0.1/{n}" for n in range(6)]
    _write(
        [_version(url, f"sha1:{n}", "harbour " * (6 - n)) for n, url in enumerate(urls)],
        [_capture(url, f"2027030{n + 1}000000", f"sha1:{n}") for n, url in enumerate(urls)],
    )
    ranked = [hit.url for hit in search("harbour").hits]
    assert ranked[0] == urls[0]  # bm25: the most mentions
    monkeypatch.setattr(index, "RANKED_MOST", 3)
    assert [hit.url for hit in search("harbour").hits] == urls[::-1]
    assert [hit.url for hit in search("harbour", limit=2).hits] == urls[:-3:-1]


def test_tidying_drops_the_words_of_rewritten_generations_and_keeps_the_rest(
    project: Project,
) -> None:
    with writing():
        for n in range(60):
            index.add_texts([_version(URL, f"sha1:{n}", f"{SAID}\nEdition {n} of the day.")])
    _write([], [_capture(URL, "20270301000000", "sha1:59")])

    def size() -> int:
        if index.is_server_store():
            return 0
        row = DB.execute_sql("SELECT SUM(length(block)) FROM search_fts_data").fetchone()
        return int(row[0] or 0)

    before = size()
    with writing():
        index.tidy_index()
        index.tidy_index(whole=True)
    assert size() < before / 3 or index.is_server_store()
    assert search('"edition 59"').hits[0].captures == 1
    assert search('"edition 3"').hits == ()  # its version has no capture
