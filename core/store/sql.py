"""Helpers the query modules share: chunked IN lists, bulk writes, a URL search.

Building SQL in peewee costs more than running it; batches of same-shaped rows have
peewee write the statement once and the driver run it for every row (executemany).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from peewee import (
    SQL,
    BigIntegerField,
    CharField,
    ColumnBase,
    DateTimeField,
    Field,
    FloatField,
    ForeignKeyField,
    IntegerField,
    NodeList,
    PostgresqlDatabase,
    Query,
    TextField,
)
from recrawl.core.errors import StoreError
from recrawl.core.store.models import DB, BaseModel, Page

T = TypeVar("T")

CHUNK = 500  # stays well under SQLite's bound-variable limit


def is_server_store() -> bool:
    """Whether the open store is on a database server (PostgreSQL), not a file."""
    return isinstance(DB.obj, PostgresqlDatabase)  # None: no store active


def writing() -> contextlib.AbstractContextManager[object]:
    """A transaction that writes after it reads. On SQLite it takes the write lock as it
    begins: a deferred one that reads first, then finds another connection (a worker's
    heartbeat) committed meanwhile, cannot upgrade its snapshot and fails at once
    ("database is locked"), without waiting out the busy timeout."""
    if is_server_store():
        return DB.atomic()
    return DB.atomic("IMMEDIATE")


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
    return executemany(query, _db_values(fields, rows))


#: Field types whose db_value leaves a value of these types as it is: taken as is.
_PLAIN: dict[type[Field], tuple[type, ...]] = {
    IntegerField: (int,),
    BigIntegerField: (int,),
    ForeignKeyField: (int,),
    FloatField: (float, int),
    CharField: (str,),
    TextField: (str,),
}


def _db_values(fields: Sequence[Field], rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    convert = _converter()
    return [[convert(f, v) for f, v in zip(fields, row, strict=True)] for row in rows]


def _converter() -> Callable[[Field, Any], Any]:
    """``field.db_value(value)``, less its per-value calls where they change nothing (a
    crawl batch's tens of thousands of link rows are ids and one time)."""
    sqlite = not is_server_store()
    stamps: dict[datetime, str] = {}

    def convert(field: Field, value: Any) -> Any:
        if value is None:
            return None
        kind = type(value)
        if kind in _PLAIN.get(type(field), ()):
            return value
        if sqlite and kind is datetime and type(field) is DateTimeField:
            # what sqlite3's own adapter would write, value by value
            stamp = stamps.get(value)
            if stamp is None:
                stamp = stamps[value] = value.isoformat(" ")
            return stamp
        return field.db_value(value)

    return convert


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
        convert = _converter()
        params = [
            [convert(f, values[f.name]) for f in fields] + [page_id] for page_id, values in members
        ]
        executemany(query, params)


def executemany(query: Query, params: list[list[Any]]) -> int:
    """Run ``query``'s statement once per parameter list; ``params[0]`` must be its own.
    Returns how many rows the statements changed (for an UPDATE: those its WHERE met)."""
    sql, sample = query.sql()
    first = params[0]
    if len(sample) != len(first) or not all(map(_same, sample, first)):
        # values would land in the wrong columns: refuse
        raise StoreError(f"internal: parameter order mismatch in {sql}")
    cursor = DB.cursor()
    cursor.executemany(sql, params)
    return int(cursor.rowcount)


def _same(peewee_value: Any, ours: Any) -> bool:
    """Whether a value peewee put in a statement is the one we pass (:func:`_converter`)."""
    if isinstance(peewee_value, datetime) and isinstance(ours, str):
        return peewee_value.isoformat(" ") == ours
    return bool(peewee_value == ours)


def url_contains(column: ColumnBase, text: str) -> NodeList:
    """``column LIKE %text%``, case-insensitive (SQLite's LIKE; PostgreSQL's ILIKE), with
    % and _ literal."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    like = SQL("ILIKE" if is_server_store() else "LIKE")
    return NodeList((column, like, f"%{escaped}%", SQL("ESCAPE '\\'")))
