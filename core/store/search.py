"""The full-text index (docs/design.md §19): a page's texts, their words, their versions.

``search_doc`` holds each distinct text of a page once (title, compressed text); the
versions of a page (its payload digests, as the capture table has them) point at the
text found in them (``search_version``), so a page fetched a hundred times unchanged,
or changed only in its markup, costs one text. The words are indexed by the store's own
full-text engine, handed tokens already folded by :mod:`recrawl.core.content.search_text`
so both engines agree: SQLite's FTS5 (``search_fts``, contentless: the text is kept
once, compressed, in ``search_doc``) or PostgreSQL's tsvector (``search_doc.tsv``, with a
GIN index).

Rows are written in the caller's transaction: the commit pipeline's, with the captures
they are of, so a kill leaves no text without its capture nor a capture without its text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from peewee import Database, SqliteDatabase
from recrawl.core.content.search_text import IndexedText, Query, fts_match, stored_text
from recrawl.core.content.search_text import ts_query as ts_query_of
from recrawl.core.content.search_text import ts_vector as ts_vector_of
from recrawl.core.store.models import DB, SearchDoc, SearchVersion
from recrawl.core.store.settings import get_setting, set_setting
from recrawl.core.store.sql import chunks, insert_rows, is_server_store

#: What the index was made with (the tokenizer, what a document holds): an index of an
#: older format is cleared and built again.
SEARCH_FORMAT = 1
#: At most this many documents (the newest that match) are ranked for a query that asks
#: for no time range (:func:`ranked_docs`' ``newest``).
RANKED_AT_MOST = 10_000
#: The setting that says whether every capture's text is indexed.
SEARCH_INDEX = "search_index"
COMPLETE = "complete"
STALE = "stale"

#: FTS5's tokenizer splits only between the folded tokens: letters, digits and marks of
#: any script are word characters (its default leaves marks out, cutting Hindi words).
_TOKENIZER = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"


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
    """The index's tables (migration 17; again after :func:`clear_index`)."""
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


def _param() -> str:
    """The driver's placeholder (``?`` or ``%s``)."""
    return "%s" if is_server_store() else "?"


def host_of(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def add_texts(rows: Sequence[IndexedText]) -> int:
    """Index these versions (inside the caller's transaction, if it has one): a text
    new to its page becomes a document, every version a row; versions already indexed
    are left as they are. Returns how many documents were added."""
    if not rows:
        return 0
    known = _docs_by_hash({row.url for row in rows})
    have = indexed_versions((row.url, row.digest) for row in rows)
    server = is_server_store()
    param = _param()
    insert = (
        'INSERT INTO "search_doc" ("url", "host", "hash", "title", "body", "chars"'
        + (', "tsv"' if server else "")
        + ") VALUES ("
        + ", ".join([param] * (7 if server else 6))
        + ("::tsvector) RETURNING id" if server else ")")
    )
    added = 0
    versions: list[list[Any]] = []
    for row in rows:
        if (row.url, row.digest) in have:
            continue
        have.add((row.url, row.digest))
        doc = known.get((row.url, row.hash))
        if doc is None:
            values: list[Any] = [
                row.url,
                host_of(row.url),
                row.hash,
                row.title,
                row.body,
                row.chars,
            ]
            if server:
                values.append(ts_vector_of(row.tokens))
            cursor = DB.execute_sql(insert, values)
            doc = int(cursor.fetchone()[0]) if server else int(cursor.lastrowid)
            if not server:
                DB.execute_sql(
                    f"INSERT INTO search_fts(rowid, words) VALUES ({param}, {param})",
                    [doc, row.tokens],
                )
            known[(row.url, row.hash)] = doc
            added += 1
        versions.append([row.url, row.digest, doc])
    insert_rows(SearchVersion, ["url", "digest", "doc"], versions, ignore=True)
    return added


def _docs_by_hash(urls: Iterable[str]) -> dict[tuple[str, bytes], int]:
    found: dict[tuple[str, bytes], int] = {}
    for chunk in chunks(sorted(set(urls))):
        query = SearchDoc.select(SearchDoc.id, SearchDoc.url, SearchDoc.hash)
        for doc, url, digest in query.where(SearchDoc.url.in_(chunk)).tuples().iterator():
            found[(url, bytes(digest))] = int(doc)
    return found


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


def ranked_docs(
    query: Query, site: str | None, limit: int, *, newest: int | None = None
) -> list[tuple[int, str, float]]:
    """The documents that match, best first: (doc id, url, score; higher is better).

    ``newest``: rank only the newest that many documents that match (of ``site``, if
    given), on SQLite; None: every match. FTS5 computes bm25 for every match before it
    takes the best: a word on every page ranks them all (seconds, on a big project),
    while stepping back through the newest matches' rowids and then seeking costs
    milliseconds."""
    param = _param()
    if is_server_store():
        sql = (
            'SELECT d.id, d.url, ts_rank(d.tsv, q) AS score FROM "search_doc" d, '
            f"CAST({param} AS tsquery) q WHERE d.tsv @@ q"
            + (f" AND d.host = {param}" if site else "")
            + f" ORDER BY score DESC, d.id LIMIT {param}"
        )
        args: list[Any] = [ts_query_of(query)]
        if site:
            args.append(site.lower())
    else:
        match = fts_match(query)
        where = f" AND d.host = {param}" if site else ""
        window = ""
        args = [match]
        if newest is not None:
            of_site = f' JOIN "search_doc" e ON e.id = g.rowid AND e.host = {param}' if site else ""
            window = (
                f" AND f.rowid >= COALESCE((SELECT g.rowid FROM search_fts g{of_site} "
                f"WHERE g.search_fts MATCH {param} ORDER BY g.rowid DESC LIMIT 1 "
                f"OFFSET {param}), 0)"
            )
            args += [*([site.lower()] if site else []), match, max(newest, 1) - 1]
        sql = (
            'SELECT f.rowid, d.url, -f.rank FROM search_fts f JOIN "search_doc" d '
            f"ON d.id = f.rowid WHERE f.search_fts MATCH {param}{window}{where}"
            f" ORDER BY f.rank LIMIT {param}"
        )
        if site:
            args.append(site.lower())
    args.append(limit)
    return [(int(doc), url, float(score)) for doc, url, score in DB.execute_sql(sql, args)]


def matching_docs(query: Query, docs: Iterable[int]) -> set[int]:
    """Those of these documents the query matches."""
    param = _param()
    found: set[int] = set()
    server = is_server_store()
    if not server and any(term.prefix for term in query.terms):
        # FTS5 expands a prefix into its words' documents anew for every rowid asked
        # (a millisecond each: half a second for a page of results): every match once,
        # kept if asked for
        wanted = set(docs)
        sql = f"SELECT rowid FROM search_fts WHERE search_fts MATCH {param}"
        return {
            int(doc) for (doc,) in DB.execute_sql(sql, [fts_match(query)]) if int(doc) in wanted
        }
    for chunk in chunks(sorted(set(docs))):
        marks = ", ".join([param] * len(chunk))
        if server:
            sql = (
                f'SELECT id FROM "search_doc" WHERE id IN ({marks}) '
                f"AND tsv @@ CAST({param} AS tsquery)"
            )
            args: list[Any] = [*chunk, ts_query_of(query)]
        else:
            sql = f"SELECT rowid FROM search_fts WHERE search_fts MATCH {param} AND rowid IN ({marks})"
            args = [fts_match(query), *chunk]
        found.update(int(doc) for (doc,) in DB.execute_sql(sql, args))
    return found


def versions_of(urls: Iterable[str]) -> dict[str, dict[str, int]]:
    """Each of these pages' indexed versions: url -> {digest: doc id}."""
    out: dict[str, dict[str, int]] = {}
    for chunk in chunks(sorted(set(urls))):
        query = SearchVersion.select(SearchVersion.url, SearchVersion.digest, SearchVersion.doc)
        for url, digest, doc in query.where(SearchVersion.url.in_(chunk)).tuples().iterator():
            out.setdefault(url, {})[digest] = int(doc)
    return out


def doc_texts(docs: Iterable[int]) -> dict[int, tuple[str | None, str]]:
    """These documents' titles and texts."""
    out: dict[int, tuple[str | None, str]] = {}
    for chunk in chunks(sorted(set(docs))):
        query = SearchDoc.select(SearchDoc.id, SearchDoc.title, SearchDoc.body)
        for doc, title, body in query.where(SearchDoc.id.in_(chunk)).tuples().iterator():
            out[int(doc)] = (title, stored_text(bytes(body)))
    return out
