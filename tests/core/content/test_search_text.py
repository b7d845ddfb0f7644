"""Search's tokenizer, query language and snippets (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.content.search_text import (
    Term,
    document_of,
    fts_match,
    parse_query,
    snippet,
    tokens,
    ts_query,
    ts_vector,
)
from recrawl.core.errors import QueryError


def test_tokens_fold_case_and_diacritics_and_split_unspaced_scripts() -> None:
    assert tokens("Café NAÏVE Ёлка Ελληνικά") == ["cafe", "naive", "елка", "ελληνικα"]
    assert tokens("हिन्दी भाषा") == ["हिन्दी", "भाषा"]  # Devanagari's vowel signs stay
    assert tokens("東京タワー") == ["東", "京", "タ", "ワ", "ー"]
    assert tokens("Straße e-mail") == ["strasse", "e", "mail"]


def test_the_query_language() -> None:
    query = parse_query('harbour "wall will close" harb* -ship -"old port" - ')
    assert query.terms == (
        Term(("harbour",)),
        Term(("wall", "will", "close")),
        Term(("harb",), prefix=True),
        Term(("ship",), exclude=True),
        Term(("old", "port"), exclude=True),
    )
    assert (
        fts_match(query)
        == '("harbour" AND "wall will close" AND "harb"*) NOT ("ship" OR "old port")'
    )
    assert (
        ts_query(query)
        == "'harbour' & ('wall' <-> 'will' <-> 'close') & 'harb':* & !'ship' & !('old' <-> 'port')"
    )
    assert parse_query('"unclosed quote').notes == (
        "a quote was not closed: the phrase runs to the end of the query",
    )


@given(st.text())
def test_any_query_parses_or_says_why(text: str) -> None:
    try:
        query = parse_query(text)
    except QueryError as exc:
        assert "\n" not in str(exc)
    else:
        assert query.positive
        fts_match(query), ts_query(query)


def test_a_snippet_marks_the_match_with_whitespace_collapsed() -> None:
    text = "Opening words.\n" + "filler " * 40 + "The   harbour\nwall will close. " + "more " * 40
    found = snippet(text, parse_query('"harbour wall"'))
    assert found.text.startswith("… ") and found.text.endswith(" …")
    assert [found.text[a:b] for a, b in found.marks] == ["harbour wall"]
    title_only = snippet("Nothing here.", parse_query("absent"))
    assert title_only == snippet("Nothing here.", parse_query("absent"))
    assert title_only.text == "Nothing here" and title_only.marks == ()


@given(
    st.lists(st.sampled_from(["wall", "harbour", "close", "the", "héllo", "港", "x"]), max_size=90),
    st.sampled_from(["wall", '"harbour wall"', "clo*", "港 the", '"the wall close"', "absent"]),
)
def test_a_snippet_reads_a_text_only_to_its_first_match(words: list[str], asked: str) -> None:
    """A snippet is the same whatever follows its passage (a long page's costs its first
    match's place, not its length), and the same as one of the whole text's tokens."""
    query = parse_query(asked)
    text = " ".join(words)
    found = snippet(text, query)
    longer = snippet(text + " tail" * 2000, query)
    if found.marks:  # the passage, and its marks, as they were ("tail" matches nothing)
        assert longer.marks == found.marks
        assert longer.text.startswith(found.text.removesuffix(" …"))
        assert longer.text.endswith(" …")
    for a, b in found.marks:
        assert tokens(found.text[a:b])


def test_ts_vector_keeps_positions_for_phrases() -> None:
    assert ts_vector("a b a it's") == "'a':1,3 'b':2 'it''s':4"


@pytest.mark.parametrize(
    ("body", "kind", "text"),
    [
        (
            b"<html><title>T</title><body><p>One</p><script>x()</script><p>Two</p></body></html>",
            "text/html",
            "One\nTwo",
        ),
        (b"line one\n\n  line   two", "text/plain; charset=utf-8", "line one\nline two"),
    ],
)
def test_documents_of_pages_and_text_files(body: bytes, kind: str, text: str) -> None:
    document = document_of(body, kind, "http://127.0.0.1/")
    assert document is not None and document.text == text


def test_no_document_of_images_or_binary_bytes() -> None:
    assert document_of(b"\x89PNG\r\n\x1a\n\x00\x00", "image/png", "http://127.0.0.1/a.png") is None
    assert document_of(b"\x00\x01\x02<html>", "text/html", "http://127.0.0.1/") is None


@pytest.mark.parametrize(
    "typed",
    ['"harbour wall"', "\u201charbour wall\u201d", "\u201eharbour wall\u201c", "«harbour wall»"],
)
def test_typographic_quotes_make_a_phrase_as_straight_ones_do(typed: str) -> None:
    # a phrase copied from a document or typed on a phone comes in curly quotes
    query = parse_query(f"{typed} -\u201cold port\u201d")
    assert query.terms == (Term(("harbour", "wall")), Term(("old", "port"), exclude=True))
    assert query.notes == ()


def test_a_query_cut_to_its_terms_keeps_its_words_before_its_exclusions() -> None:
    # forty exclusions and then the word looked for: the word stays, the cut is said once
    query = parse_query(" ".join(f"-w{n}" for n in range(40)) + " harbour")
    assert query.positive == (Term(("harbour",)),)
    assert len(query.terms) == 32 and len(query.excluded) == 31
    assert query.notes == ("only the first 32 terms were searched (9 left out)",)


def test_ten_thousand_words_are_cut_to_the_first_terms_said_once() -> None:
    query = parse_query(" ".join(f"word{n}" for n in range(10_000)))
    assert [term.tokens for term in query.terms] == [(f"word{n}",) for n in range(32)]
    assert query.notes == ("only the first 32 terms were searched (9,968 left out)",)
    same = parse_query(" ".join(["harbour"] * 10_000))  # one term, nothing cut
    assert same.terms == (Term(("harbour",)),) and same.notes == ()
    phrase = parse_query('"' + " ".join(["harbour"] * 10_000) + '"')
    assert phrase.terms == (Term(("harbour",) * 32),)
    assert phrase.notes == ("a phrase was cut to its first 32 words",)


@pytest.mark.parametrize(
    ("query", "refused"),
    [
        ("", "nothing to search for"),
        ("   ", "nothing to search for"),
        ("-", "nothing to search for"),
        ("- - -", "nothing to search for"),
        ('""', "nothing to search for"),
        ("*", "nothing to search for"),
        ("?!… —", "nothing to search for"),
        ("-wall", "a query of exclusions alone"),
        ('-wall -"old port"', "a query of exclusions alone"),
    ],
)
def test_a_query_with_nothing_to_look_for_is_one_line(query: str, refused: str) -> None:
    with pytest.raises(QueryError) as error:
        parse_query(query)
    assert str(error.value).startswith(refused) and "\n" not in str(error.value)


def test_the_marks_unspaced_scripts_share_with_others_stay_in_their_script() -> None:
    # ー (prolonged sound) and 々 (iteration) are of no one script: next to Latin letters
    # they must still be a character of their own, as the word without them is
    assert tokens("タワーabc") == ["タ", "ワ", "ー", "abc"]
    assert tokens("佐々木さん") == ["佐", "々", "木", "さ", "ん"]
    assert tokens("東京、タワー。") == ["東", "京", "タ", "ワ", "ー"]  # punctuation is none


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("Красная площадь в Москве", "москве"),
        ("Η Ακρόπολη της Αθήνας", "αθηνας"),
        ("القَاهِرَة مدينة كبيرة", "القاهرة"),
        ("नई दिल्ली भारत की राजधानी है", "दिल्ली"),
        ("北京是中国的首都", "首都"),
        ("東京タワーは高いです", "タワー"),
        ("Un café au lait", "cafe"),
        ("Un cafe au lait", "café"),
        ("İstanbul'da bir gün", "istanbul"),
        ("Die Straße ist lang", "strasse"),
    ],
)
def test_a_word_of_any_script_is_found_in_its_text(text: str, query: str) -> None:
    found = tokens(text)
    (term,) = parse_query(query).terms
    size = len(term.tokens)
    assert any(tuple(found[at : at + size]) == term.tokens for at in range(len(found))), (
        found,
        term,
    )
