"""Every store test runs on SQLite and on PostgreSQL (docs/design.md §12)."""

from tests.support.stores import store_kind  # noqa: F401
