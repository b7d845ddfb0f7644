"""What full-text search reads of a page, and what a query asks (docs/design.md §19).

One tokenizer decides what a word is, here, for both stores: SQLite's FTS5 and
PostgreSQL's tsvector are handed tokens already folded, so a query means the same on
either and a snippet marks what the index matched. A token is a run of letters, digits
and marks, case-folded, with the diacritics of Latin, Greek, Cyrillic, Hebrew and Arabic
letters removed ("Café" → "cafe"); the marks of scripts that write vowels with them
(Devanagari, Bengali, Thai…) are part of their letters and stay. Scripts written without
spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) are one token a
character, so a word of them is found as a phrase of its characters anywhere in a
sentence.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from recrawl.core.content.maintext import HTML_TYPES, SNIFF_BYTES, bounded, tree_text, tree_title
from recrawl.core.errors import QueryError
from selectolax.lexbor import LexborHTMLParser

# by script extension: the letters these scripts share with others count too (the
# prolonged sound mark ー of "タワー", the iteration mark 々), or "タワーabc" would be
# the tokens タ, ワ, ーabc
_UNSPACED = (
    r"\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}"
    r"\p{scx=Myanmar}"
)


@functools.cache
def _token() -> Any:
    """A letter or digit of an unspaced script (with its marks), or a run of letters,
    digits and marks of the others. Compiled on first use: most pages a crawl indexes are
    ASCII, and each analysis process would otherwise pay for it (and for loading
    ``regex``) as it starts."""
    import regex

    return regex.compile(
        rf"[[\p{{L}}\p{{N}}]&&[{_UNSPACED}]]\p{{M}}*|[[\p{{L}}\p{{N}}\p{{M}}]--[{_UNSPACED}]]+",
        regex.V1,
    )


_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
#: Longer tokens are cut: nobody searches for a 500-letter "word" (a base64 blob).
MAX_TOKEN = 64
#: Text indexed of one version (characters); a page longer than this is rare and the rest
#: of it is seldom what anyone searches for.
MAX_TEXT = 1 << 20
#: Terms of a query searched; the rest are dropped, and the query says so.
MAX_TERMS = 32
#: Tokens of one phrase searched.
MAX_PHRASE = 32
#: Letters whose marks are diacritics a searcher leaves out: Latin, Greek, Cyrillic,
#: Armenian, Hebrew, Arabic (below U+0800), and the extended Latin and Greek blocks.
_DIACRITIC_BASES = ((0x0000, 0x0800), (0x1E00, 0x2000))


def _strips_marks(code: int) -> bool:
    return any(low <= code < high for low, high in _DIACRITIC_BASES)


def fold(token: str) -> str:
    """A token as the index holds it."""
    if token.isascii():
        return token.lower()[:MAX_TOKEN]
    decomposed = unicodedata.normalize("NFKD", token)
    kept: list[str] = []
    base = 0
    for char in decomposed:
        if unicodedata.combining(char):
            if _strips_marks(base):
                continue
        else:
            base = ord(char)
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept)).casefold()[:MAX_TOKEN]


#: ASCII's characters other than letters and digits, to spaces: an ASCII text's tokens
#: are then its words (three times quicker than a regular expression's, on every page a
#: crawl indexes).
_ASCII_SPACES = str.maketrans(
    {chr(c): " " for c in range(128) if not (chr(c).isascii() and chr(c).isalnum())}
)


def tokens(text: str) -> list[str]:
    """The folded tokens of ``text``, in order."""
    if text.isascii():
        found = text.lower().translate(_ASCII_SPACES).split()
        if found and max(map(len, found)) > MAX_TOKEN:
            return [token[:MAX_TOKEN] for token in found]
        return found
    out: list[str] = []
    for raw in _token().findall(text):
        folded = fold(raw)
        if folded.isascii() or not _token().fullmatch(folded):
            # NFKD may make several tokens of one ("½" → "1⁄2"): the index's words
            out.extend(
                _ASCII_TOKEN.findall(folded) if folded.isascii() else _token().findall(folded)
            )
        else:
            out.append(folded)
    return out


def spans(text: str) -> list[tuple[int, int, str]]:
    """Each token of ``text``: its start, end, and folded form."""
    return [(m.start(), m.end(), fold(m.group())) for m in _token().finditer(text)]


# The documents


@dataclass(frozen=True)
class SearchDocument:
    """A version's text as search reads it: its title, and its text, a paragraph a line."""

    title: str | None
    text: str


_TEXT_TYPES = ("text/plain", "text/markdown")
#: The media types whose payloads search indexes (:func:`document_of`): what the capture
#: table's ``mime`` says of a capture whose version has a text.
INDEXED_TYPES = (*HTML_TYPES, *_TEXT_TYPES)


def document_of(body: bytes | str, content_type: str | None, url: str) -> SearchDocument | None:
    """What search indexes of a payload: an HTML page's visible text (a paragraph a line)
    and title, a plain text file's lines; None for any other type (images, scripts, CSS)."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind not in HTML_TYPES and kind not in _TEXT_TYPES:
        return None
    if isinstance(body, bytes):
        if b"\x00" in body[:SNIFF_BYTES] and not body.startswith((b"\xfe\xff", b"\xff\xfe")):
            return None  # binary, whatever its Content-Type says
        from w3lib.encoding import html_to_unicode  # loaded with the payload, as maintext's

        _, body = html_to_unicode(content_type, body)
    if kind in HTML_TYPES:
        return html_document(body)
    lines = (" ".join(line.split()) for line in body.splitlines())
    return SearchDocument(None, "\n".join(line for line in lines if line)[:MAX_TEXT])


def html_document(html: str) -> SearchDocument:
    """An HTML page's (or a browser capture's DOM's) document."""
    return tree_document(LexborHTMLParser(bounded(html)))


def tree_document(tree: LexborHTMLParser) -> SearchDocument:
    """The document of a page parsed already, up to the parse bounds: the crawl's parse
    tree, so a fetch's text costs no second parse (and is the one a rebuild reads)."""
    return SearchDocument(tree_title(tree), "\n".join(tree_text(tree))[:MAX_TEXT])


@dataclass(frozen=True)
class IndexedText:
    """One version of a page, ready for the index (made off the store's thread): its
    paragraphs, and each one's folded tokens, space-separated (what the index holds)."""

    url: str
    #: The payload digest its captures carry in the capture table (``sha1:…``).
    digest: str
    title: str | None
    title_words: str
    #: Its sentences (the index's units; a phrase is found within one).
    paragraphs: tuple[str, ...]
    words: tuple[str, ...]
    #: Which of ``paragraphs`` begin a paragraph of the text.
    starts: tuple[int, ...] = ()

    @property
    def chars(self) -> int:
        return sum(map(len, self.paragraphs)) + len(self.title or "")


#: Where a paragraph's sentences end: the index keeps a page's distinct sentences once.
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=\S)|(?<=[。！？；])")


def indexed_text(url: str, digest: str, document: SearchDocument) -> IndexedText:
    """A version as the index keeps it: its sentences (an edit changes one, and the
    others are shared with the versions before), which of them begin a paragraph, and
    each one's folded words."""
    title = " ".join((document.title or "").split()) or None
    paragraphs: list[str] = []
    words: list[str] = []
    starts: list[int] = []
    for line in document.text[:MAX_TEXT].split("\n"):
        first = True
        for sentence in _SENTENCE_END.split(" ".join(line.split())):
            found = tokens(sentence)
            if not found:
                continue
            if first:
                starts.append(len(paragraphs))
                first = False
            paragraphs.append(sentence)
            words.append(" ".join(found))
    title_words = " ".join(tokens(title)) if title else ""
    return IndexedText(
        url, digest, title, title_words, tuple(paragraphs), tuple(words), tuple(starts)
    )


# Queries


@dataclass(frozen=True)
class Term:
    """A word, a phrase (several tokens in a row), either of them a prefix (``harb*``:
    its last token begins a word), or excluded (``-word``: no version with it matches)."""

    tokens: tuple[str, ...]
    prefix: bool = False
    exclude: bool = False


@dataclass(frozen=True)
class Query:
    text: str
    terms: tuple[Term, ...]
    #: Said to the user beside the results: how the query was read where it was odd.
    notes: tuple[str, ...] = field(default=())

    @property
    def positive(self) -> tuple[Term, ...]:
        return tuple(term for term in self.terms if not term.exclude)

    @property
    def excluded(self) -> tuple[Term, ...]:
        return tuple(term for term in self.terms if term.exclude)


#: What opens or closes a phrase: the straight quote, and the typographic ones a text
#: copied from a document or typed on a phone brings ("…", „…“, «…»).
QUOTES = frozenset('"\u201c\u201d\u201e\u201f\u00ab\u00bb')


def parse_query(text: str) -> Query:
    """Words, ``"exact phrases"``, prefixes (``harb*``) and exclusions (``-word``,
    ``-"a phrase"``); every term must match. Raises :class:`QueryError` when nothing is
    left to search for."""
    notes: list[str] = []
    positive: list[Term] = []
    excluded: list[Term] = []
    position, end = 0, len(text)
    dropped = 0
    while position < end:
        char = text[position]
        if char.isspace():
            position += 1
            continue
        exclude = False
        if char == "-":
            exclude = True
            position += 1
            if position >= end or text[position].isspace():
                continue  # a lone "-": a dash, not an exclusion
        if position < end and text[position] in QUOTES:
            close = next((at for at in range(position + 1, end) if text[at] in QUOTES), -1)
            if close < 0:
                notes.append("a quote was not closed: the phrase runs to the end of the query")
                close = end
            raw = text[position + 1 : close]
            position = close + 1
        else:
            stop = position
            while stop < end and not text[stop].isspace() and text[stop] not in QUOTES:
                stop += 1
            raw = text[position:stop]
            position = stop
        prefix = raw.rstrip().endswith("*")
        found = tuple(tokens(raw))
        if not found:
            continue
        if len(found) > MAX_PHRASE:
            notes.append(f"a phrase was cut to its first {MAX_PHRASE} words")
            found, prefix = found[:MAX_PHRASE], False
        term = Term(found, prefix, exclude)
        kept = excluded if exclude else positive
        if term in kept:
            continue
        # the words looked for are kept before exclusions: a query cut to its first
        # exclusions would ask for nothing
        if len(kept) >= MAX_TERMS:
            dropped += 1
            continue
        kept.append(term)
    room = max(0, MAX_TERMS - len(positive))
    dropped += max(0, len(excluded) - room)
    if dropped:
        notes.append(f"only the first {MAX_TERMS} terms were searched ({dropped:,} left out)")
    terms = (*positive, *excluded[:room])
    query = Query(text, terms, tuple(dict.fromkeys(notes)))
    if not query.positive:
        if query.excluded:
            raise QueryError(
                "a query of exclusions alone matches nearly everything: add a word to look for"
            )
        raise QueryError('nothing to search for: give a word or a "phrase"')
    return query


def fts_match(query: Query) -> str:
    """The query as an FTS5 MATCH expression (its tokens are letters, digits and marks
    only, so quoting each is enough)."""

    def one(term: Term) -> str:
        return '"' + " ".join(term.tokens) + '"' + ("*" if term.prefix else "")

    expression = " AND ".join(one(term) for term in query.positive)
    if query.excluded:
        expression = f"({expression}) NOT ({' OR '.join(one(t) for t in query.excluded)})"
    return expression


def joined_words(words: Sequence[str]) -> str:
    """A version's paragraphs' words as one string :func:`matches` reads: a phrase never
    runs from one paragraph into the next."""
    return " " + " \n ".join(words) + " "


def matches(joined: str, query: Query) -> bool:
    """Whether a version (its :func:`joined_words`) has every term of the query and none
    of its exclusions."""
    return all(_has(joined, term) for term in query.positive) and not any(
        _has(joined, term) for term in query.excluded
    )


def _has(joined: str, term: Term) -> bool:
    needle = " " + " ".join(term.tokens)
    return needle in joined if term.prefix else needle + " " in joined


def _lexeme(token: str) -> str:
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def ts_query(query: Query) -> str:
    """The query as a PostgreSQL ``tsquery`` literal."""

    def one(term: Term) -> str:
        words = [_lexeme(token) for token in term.tokens]
        if term.prefix:
            words[-1] += ":*"
        return words[0] if len(words) == 1 else "(" + " <-> ".join(words) + ")"

    parts = [one(term) for term in query.positive]
    parts += ["!" + one(term) for term in query.excluded]
    return " & ".join(parts)


#: PostgreSQL keeps word positions up to this, and this many positions of one word.
_PG_MAX_POSITION = 16383
_PG_MAX_POSITIONS = 255


def ts_vector(words: str) -> str:
    """Space-separated folded tokens as a PostgreSQL ``tsvector`` literal, with positions
    (phrases need them). Past position 16,383 PostgreSQL keeps none: a phrase that far into
    a page is matched as its words."""
    positions: dict[str, list[int]] = {}
    for number, token in enumerate(words.split(), 1):
        kept = positions.setdefault(token, [])
        if len(kept) < _PG_MAX_POSITIONS and number <= _PG_MAX_POSITION:
            kept.append(number)
    return " ".join(
        _lexeme(token) + (":" + ",".join(map(str, at)) if at else "")
        for token, at in positions.items()
    )


# Snippets


@dataclass(frozen=True)
class Snippet:
    """A passage of a text around its first match, and where the matches are in it."""

    text: str
    marks: tuple[tuple[int, int], ...]


#: Tokens shown before a match, and in all.
_BEFORE = 8
_WIDTH = 32


def snippet(text: str, query: Query) -> Snippet:
    """The passage of ``text`` around the first match of the query's words or phrases
    (its opening words when none is in the text: the match was in the title), its
    whitespace collapsed."""
    found = spans(text)
    if not found:
        return Snippet(" ".join(text.split())[:200], ())
    hits = _matches([token for _, _, token in found], query.positive)
    first = hits[0][0] if hits else 0
    start = max(0, first - _BEFORE)
    stop = min(len(found), start + _WIDTH)
    begin, finish = found[start][0], found[stop - 1][1]
    lead = "… " if start > 0 else ""
    out: list[str] = [lead]
    length = len(lead)
    at: dict[int, int] = {}  # a position in ``text`` -> its position in the snippet
    space = False
    for position in range(begin, finish):
        char = text[position]
        if char.isspace():
            space = True
            continue
        if space:
            out.append(" ")
            length += 1
            space = False
        at[position] = length
        out.append(char)
        length += 1
    marks = tuple(
        (at[found[a][0]], at[found[b - 1][1] - 1] + 1) for a, b in hits if a >= start and b <= stop
    )
    tail = " …" if stop < len(found) else ""
    return Snippet("".join(out) + tail, marks)


def version_snippet(paragraphs: Sequence[str], words: Sequence[str], query: Query) -> Snippet:
    """:func:`snippet` of a version's first paragraph with a match (its words, as
    :func:`indexed_text` made them, say which without reading the rest)."""
    for text, found in zip(paragraphs, words, strict=True):
        joined = " " + found + " "
        if any(_has(joined, term) for term in query.positive):
            return snippet(text, query)
    return snippet(paragraphs[0] if paragraphs else "", query)


def _matches(words: list[str], terms: tuple[Term, ...]) -> list[tuple[int, int]]:
    """Token ranges ``[a, b)`` where a term matches, in order, not overlapping."""
    out: list[tuple[int, int]] = []
    for term in terms:
        size, last = len(term.tokens), len(term.tokens) - 1
        for start in range(len(words) - size + 1):
            if all(
                words[start + k] == token
                or (k == last and term.prefix and words[start + k].startswith(token))
                for k, token in enumerate(term.tokens)
            ):
                out.append((start, start + size))
    out.sort()
    kept: list[tuple[int, int]] = []
    for a, b in out:
        if not kept or a >= kept[-1][1]:
            kept.append((a, b))
    return kept
