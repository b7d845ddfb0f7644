"""Helpers the query modules share: chunked IN lists, bulk writes, a URL search.

Building SQL in peewee costs more than running it; batches of same-shaped rows have
peewee write the statement once and the driver run it for every row (executemany).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from peewee import SQL, ColumnBase, NodeList, PostgresqlDatabase, Query
from recrawl.core.errors import StoreError
from recrawl.core.store.models import DB, BaseModel, Page

T = TypeVar("T")

CHUNK = 500  # stays well under SQLite's bound-variable limit


def is_server_store() -> bool:
    """Whether the open store is on a database server (PostgreSQL), not a file."""
    return isinstance(DB.obj, PostgresqlDatabase)


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def insert_rows(
    model: type[BaseModel],
    names: Sequence[str],
    rows: Sequence[Sequence[Any]],
    ignore: bool = False,
) -> int:
    """Insert rows of values for the columns ``names`` (``ignore``: skip duplicates);
    returns how many were inserted."""
    if not rows:
        return 0
    fields = [model._meta.fields[name] for name in names]
    query = model.insert_many([rows[0]], fields=fields)
    if ignore:
        query = query.on_conflict_ignore()
    params = [[f.db_value(v) for f, v in zip(fields, row, strict=True)] for row in rows]
    return executemany(query, params)


def update_pages(updates: Sequence[tuple[int, Mapping[str, Any]]]) -> None:
    """Set columns of pages by id: (page id, {column: value}), in one statement per shape."""
    groups: dict[frozenset[str], list[tuple[int, Mapping[str, Any]]]] = {}
    for page_id, values in updates:
        groups.setdefault(frozenset(values), []).append((page_id, values))
    for names, members in groups.items():
        # peewee writes SET columns in the model's field order; so do the parameters
        fields = [f for f in Page._meta.sorted_fields if f.name in names]
        sample_id, sample = members[0]
        query = Page.update({f: sample[f.name] for f in fields}).where(Page.id == sample_id)
        params = [
            [f.db_value(values[f.name]) for f in fields] + [page_id] for page_id, values in members
        ]
        executemany(query, params)


def executemany(query: Query, params: list[list[Any]]) -> int:
    """Run ``query``'s statement once per parameter list; ``params[0]`` must be its own.
    Returns how many rows the statements changed (for an UPDATE: those its WHERE met)."""
    sql, sample = query.sql()
    if list(sample) != params[0]:  # values would land in the wrong columns: refuse
        raise StoreError(f"internal: parameter order mismatch in {sql}")
    cursor = DB.cursor()
    cursor.executemany(sql, params)
    return int(cursor.rowcount)


def url_contains(column: ColumnBase, text: str) -> NodeList:
    """``column LIKE %text%``, case-insensitive (SQLite's LIKE; PostgreSQL's ILIKE), with
    % and _ literal."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    like = SQL("ILIKE" if is_server_store() else "LIKE")
    return NodeList((column, like, f"%{escaped}%", SQL("ESCAPE '\\'")))
