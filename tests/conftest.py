"""Fixtures every test may use, and what lets the suite run on several cores at once.

``make test`` runs pytest-xdist (``-n auto --dist loadgroup``): each worker is its own
process. So that tests cannot see each other there, nor the user's own files:

- each test process, and then each test, gets its own home and XDG folders (``HOME``,
  ``XDG_CONFIG_HOME``, …): QSettings, platformdirs and autostart entries write there;
- servers listen on ports the kernel picks (port 0); a port that must refuse connections
  comes from ``closed_port``, held bound while the test runs;
- tests that share a module-scoped fixture (a crawled project reused read-only) go to one
  worker together (an ``xdist_group`` per module), so the fixture is built once;
- tests marked ``alone`` (those bounding event-loop stalls or CPU time) run while no
  other test runs on the machine's other workers (a file lock, see ``_machine``);
- tests marked ``slow`` start first, so the long ones do not end up last on one worker
  while the other idles; ``alone`` ones come last.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import itertools
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from recrawl.core.project import Project

from tests.support.httpserver import TestServer
from tests.support.postgres import Cluster, binaries

# No deadline per example: a busy machine makes one slow, and that proves nothing.
settings.register_profile("recrawl", deadline=None)
settings.load_profile("recrawl")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

#: The environment variables that name a user's folders, and where each points in a home.
USER_FOLDERS = {
    "HOME": ".",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
}


def _homes() -> Iterator[Path]:
    # made at import, before Qt or anything else reads the variables: QSettings fixes its
    # folder at its first use in a process, so this process's own stays its folder
    root = Path(tempfile.mkdtemp(prefix="recrawl-tests-home-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for n in itertools.count():
        home = root / str(n)
        for sub in USER_FOLDERS.values():
            (home / sub).mkdir(parents=True, exist_ok=True)
        yield home


_HOMES = _homes()
_PROCESS_HOME = next(_HOMES)  # for what runs outside a test: module fixtures, collection
for _name, _sub in USER_FOLDERS.items():
    os.environ[_name] = str((_PROCESS_HOME / _sub).resolve())


@pytest.fixture(autouse=True)
def user_home(monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's home folder, with ``HOME`` and the XDG folders pointing into it."""
    home = next(_HOMES)
    for name, sub in USER_FOLDERS.items():
        monkeypatch.setenv(name, str((home / sub).resolve()))
    return home


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound, never listening, for the whole
    test (a port merely free a moment ago could be taken by a parallel test's server)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def server() -> Iterator[TestServer]:
    srv = TestServer().start()
    yield srv
    srv.stop()


# -- the store: SQLite, or PostgreSQL where a test module asks for both -----------------


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """This test process's private PostgreSQL cluster (tests/support/postgres.py)."""
    required = os.environ.get("RECRAWL_REQUIRE_PG") == "1"
    bin_dir = binaries()
    if bin_dir is None:
        message = "PostgreSQL is not installed (apt-get install postgresql)"
        if required:
            pytest.fail(f"RECRAWL_REQUIRE_PG=1: {message}")
        pytest.skip(message)
    cluster = Cluster(bin_dir)
    try:
        cluster.start()
    except Exception as exc:
        cluster.stop()
        if required:
            pytest.fail(f"RECRAWL_REQUIRE_PG=1: cannot start PostgreSQL: {exc}")
        pytest.skip(f"cannot start PostgreSQL: {exc}")
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> Iterator[str]:
    """A fresh PostgreSQL database holding a new, empty store; dropped after the test."""
    url = pg_cluster.new_database()
    yield url
    from recrawl.core.store import close_database

    close_database()
    pg_cluster.drop(url)


@pytest.fixture
def store_kind() -> str:
    """Which store ``project`` uses: SQLite, or what ``RECRAWL_TEST_STORE`` says
    (``postgresql``: the whole suite on PostgreSQL); a module may run on both
    (tests/support/stores.py)."""
    return os.environ.get("RECRAWL_TEST_STORE", "sqlite")


@pytest.fixture
def store_url(store_kind: str, request: pytest.FixtureRequest) -> str | None:
    """The ``--db`` URL of this test's store (None: SQLite, the project's own file)."""
    if store_kind == "sqlite":
        return None
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def db_args(store_url: str | None) -> list[str]:
    """What ``recrawl init DIR`` takes for this test's store: nothing, or ``--db URL``."""
    return ["--db", store_url] if store_url else []


@pytest.fixture
def project(tmp_path: Path, store_url: str | None) -> Iterator[Project]:
    proj = Project.init(tmp_path / "proj", db_url=store_url)
    yield proj
    proj.close()


# -- running on several cores -----------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "alone: runs while no other test runs (it bounds event-loop stalls or CPU time)",
    )


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        defs[-1].scope in ("class", "module", "package")
        for defs in info.name2fixturedefs.values()
        if defs
    )


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None and _shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    # stable: otherwise in file order. ``alone`` tests last: by then the other workers run
    # short tests, so the wait for them is short
    items.sort(
        key=lambda item: (
            item.get_closest_marker("alone") is not None,
            item.get_closest_marker("slow") is None,
        )
    )


@contextlib.contextmanager
def _machine(config: pytest.Config, alone: bool) -> Iterator[None]:
    """Hold the machine shared, or alone, for one test of an xdist worker.

    Every test holds ``machine`` shared; an ``alone`` test holds it exclusively. To get
    it, a test passes through ``turnstile``, which a waiting ``alone`` test holds: others
    queue behind it instead of keeping it waiting forever.
    """
    # the workers' temporary folders are popen-gw0, popen-gw1… in the run's own
    folder = config._tmp_path_factory.getbasetemp().parent
    with (
        open(folder / "turnstile.lock", "a") as turnstile,
        open(folder / "machine.lock", "a") as machine,
    ):
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        if alone:
            fcntl.flock(machine, fcntl.LOCK_EX)
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        else:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
            fcntl.flock(machine, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(machine, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if not hasattr(item.config, "workerinput"):  # one process: every test runs alone
        return (yield)
    with _machine(item.config, alone=item.get_closest_marker("alone") is not None):
        return (yield)
