"""Which store a query goes to: the one active in the calling context (docs/design.md §2).

There is no process-wide database handle. Each :class:`~recrawl.core.project.Project`
owns its database; the models are bound to :data:`DB`, which hands every query to the
database active in the current :mod:`contextvars` context. Two projects may be open in
one process, used from two threads at once or one after the other in one thread, and
each query sees only the store of the project active where it runs.

A project becomes active where it is opened, and with ``with project.active():``
anywhere else. A thread starts with nothing active (a new thread has a fresh context),
so each thread the engine or the app starts enters its project's context first
(:func:`entering` for an executor's threads); a query where none is active raises
:class:`~recrawl.core.errors.NoActiveStore` instead of reaching another project's store.
asyncio tasks copy their context when made, so the tasks of a crawl see its project.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from peewee import Database, DatabaseProxy
from recrawl.core.errors import NoActiveStore

_ACTIVE: ContextVar[Database | None] = ContextVar("recrawl_store", default=None)


class ActiveStore(DatabaseProxy):
    """The models' database: whichever is active in the calling context.

    A query costs one context-variable lookup more than a bound database. peewee's
    proxy callbacks never run (nothing is ever bound): a field that adapts to its
    driver (``BlobField``) keeps its portable default.
    """

    def __init__(self) -> None:
        self._callbacks: list[Callable[[Database | None], None]] = []

    @property
    def obj(self) -> Database | None:
        """The active database, or None (peewee asks while it defines the models)."""
        return _ACTIVE.get()

    def initialize(self, obj: Database | None) -> None:
        raise TypeError("a store is never bound process-wide: activate it (store.using)")

    def __getattr__(self, attr: str) -> Any:
        db = _ACTIVE.get()
        if db is None:
            raise NoActiveStore(
                "no project is active here: the thread must enter its project first "
                "(with project.active(): ...)"
            )
        return getattr(db, attr)

    def __enter__(self) -> Any:
        return self.database().__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.database().__exit__(*exc)

    def database(self) -> Database:
        """The active database (:class:`NoActiveStore` when none is)."""
        db = _ACTIVE.get()
        if db is None:
            self.__getattr__("database")  # raises
        assert db is not None
        return db


#: The models' database (their ``Meta.database``): see :class:`ActiveStore`.
DB = ActiveStore()


def active_database() -> Database:
    """The database active in this context (:class:`NoActiveStore` when none is)."""
    return DB.database()


#: Stores whose project was closed: never made active again by a project closing after.
_CLOSED: weakref.WeakSet[Database] = weakref.WeakSet()


def closed(db: Database) -> None:
    """``db``'s project closed."""
    _CLOSED.add(db)


def is_closed(db: Database) -> bool:
    return db in _CLOSED


def current() -> Database | None:
    """The database active in this context, or None."""
    return _ACTIVE.get()


def activate(db: Database | None) -> None:
    """Make ``db`` this context's store until another is (a thread's first act, or an
    executor's ``initializer``); None: none."""
    _ACTIVE.set(db)


@contextlib.contextmanager
def using(db: Database) -> Iterator[Database]:
    """``db`` is the active store meanwhile; the one before it is again after."""
    token = _ACTIVE.set(db)
    try:
        yield db
    finally:
        _ACTIVE.reset(token)


def entering() -> Callable[[], None]:
    """A function that makes this context's store active where it is called: the
    ``initializer`` of an executor whose threads query the store."""
    db = active_database()
    return lambda: activate(db)
