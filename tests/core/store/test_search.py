"""The full-text index and search through time, on both stores: texts and captures
written as a crawl's commit writes them, searched as `recrawl search` does."""

from __future__ import annotations

from datetime import datetime

import pytest
from recrawl.core.archive.search import search
from recrawl.core.content.search_text import SearchDocument, indexed_text, parse_query
from recrawl.core.errors import QueryError
from recrawl.core.project import Project
from recrawl.core.store import captures as capture_rows
from recrawl.core.store import search as index
from recrawl.core.store.sql import is_server_store, writing

URL = "http://127.0.0.1/harbour"


def _capture(url: str, stamp: str, digest: str, status: str = "200") -> capture_rows.CaptureRow:
    return capture_rows.CaptureRow(
        url, url, stamp, "segments/x.warc.gz", int(stamp[8:]), 10, "text/html", status, digest
    )


def _version(url: str, digest: str, text: str, title: str = "Harbour") -> index.IndexedText:
    return indexed_text(url, digest, SearchDocument(title, text))


def _write(texts: list[index.IndexedText], captures: list[capture_rows.CaptureRow]) -> None:
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
        assert index.add_texts(rows) == 1
        assert index.add_texts(rows) == 0
    assert index.version_count() == 2
    assert index.indexed_versions([(URL, "sha1:A"), (URL, "sha1:Z")]) == {(URL, "sha1:A")}


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


def test_a_prefix_matches_each_version_by_its_own_words(project: Project) -> None:
    """Which versions of a page a prefix matches (read once for all the pages' versions):
    the harbour's, then the harbinger's, not the one between, nor the last."""
    texts = ["The harbour opens.", "Nothing to see.", "A harbinger of rain.", "Dry."]
    _write(
        [_version(URL, f"sha1:{n}", text, "Port") for n, text in enumerate(texts)],
        [_capture(URL, f"2027030{n + 1}000000", f"sha1:{n}") for n in range(len(texts))],
    )
    (hit,) = search("harb*").hits
    assert [(p.start.day, p.end.day, p.gone.day if p.gone else None) for p in hit.periods] == [
        (1, 1, 2),
        (3, 3, 4),
    ]


def test_a_word_on_every_page_ranks_only_the_newest_texts(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bm25 would rank every match: past RANKED_AT_MOST matching documents only the newest
    are (here 3 of 8), of the site asked for if one is; a query that matches fewer ranks
    them all, and so does one with a time range (older texts may be the ones wanted).
    (SQLite's FTS5; on PostgreSQL ts_rank still ranks every match.)"""
    if is_server_store():
        pytest.skip("the cap is FTS5's")
    from recrawl.core.archive import search as searching

    monkeypatch.setattr(searching, "RANKED_AT_MOST", 3)
    urls = [f"http://127.0.0.1/p{n}" for n in range(6)] + [
        f"http://127.0.0.2/q{n}" for n in range(2)
    ]
    _write(
        [_version(url, "sha1:A", f"The harbour, page {n}.") for n, url in enumerate(urls)]
        + [_version(urls[0], "sha1:B", "The harbour wall, page 0 again.")],
        [_capture(url, "20270301000000", "sha1:A") for url in urls]
        + [_capture(urls[0], "20270302000000", "sha1:B")],
    )
    # the three documents written last
    assert {hit.url for hit in search("harbour").hits} == {urls[0], urls[7], urls[6]}
    harbour = parse_query("harbour")
    assert len(index.ranked_docs(harbour, None, 50)) == 9  # no cap asked: every match
    on_site = {url for _, url, _ in index.ranked_docs(harbour, "127.0.0.1", 50, newest=3)}
    assert on_site == {urls[0], urls[5], urls[4]}  # the newest three of that site
    assert {hit.url for hit in search("wall").hits} == {urls[0]}
    ranged = search("harbour", since=datetime(2027, 1, 1))
    assert {hit.url for hit in ranged.hits} == set(urls)
    monkeypatch.setattr(searching, "RANKED_AT_MOST", 100)
    assert {hit.url for hit in search("harbour").hits} == set(urls)


def test_pages_dropped_by_the_time_range_leave_room_for_the_next_best(project: Project) -> None:
    """The best pages are read first, as many as asked for; those with no capture in the
    range are dropped and the next best read, until the limit is reached."""
    urls = [f"http://127.0.0.1/p{n:02}" for n in range(40)]
    # the first 25 say "harbour" three times (they rank first) but were captured in 2026
    _write(
        [
            _version(url, "sha1:A", "harbour harbour harbour." if n < 25 else "The harbour.")
            for n, url in enumerate(urls)
        ],
        [_capture(url, "20260301000000" if n < 25 else "20270301000000", "sha1:A")
         for n, url in enumerate(urls)],
    )  # fmt: skip
    found = search("harbour", since=datetime(2027, 1, 1), limit=5)
    assert len(found.hits) == 5 and {hit.url for hit in found.hits} <= set(urls[25:])
    assert len(search("harbour", limit=5).hits) == 5
    assert {hit.url for hit in search("harbour", limit=5).hits} <= set(urls[:25])
