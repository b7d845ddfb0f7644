"""Numbered schema migrations. The store's ``schema_version`` setting says which ran.

Add a migration by appending a function; never edit one that has shipped. Each runs in
a transaction with a ``playhouse.migrate`` migrator for the open database.
"""

from __future__ import annotations

from collections.abc import Callable

from peewee import Database
from playhouse.migrate import SchemaMigrator

from core.errors import StoreError
from core.models import MODELS, Setting


def _m0001_initial(db: Database, migrator: SchemaMigrator) -> None:
    db.create_tables(MODELS)


MIGRATIONS: tuple[Callable[[Database, SchemaMigrator], None], ...] = (_m0001_initial,)
SCHEMA_VERSION = len(MIGRATIONS)


def current_version(db: Database) -> int:
    if not db.table_exists(Setting._meta.table_name):
        return 0
    row = Setting.get_or_none(Setting.key == "schema_version")
    return int(row.value) if row else 0


def migrate(db: Database) -> int:
    """Bring the store up to :data:`SCHEMA_VERSION`; return the version found."""
    found = current_version(db)
    if found > SCHEMA_VERSION:
        raise StoreError(
            f"this project was written by a newer Recrawl (schema {found}, "
            f"this one knows {SCHEMA_VERSION})"
        )
    migrator = SchemaMigrator.from_database(db)
    for number in range(found, SCHEMA_VERSION):
        with db.atomic():
            MIGRATIONS[number](db, migrator)
            Setting.replace(key="schema_version", value=number + 1).execute()
    return found
