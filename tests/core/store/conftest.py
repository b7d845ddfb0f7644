"""Every store test runs on SQLite and on PostgreSQL (docs/design.md §12)."""

from tests.stores import store_kind  # noqa: F401
