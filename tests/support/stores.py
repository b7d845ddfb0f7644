"""Running a module's tests on both stores: import this ``store_kind`` into it.

    from tests.support.stores import store_kind  # noqa: F401  # every test on both stores

Every test of the module that uses ``project`` (or ``store_url``) then runs on SQLite
and on PostgreSQL (tests/support/postgres.py). Choose such modules for what they prove: the
suite runs each of their tests twice.
"""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)
