"""The full-text index (docs/design.md §19): a page's paragraphs, their words, its versions.

A page's versions mostly repeat each other: a sentence added, a date changed. So the
index keeps each distinct paragraph of a page once, in *generations* (``search_doc``:
the paragraphs of a run of versions, compressed), and each version (``search_version``:
the URL and payload digest the capture table has) lists which of its generation's
paragraphs it holds. The store's own full-text engine indexes a generation's words —
SQLite's FTS5 (``search_fts``, contentless: the text is kept once, in ``search_doc``) or
PostgreSQL's tsvector (``search_doc.tsv``, with a GIN index) — handed tokens already
folded by :mod:`recrawl.core.content.search_text`, so both agree. The engine finds the
generations that have every word somewhere; which of their versions match (all terms,
phrases within a paragraph, no exclusion) is read from the versions' paragraphs.

Rows are written in the caller's transaction: the commit pipeline's, with the captures
they are of, so a kill leaves no text without its capture nor a capture without its text.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from peewee import Database, SqliteDatabase
from recrawl.core.content.search_text import (
    IndexedText,
    Query,
    SearchDocument,
    fts_match,
    joined_words,
    matches,
    ts_query,
    ts_vector,
)
from recrawl.core.store.models import DB, SearchDoc, SearchVersion
from recrawl.core.store.settings import get_setting, set_setting
from recrawl.core.store.sql import chunks, insert_rows, is_server_store

#: What the index was made with (the tokenizer, what a generation holds): an index of an
#: older format is cleared and built again.
SEARCH_FORMAT = 1
#: The setting that says whether every capture's text is indexed.
SEARCH_INDEX = "search_index"
COMPLETE = "complete"
STALE = "stale"

#: FTS5's tokenizer splits only between the folded tokens: letters, digits and marks of
#: any script are word characters (its default leaves marks out, cutting Hindi words).
_TOKENIZER = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"
#: A generation takes a version's new paragraphs while it stays under this many times
#: the version's own tokens (plus a floor, for small pages): each new paragraph rewrites
#: the generation's words in the index, so a generation must not grow without end.
_GROWTH = 3
_FLOOR = 2000
_NO_TITLE = 0xFFFFFFFF
#: Set on a version's sentence that begins a paragraph.
_STARTS = 0x80000000
_UNIT = 0x7FFFFFFF
_LEVEL = 6


@dataclass(frozen=True)
class SearchState:
    format: int
    state: str

    @property
    def complete(self) -> bool:
        return self.state == COMPLETE and self.format == SEARCH_FORMAT


def search_state() -> SearchState:
    value = get_setting(SEARCH_INDEX)
    if not isinstance(value, dict):
        return SearchState(0, STALE)
    return SearchState(int(value.get("format", 0)), str(value.get("state", STALE)))


def set_search_state(state: str, format: int = SEARCH_FORMAT) -> None:
    set_setting(SEARCH_INDEX, {"format": format, "state": state})


def create_index(db: Database) -> None:
    """The index's tables (migration 17)."""
    db.create_tables([SearchDoc, SearchVersion], safe=True)
    if isinstance(db, SqliteDatabase):
        db.execute_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5("
            f"words, content='', tokenize=\"{_TOKENIZER}\")"
        )
    else:
        db.execute_sql('ALTER TABLE "search_doc" ADD COLUMN IF NOT EXISTS "tsv" tsvector')
        db.execute_sql(
            'CREATE INDEX IF NOT EXISTS "search_doc_tsv" ON "search_doc" USING GIN ("tsv")'
        )


def clear_index() -> None:
    """Empty the index (in the caller's transaction); its state is the caller's to set."""
    SearchVersion.delete().execute()
    SearchDoc.delete().execute()
    if not is_server_store():
        DB.execute_sql("INSERT INTO search_fts(search_fts) VALUES ('delete-all')")


#: FTS5 merge work done after a crawl (its pages of b-tree): a generation rewritten
#: leaves its old words behind until its segment is merged, and a crawl's rewrites are
#: merged away by the next crawls bit by bit.
MERGE_PAGES = 500


def tidy_index(*, whole: bool = False) -> None:
    """Merge the index's segments, dropping the words of rewritten generations: all of
    them (``whole``: after a build, seconds for a large one) or a crawl's share. SQLite
    only: PostgreSQL's GIN index is tidied by its own vacuum."""
    if is_server_store():
        return
    if whole:
        DB.execute_sql("INSERT INTO search_fts(search_fts) VALUES ('optimize')")
    else:
        DB.execute_sql(
            "INSERT INTO search_fts(search_fts, rank) VALUES ('merge', ?)", [MERGE_PAGES]
        )


def host_of(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def _param() -> str:
    """The driver's placeholder (``?`` or ``%s``)."""
    return "%s" if is_server_store() else "?"


# Generations


@dataclass
class _Generation:
    id: int | None
    url: str
    paragraphs: list[str]
    words: list[str]
    #: The words the index holds for it now (None: not in the index yet).
    indexed: str | None = None
    at: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    changed: bool = False

    def __post_init__(self) -> None:
        self.at = {text: n for n, text in enumerate(self.paragraphs)}
        self.tokens = sum(words.count(" ") + 1 for words in self.words if words)

    def place(self, text: str, words: str) -> int:
        found = self.at.get(text)
        if found is None:
            found = self.at[text] = len(self.paragraphs)
            self.paragraphs.append(text)
            self.words.append(words)
            self.tokens += words.count(" ") + 1
            self.changed = True
        return found

    def room_for(self, row: IndexedText) -> bool:
        new = [w for text, w in zip(row.paragraphs, row.words, strict=True) if text not in self.at]
        own = sum(w.count(" ") + 1 for w in row.words) + row.title_words.count(" ") + 1
        extra = sum(w.count(" ") + 1 for w in new)
        return self.tokens + extra <= _GROWTH * own + _FLOOR

    def body(self) -> bytes:
        text = "\n".join(self.paragraphs) + "\0" + "\n".join(self.words)
        return zlib.compress(text.encode("utf-8", "surrogatepass"), _LEVEL)

    def all_words(self) -> str:
        return " ".join(self.words)


def _unpack(body: bytes) -> tuple[list[str], list[str]]:
    texts, _, words = zlib.decompress(body).decode("utf-8", "surrogatepass").partition("\0")
    if not texts and not words:
        return [], []
    return texts.split("\n"), words.split("\n")


def _latest_generations(urls: Iterable[str]) -> dict[str, _Generation]:
    found: dict[str, _Generation] = {}
    for chunk in chunks(sorted(set(urls))):
        query = (
            SearchDoc.select(SearchDoc.id, SearchDoc.url, SearchDoc.body)
            .where(SearchDoc.url.in_(chunk))
            .order_by(SearchDoc.id)
        )
        if is_server_store():
            # a worker and a build (or the app's) may add versions of one page at once:
            # the second waits, then reads the generation the first wrote
            query = query.for_update()
        for doc, url, body in query.tuples().iterator():
            texts, words = _unpack(bytes(body))
            found[url] = _Generation(int(doc), url, texts, words, " ".join(words))
    return found


def add_texts(rows: Sequence[IndexedText]) -> int:
    """Index these versions (inside the caller's transaction, if it has one); versions
    already indexed are left as they are. Returns how many versions were added."""
    if not rows:
        return 0
    have = indexed_versions((row.url, row.digest) for row in rows)
    fresh = [row for row in rows if (row.url, row.digest) not in have]
    if not fresh:
        return 0
    latest = _latest_generations(row.url for row in fresh)
    versions: list[tuple[_Generation, IndexedText, bytes]] = []
    made: list[_Generation] = []
    for row in fresh:
        if (row.url, row.digest) in have:
            continue  # twice in one batch
        have.add((row.url, row.digest))
        generation = latest.get(row.url)
        if generation is None or not generation.room_for(row):
            generation = latest[row.url] = _Generation(None, row.url, [], [])
            made.append(generation)
        title = generation.place(row.title, row.title_words) if row.title else _NO_TITLE
        starts = set(row.starts)
        placed = [
            generation.place(t, w) | (_STARTS if n in starts else 0)
            for n, (t, w) in enumerate(zip(row.paragraphs, row.words, strict=True))
        ]
        versions.append((generation, row, array("I", [title, *placed]).tobytes()))
    for generation in {id(g): g for g in [*latest.values(), *made]}.values():
        if generation.changed:
            _write_generation(generation)
    insert_rows(
        SearchVersion,
        ["url", "digest", "doc", "title", "paragraphs"],
        [[row.url, row.digest, g.id, row.title, packed] for g, row, packed in versions],
        ignore=True,
    )
    return len(versions)


def _write_generation(generation: _Generation) -> None:
    param = _param()
    words = generation.all_words()
    server = is_server_store()
    body = generation.body()
    if generation.id is None:
        names = '"url", "host", "body", "paragraphs", "tokens"' + (', "tsv"' if server else "")
        marks = ", ".join([param] * 5) + (f", {param}::tsvector" if server else "")
        values: list[Any] = [
            generation.url,
            host_of(generation.url),
            body,
            len(generation.paragraphs),
            generation.tokens,
        ]
        if server:
            cursor = DB.execute_sql(
                f'INSERT INTO "search_doc" ({names}) VALUES ({marks}) RETURNING id',
                [*values, ts_vector(words)],
            )
            generation.id = int(cursor.fetchone()[0])
        else:
            cursor = DB.execute_sql(f'INSERT INTO "search_doc" ({names}) VALUES ({marks})', values)
            generation.id = int(cursor.lastrowid)
    else:
        sets = f'"body" = {param}, "paragraphs" = {param}, "tokens" = {param}'
        values = [body, len(generation.paragraphs), generation.tokens]
        if server:
            sets += f', "tsv" = {param}::tsvector'
            values.append(ts_vector(words))
        DB.execute_sql(
            f'UPDATE "search_doc" SET {sets} WHERE "id" = {param}', [*values, generation.id]
        )
    if not server:
        if generation.indexed is not None:  # a contentless table forgets by being told
            DB.execute_sql(
                "INSERT INTO search_fts(search_fts, rowid, words) "
                f"VALUES ('delete', {param}, {param})",
                [generation.id, generation.indexed],
            )
        DB.execute_sql(
            f"INSERT INTO search_fts(rowid, words) VALUES ({param}, {param})",
            [generation.id, words],
        )
    generation.indexed = words
    generation.changed = False


def indexed_versions(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """Those of these (url, digest) versions the index has."""
    wanted = set(pairs)
    found: set[tuple[str, str]] = set()
    for chunk in chunks(sorted({url for url, _ in wanted})):
        query = SearchVersion.select(SearchVersion.url, SearchVersion.digest)
        for pair in query.where(SearchVersion.url.in_(chunk)).tuples().iterator():
            if pair in wanted:
                found.add(pair)
    return found


def version_count() -> int:
    return int(SearchVersion.select().count())


# Reading


#: A query that more generations than this match is listed newest first: ranking them
#: all (FTS5's bm25 reads every match) would cost more than it tells.
RANKED_MOST = 5000


def ranked_generations(
    query: Query, site: str | None, limit: int, *, whole: bool = False
) -> list[tuple[str, float]]:
    """The pages whose generations have every word of the query, best first: (url, score;
    higher is better) — a page once for each of its generations that do. ``whole``: only
    generations without the query's exclusions anywhere (all their versions lack them).
    Past :data:`RANKED_MOST` matches, newest first (score 0)."""
    param = _param()
    asked = query if whole else _words_only(query)
    server = is_server_store()
    if server:
        source = f'"search_doc" d, CAST({param} AS tsquery) q WHERE d.tsv @@ q'
        expression: str = ts_query(asked)
        probe = f'SELECT 1 FROM "search_doc" WHERE tsv @@ CAST({param} AS tsquery)'
        score, best, newest = "ts_rank(d.tsv, q)", "score DESC, d.id", "d.id DESC"
    else:
        source = (
            f'search_fts f JOIN "search_doc" d ON d.id = f.rowid WHERE search_fts MATCH {param}'
        )
        expression = fts_match(asked)
        probe = f"SELECT rowid FROM search_fts WHERE search_fts MATCH {param}"
        score, best, newest = "-f.rank", "f.rank", "f.rowid DESC"
    many = DB.execute_sql(f"{probe} LIMIT 1 OFFSET {int(RANKED_MOST)}", [expression]).fetchone()
    if many is not None:
        score, best = "0.0", newest
    sql = (
        f"SELECT d.url, {score} AS score FROM {source}"
        + (f" AND d.host = {param}" if site else "")
        + f" ORDER BY {best} LIMIT {param}"
    )
    args: list[Any] = [expression, *([site.lower()] if site else []), limit]
    return [(url, float(value)) for url, value in DB.execute_sql(sql, args)]


def _words_only(query: Query) -> Query:
    # an exclusion is of a version, not of a generation (which holds the paragraphs of
    # several): the versions are read for it
    return Query(query.text, query.positive, query.notes)


@dataclass(frozen=True)
class Version:
    url: str
    digest: str
    title: str | None
    paragraphs: tuple[str, ...]
    #: Each paragraph's folded words (:func:`~recrawl.core.content.search_text.indexed_text`).
    words: tuple[str, ...]

    @property
    def text(self) -> str:
        """Its text, a paragraph a line."""
        return "\n".join(self.paragraphs)


def matching_versions(query: Query, urls: Iterable[str]) -> dict[str, dict[str, Version]]:
    """The versions of these pages that match the query: url -> {digest: version}."""
    # every generation of these pages, read here: which match is decided version by
    # version below, exactly, and asking the engine first would read every match it has
    docs: dict[int, tuple[list[str], list[str]]] = {}
    for chunk in chunks(sorted(set(urls))):
        query_docs = SearchDoc.select(SearchDoc.id, SearchDoc.body).where(SearchDoc.url.in_(chunk))
        for doc, body in query_docs.tuples().iterator():
            docs[int(doc)] = _unpack(bytes(body))
    out: dict[str, dict[str, Version]] = {}
    for ids in chunks(sorted(docs)):
        rows = SearchVersion.select(
            SearchVersion.url,
            SearchVersion.digest,
            SearchVersion.doc,
            SearchVersion.title,
            SearchVersion.paragraphs,
        ).where(SearchVersion.doc.in_(ids))
        for url, digest, doc, title, packed in rows.tuples().iterator():
            texts, words = docs[int(doc)]
            at = array("I", bytes(packed)).tolist()
            units = [n & _UNIT for n in at[1:]]
            chosen = units if at[0] == _NO_TITLE else [at[0], *units]
            if matches(joined_words([words[n] for n in chosen]), query):
                body, said = _paragraphs(at[1:], texts, words)
                out.setdefault(url, {})[digest] = Version(url, digest, title, body, said)
    return out


def _paragraphs(
    at: Sequence[int], texts: Sequence[str], words: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A version's paragraphs, and their words, from its sentences."""
    body: list[list[str]] = []
    said: list[list[str]] = []
    for n in at:
        if n & _STARTS or not body:
            body.append([])
            said.append([])
        body[-1].append(texts[n & _UNIT])
        said[-1].append(words[n & _UNIT])
    return tuple(" ".join(p) for p in body), tuple(" ".join(p) for p in said)


def version_texts(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SearchDocument]:
    """These versions' titles and texts (those the index has)."""
    wanted = set(pairs)
    rows: list[tuple[str, str, int, str | None, bytes]] = []
    for chunk in chunks(sorted({url for url, _ in wanted})):
        query = SearchVersion.select(
            SearchVersion.url,
            SearchVersion.digest,
            SearchVersion.doc,
            SearchVersion.title,
            SearchVersion.paragraphs,
        ).where(SearchVersion.url.in_(chunk))
        rows += [
            (url, digest, int(doc), title, bytes(packed))
            for url, digest, doc, title, packed in query.tuples().iterator()
            if (url, digest) in wanted
        ]
    texts: dict[int, list[str]] = {}
    for ids in chunks(sorted({row[2] for row in rows})):
        bodies = SearchDoc.select(SearchDoc.id, SearchDoc.body).where(SearchDoc.id.in_(ids))
        for doc, body in bodies.tuples().iterator():
            texts[int(doc)] = _unpack(bytes(body))[0]
    out: dict[tuple[str, str], SearchDocument] = {}
    for url, digest, doc, title, packed in rows:
        units = texts.get(doc, [])
        body, _ = _paragraphs(array("I", packed).tolist()[1:], units, units)
        out[(url, digest)] = SearchDocument(title, "\n".join(body))
    return out
