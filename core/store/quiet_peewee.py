"""Import peewee without psycopg: peewee imports every database driver it finds, and
psycopg costs a quick command a third of a second that only a PostgreSQL store needs
(:mod:`recrawl.core.store.postgres` gives peewee the driver when one is opened)."""

from __future__ import annotations

import sys

if "peewee" not in sys.modules:
    _before = {name: sys.modules.get(name) for name in ("psycopg", "psycopg2")}
    for _name, _module in _before.items():
        if _module is None:
            sys.modules[_name] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import peewee  # noqa: F401
    finally:
        for _name, _module in _before.items():
            if _module is None and sys.modules.get(_name, False) is None:
                del sys.modules[_name]
